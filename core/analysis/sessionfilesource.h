// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"
#include "core/store/sessionreader.h"

#include <cstdint>
#include <optional>
#include <set>

namespace ws {

// Streams the event tables of an open session file with one prepared SELECT per table, so
// reports and exports over a 10M-event session hold only what they aggregate, never the
// rows themselves. The small tables are read once, in the constructor. The reader must
// outlive this object. Read errors throw SessionError naming the file.
//
// Which runs: a multi-run session (schema v2) holds a trace and, say, profile runs of the same
// program whose replayed kernels have no meaningful timing. Runs::All streams every row (export,
// info); Runs::Timing only the rows of trace and import runs when the session has any, else
// every row (a profile-only session) — what reports, the ranking and the Stats panel count.
class SessionFileSource final : public RecordSource {
public:
    enum class Runs { All, Timing };
    explicit SessionFileSource(const SessionReader& reader, Runs runs = Runs::All);
    // The same file restricted to `runs`, sharing `all`'s header (the small tables are not read again).
    SessionFileSource(const SessionFileSource& all, Runs runs);
    // `base`'s runs and header, read through `reader` (another connection to the same file) and
    // restricted to the rows whose id lies in `ids`: one slice of the event tables, for reading
    // them on several threads at once. The counter samples have no ids: a slice refuses them.
    SessionFileSource(const SessionFileSource& base, const SessionReader& reader, SessionReader::IdRange ids);

    const SessionData& header() const override { return m_header; }
    void forEachKernel(const std::function<void(const KernelRecord&)>& visit) const override;
    void forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const override;
    void forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const override;
    void forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const override;
    void forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const override;
    void forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const override;
    void forEachSync(const std::function<void(const SyncRecord&)>& visit) const override;
    void forEachWarpEvent(const std::function<void(const WarpEvent&)>& visit) const override;
    void forEachCounterSample(const std::function<void(const CounterSample&)>& visit) const override;
    TimeSpan timeSpan() const override;

    // The connection the rows are read through.
    const SessionReader& reader() const { return m_reader; }
    // The runs streamed; empty means every row.
    const std::set<uint32_t>& runIds() const { return m_runIds; }

private:
    template <class R> void stream(const std::function<void(const R&)>& visit) const;
    static std::set<uint32_t> timingRunIds(const SessionReader& reader);

    const SessionReader& m_reader;
    SessionData m_header;
    std::set<uint32_t> m_runIds;
    std::optional<SessionReader::IdRange> m_ids;
};

} // namespace ws

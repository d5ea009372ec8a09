// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"

#include <functional>

namespace ws {

struct TimeSpan {
    TimeNs begin = 0;
    TimeNs end = 0;
    bool valid = false; // false when the session holds no timed event at all
};

// Where the stats reports and exporters read a session from. The small tables (strings,
// meta, environment, processes, threads, devices, streams) are held in memory; the event
// tables are visited row by row, so a session file of tens of millions of events is streamed
// rather than loaded whole (SessionFileSource), while tests and importers hand over a
// SessionData they already hold (MemoryRecordSource). Visiting order is unspecified.
class RecordSource {
public:
    virtual ~RecordSource() = default;

    // Small tables. The event vectors of the returned object may or may not be filled:
    // always visit events through forEach*().
    virtual const SessionData& header() const = 0;

    virtual void forEachKernel(const std::function<void(const KernelRecord&)>& visit) const = 0;
    virtual void forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const = 0;
    virtual void forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const = 0;
    virtual void forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const = 0;
    virtual void forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const = 0;
    virtual void forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const = 0;
    virtual void forEachSync(const std::function<void(const SyncRecord&)>& visit) const = 0;
    // In-kernel trace events (warp_event); sources without them visit nothing.
    virtual void forEachWarpEvent(const std::function<void(const WarpEvent&)>&) const { }
    // Samples of the counter tracks listed in header().counterTracks (PM sampling, imported
    // counters); sources without them visit nothing.
    virtual void forEachCounterSample(const std::function<void(const CounterSample&)>&) const { }

    // Earliest start and latest end over every event table above. The default visits all
    // rows; a file source answers with min/max queries.
    virtual TimeSpan timeSpan() const;

    const std::string& str(StringId id) const { return header().str(id); }
};

class MemoryRecordSource final : public RecordSource {
public:
    explicit MemoryRecordSource(const SessionData& data)
        : m_data(data)
    {
    }

    const SessionData& header() const override { return m_data; }
    void forEachKernel(const std::function<void(const KernelRecord&)>& visit) const override;
    void forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const override;
    void forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const override;
    void forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const override;
    void forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const override;
    void forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const override;
    void forEachSync(const std::function<void(const SyncRecord&)>& visit) const override;
    void forEachWarpEvent(const std::function<void(const WarpEvent&)>& visit) const override;
    void forEachCounterSample(const std::function<void(const CounterSample&)>& visit) const override;

private:
    const SessionData& m_data;
};

} // namespace ws

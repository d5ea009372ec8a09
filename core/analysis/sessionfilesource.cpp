// SPDX-License-Identifier: MIT
#include "core/analysis/sessionfilesource.h"

#include "core/store/sessionreader.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ws {

namespace {

template <class R> std::vector<R> readTable(const SessionReader& reader)
{
    std::vector<R> rows;
    reader.forEachRow<R>([&](const R& row) { rows.push_back(row); });
    return rows;
}

template <class R> void widen(const SessionReader& reader, TimeSpan& span)
{
    const auto range = reader.timeRange<R>();
    if (!range)
        return;
    span.begin = span.valid ? std::min(span.begin, range->first) : range->first;
    span.end = span.valid ? std::max(span.end, range->second) : range->second;
    span.valid = true;
}

} // namespace

SessionFileSource::SessionFileSource(const SessionReader& reader, Runs runs)
    : m_reader(reader)
{
    if (runs == Runs::Timing)
        m_runIds = timingRunIds(reader);
    // The reader's own table readers verify the stored checksums of these small tables.
    m_header.meta = reader.meta();
    m_header.strings = reader.readStrings();
    m_header.processes = reader.readProcesses();
    m_header.threads = reader.readThreads();
    m_header.devices = reader.readDevices();
    m_header.streams = readTable<StreamInfo>(reader);
    m_header.counterTracks = readTable<CounterTrack>(reader);
    m_header.eventOps = reader.readEventOps(); // small: event records and waits, for the dependency flows
    m_header.environment = reader.readEnvironment();
}

void SessionFileSource::forEachKernel(const std::function<void(const KernelRecord&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachSync(const std::function<void(const SyncRecord&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachWarpEvent(const std::function<void(const WarpEvent&)>& visit) const
{
    stream(visit);
}

void SessionFileSource::forEachCounterSample(const std::function<void(const CounterSample&)>& visit) const
{
    stream(visit);
}

SessionFileSource::SessionFileSource(const SessionFileSource& all, Runs runs)
    : m_reader(all.m_reader)
    , m_header(all.m_header)
    , m_runIds(runs == Runs::Timing ? timingRunIds(all.m_reader) : all.m_runIds)
{
}

SessionFileSource::SessionFileSource(
    const SessionFileSource& base, const SessionReader& reader, SessionReader::IdRange ids)
    : m_reader(reader)
    , m_header(base.m_header)
    , m_runIds(base.m_runIds)
    , m_ids(ids)
{
}

std::set<uint32_t> SessionFileSource::timingRunIds(const SessionReader& reader)
{
    std::set<uint32_t> timing;
    const std::vector<RunInfo> all = reader.readRuns();
    for (const RunInfo& run : all) {
        if (run.kind == "trace" || run.kind == "import")
            timing.insert(run.id);
    }
    // No trace run (a profile-only session), or nothing but: every row counts.
    if (timing.empty() || timing.size() == all.size())
        return {};
    return timing;
}

template <class R> void SessionFileSource::stream(const std::function<void(const R&)>& visit) const
{
    if (m_ids) {
        if constexpr (requires(const R& r) { r.id; }) {
            if constexpr (requires(const R& r) { r.runId; }) {
                if (!m_runIds.empty()) {
                    m_reader.forEachRow<R>(*m_ids, [&](const R& row) {
                        if (m_runIds.contains(row.runId))
                            visit(row);
                    });
                    return;
                }
            }
            m_reader.forEachRow<R>(*m_ids, visit);
            return;
        } else {
            throw std::logic_error("SessionFileSource: a slice by id of a table without ids");
        }
    }
    if (m_runIds.empty()) {
        m_reader.forEachRow<R>(visit);
        return;
    }
    if constexpr (requires(const R& r) { r.runId; }) {
        m_reader.forEachRow<R>([&](const R& row) {
            if (m_runIds.contains(row.runId))
                visit(row);
        });
    } else {
        m_reader.forEachRow<R>(visit); // counter samples: their track says the run
    }
}

TimeSpan SessionFileSource::timeSpan() const
{
    TimeSpan span;
    if (!m_runIds.empty()) {
        // Only some runs: their rows' extent, from a scan of each table.
        const auto add = [&span](TimeNs begin, TimeNs end) {
            span.begin = span.valid ? std::min(span.begin, begin) : begin;
            span.end = span.valid ? std::max(span.end, end) : end;
            span.valid = true;
        };
        stream<KernelRecord>([&](const KernelRecord& r) { add(r.start, r.end); });
        stream<MemcpyRecord>([&](const MemcpyRecord& r) { add(r.start, r.end); });
        stream<MemsetRecord>([&](const MemsetRecord& r) { add(r.start, r.end); });
        stream<ApiCallRecord>([&](const ApiCallRecord& r) { add(r.start, r.end); });
        stream<NvtxRangeRecord>([&](const NvtxRangeRecord& r) { add(r.start, r.end); });
        stream<NvtxMarkRecord>([&](const NvtxMarkRecord& r) { add(r.ts, r.ts); });
        stream<SyncRecord>([&](const SyncRecord& r) { add(r.start, r.end); });
        return span;
    }
    // min/max per table: one scan each inside SQLite, no row crosses into C++.
    widen<KernelRecord>(m_reader, span);
    widen<MemcpyRecord>(m_reader, span);
    widen<MemsetRecord>(m_reader, span);
    widen<ApiCallRecord>(m_reader, span);
    widen<NvtxRangeRecord>(m_reader, span);
    widen<NvtxMarkRecord>(m_reader, span);
    widen<SyncRecord>(m_reader, span);
    return span;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/analysis/sessionfilesource.h"

#include "core/store/sessionreader.h"

#include <algorithm>
#include <string>

namespace ws {

namespace {

template <class R> void streamTable(const SessionReader& reader, const std::function<void(const R&)>& visit)
{
    reader.forEachRow<R>(visit);
}

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

SessionFileSource::SessionFileSource(const SessionReader& reader)
    : m_reader(reader)
{
    // The reader's own table readers verify the stored checksums of these small tables.
    m_header.meta = reader.meta();
    m_header.strings = reader.readStrings();
    m_header.processes = reader.readProcesses();
    m_header.threads = reader.readThreads();
    m_header.devices = reader.readDevices();
    m_header.streams = readTable<StreamInfo>(reader);
    m_header.counterTracks = readTable<CounterTrack>(reader);
    m_header.environment = reader.readEnvironment();
}

void SessionFileSource::forEachKernel(const std::function<void(const KernelRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachSync(const std::function<void(const SyncRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachWarpEvent(const std::function<void(const WarpEvent&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachCounterSample(const std::function<void(const CounterSample&)>& visit) const
{
    streamTable(m_reader, visit);
}

TimeSpan SessionFileSource::timeSpan() const
{
    // min/max per table: one scan each inside SQLite, no row crosses into C++.
    TimeSpan span;
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

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ws {

// Interns strings so every name is stored once; id 0 is the empty string.
class StringTable {
public:
    StringTable()
    {
        m_strings.emplace_back();
        m_index.emplace(std::string(), 0);
    }

    StringId intern(std::string_view s)
    {
        auto it = m_index.find(std::string(s));
        if (it != m_index.end())
            return it->second;
        const auto id = static_cast<StringId>(m_strings.size());
        m_strings.emplace_back(s);
        m_index.emplace(m_strings.back(), id);
        return id;
    }
    const std::string& at(StringId id) const { return m_strings.at(id); }
    size_t size() const { return m_strings.size(); }
    const std::vector<std::string>& all() const { return m_strings; }
    // Replaces the table with one read from a file; ids keep their stored values.
    void assign(std::vector<std::string> strings);

private:
    std::vector<std::string> m_strings;
    std::unordered_map<std::string, StringId> m_index;
};

inline void StringTable::assign(std::vector<std::string> strings)
{
    m_strings = std::move(strings);
    if (m_strings.empty())
        m_strings.emplace_back();
    m_index.clear();
    m_index.reserve(m_strings.size());
    for (size_t i = 0; i < m_strings.size(); ++i)
        m_index.emplace(m_strings[i], static_cast<StringId>(i));
}

// A whole session in memory, table by table. Used by the recorder's ingest, importers, the
// synthetic generator and the analyses; the viewer's per-frame path uses TimelineModel instead.
struct SessionData {
    std::map<std::string, std::string> meta;        // besides schema_version, which the store owns
    std::map<std::string, std::string> environment; // host, driver, command line, env vars...
    StringTable strings;
    std::vector<ProcessInfo> processes;
    std::vector<ThreadInfo> threads;
    std::vector<DeviceInfo> devices;
    std::vector<StreamInfo> streams;
    std::vector<KernelRecord> kernels;
    std::vector<MemcpyRecord> memcpys;
    std::vector<MemsetRecord> memsets;
    std::vector<ApiCallRecord> apiCalls;
    std::vector<NvtxRangeRecord> nvtxRanges;
    std::vector<NvtxMarkRecord> nvtxMarks;
    std::vector<SyncRecord> syncs;
    std::vector<OverheadRecord> overheads;
    std::vector<EventOpRecord> eventOps; // event records, stream waits, event syncs (optional table event_op)
    std::vector<MetricDef> metricDefs;
    std::vector<KernelMetric> kernelMetrics;
    std::vector<CounterTrack> counterTracks;
    std::vector<CounterSample> counterSamples;
    std::vector<BenchRun> benchRuns;
    std::vector<BenchSample> benchSamples;
    std::vector<WarpEvent> warpEvents;
    std::vector<RunInfo> runs;           // schema v2; empty: the writer stores one inferred run
    std::vector<KernelLink> kernelLinks; // profiled launch -> traced launch (linkKernels)
    std::vector<SassFunction> sassFunctions;
    std::vector<SassInstruction> sassInstructions;
    std::vector<SourceCounter> sourceCounters;
    std::vector<SourceFile> sourceFiles;

    const std::string& str(StringId id) const { return strings.at(id); }
};

} // namespace ws

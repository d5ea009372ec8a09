// SPDX-License-Identifier: MIT
#include "core/store/sessionmerge.h"

#include "core/store/rowcodec.h"
#include "core/store/runinference.h"
#include "core/store/runrecipe.h"
#include "core/store/sessionerror.h"
#include "core/util/shellwords.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace ws {

namespace {

using store::Col;
using store::Ref;

template <class R, class F> int64_t maxOf(const std::vector<R>& rows, F&& id)
{
    int64_t m = 0;
    for (const R& r : rows)
        m = std::max<int64_t>(m, static_cast<int64_t>(id(r)));
    return m;
}

// How ids of the appended session move: filled from both sessions, applied to every column
// through its declared reference (Col::ref).
struct IdMap {
    std::vector<StringId> strings;
    std::map<int64_t, int64_t> pids;
    std::map<int64_t, int64_t> metrics;
    int64_t runOffset = 0;
    std::map<Ref, int64_t> offsets;                 // Kernel, CounterTrack, BenchRun, SassFunction, SourceFile, Event
    std::map<std::string_view, int64_t> ownOffsets; // Ref::Own: per table (memcpy, api_call, ...)

    int64_t map(Ref ref, std::string_view table, int64_t value) const
    {
        switch (ref) {
        case Ref::None:
            return value;
        case Ref::String:
            return value >= 0 && static_cast<size_t>(value) < strings.size() ? strings[static_cast<size_t>(value)] : 0;
        case Ref::Pid: {
            const auto it = pids.find(value);
            return it == pids.end() ? value : it->second;
        }
        case Ref::Metric: {
            const auto it = metrics.find(value);
            return it == metrics.end() ? value : it->second;
        }
        case Ref::Run:
            return value + runOffset;
        case Ref::Own: {
            const auto it = ownOffsets.find(table);
            return value + (it == ownOffsets.end() ? 0 : it->second);
        }
        default: {
            const auto it = offsets.find(ref);
            return value + (it == offsets.end() ? 0 : it->second);
        }
        }
    }
};

struct Remapper {
    const IdMap& ids;
    std::string_view table;
    void operator()(Col, std::string&) { }
    void operator()(Col, double&) { }
    void operator()(Col, store::Blob&) { }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(Col c, T& value)
    {
        if (c.ref != Ref::None)
            value = store::fromInt64<T>(ids.map(c.ref, table, store::toInt64(value)));
    }
};

template <class R> void append(std::vector<R>& into, const std::vector<R>& rows, const IdMap& ids)
{
    into.reserve(into.size() + rows.size());
    for (R row : rows) {
        Remapper remap {ids, store::Codec<R>::info.name};
        store::Codec<R>::fields(remap, row);
        into.push_back(std::move(row));
    }
}

std::string kernelName(const SessionData& d, const KernelRecord& k)
{
    for (const StringId id : {k.mangledName, k.demangledName, k.shortName}) {
        if (id != 0 && id < d.strings.size())
            return d.strings.at(id);
    }
    return {};
}

} // namespace

SessionData mergeSessions(SessionData base, const SessionData& more, std::vector<std::string>* warnings)
{
    if (base.runs.empty())
        base.runs.push_back(RunInfo {});
    std::vector<RunInfo> moreRuns = more.runs;
    if (moreRuns.empty())
        moreRuns.push_back(RunInfo {});

    IdMap ids;
    ids.runOffset = maxOf(base.runs, [](const RunInfo& r) { return r.id; });
    if (ids.runOffset + static_cast<int64_t>(moreRuns.size()) > (1 << 16))
        throw SessionError(SessionError::Kind::BadInput, "", "too many runs to merge (at most 65536)");

    ids.strings.resize(more.strings.size());
    for (size_t i = 0; i < more.strings.size(); ++i)
        ids.strings[i] = base.strings.intern(more.strings.at(static_cast<StringId>(i)));

    std::map<int64_t, uint32_t> runOfPid;
    for (const ProcessInfo& p : base.processes)
        runOfPid.emplace(p.pid, p.runId);
    for (const ProcessInfo& p : more.processes) {
        if (runOfPid.contains(p.pid))
            ids.pids[p.pid] = p.pid + (static_cast<int64_t>(p.runId + ids.runOffset) << 32);
    }
    // Devices are keyed (pid, id). A session without process rows (a benchmark result imported
    // with `bench --from-json`: every warpscope.bench call of one Python process has its pid) still
    // names a pid the base may hold already: it moves like a process's would, with its run.
    std::set<std::pair<int64_t, uint32_t>> baseDevices;
    for (const DeviceInfo& d : base.devices)
        baseDevices.emplace(d.pid, d.id);
    for (const DeviceInfo& d : more.devices) {
        if (!ids.pids.contains(d.pid) && baseDevices.contains({d.pid, d.id}))
            ids.pids[d.pid] = d.pid + (static_cast<int64_t>(moreRuns.front().id + ids.runOffset) << 32);
    }

    std::map<std::string, uint32_t> metricByName;
    uint32_t nextMetric = 1;
    for (const MetricDef& d : base.metricDefs) {
        metricByName.emplace(d.name, d.id);
        nextMetric = std::max(nextMetric, d.id + 1);
    }
    for (const MetricDef& d : more.metricDefs) {
        const auto it = metricByName.find(d.name);
        if (it != metricByName.end()) {
            ids.metrics[d.id] = it->second;
            continue;
        }
        ids.metrics[d.id] = nextMetric;
        MetricDef copy = d;
        copy.id = nextMetric++;
        metricByName.emplace(copy.name, copy.id);
        base.metricDefs.push_back(std::move(copy));
    }

    ids.offsets[Ref::Kernel] = maxOf(base.kernels, [](const KernelRecord& r) { return r.id; });
    ids.offsets[Ref::CounterTrack] = maxOf(base.counterTracks, [](const CounterTrack& r) { return r.id; });
    ids.offsets[Ref::BenchRun] = maxOf(base.benchRuns, [](const BenchRun& r) { return r.id; });
    ids.offsets[Ref::SassFunction] = maxOf(base.sassFunctions, [](const SassFunction& r) { return r.id; });
    ids.offsets[Ref::SourceFile] = maxOf(base.sourceFiles, [](const SourceFile& r) { return r.id; });
    const auto own = [&](const auto& rows) {
        using R = typename std::decay_t<decltype(rows)>::value_type;
        ids.ownOffsets[store::Codec<R>::info.name] = maxOf(rows, [](const R& r) { return r.id; });
    };
    own(base.memcpys);
    own(base.memsets);
    own(base.apiCalls);
    own(base.nvtxRanges);
    own(base.nvtxMarks);
    own(base.syncs);
    own(base.overheads);
    own(base.warpEvents);
    own(base.eventOps);

    append(base.runs, moreRuns, ids);
    append(base.processes, more.processes, ids);
    append(base.threads, more.threads, ids);
    append(base.devices, more.devices, ids);
    append(base.streams, more.streams, ids);
    append(base.kernels, more.kernels, ids);
    append(base.memcpys, more.memcpys, ids);
    append(base.memsets, more.memsets, ids);
    append(base.apiCalls, more.apiCalls, ids);
    append(base.nvtxRanges, more.nvtxRanges, ids);
    append(base.nvtxMarks, more.nvtxMarks, ids);
    append(base.syncs, more.syncs, ids);
    append(base.overheads, more.overheads, ids);
    {
        // An event_op row's anchor names a kernel, copy or memset by id (op_table says which):
        // one column, three tables, so it moves here rather than through a column's Ref.
        const size_t first = base.eventOps.size();
        append(base.eventOps, more.eventOps, ids);
        for (size_t i = first; i < base.eventOps.size(); ++i) {
            EventOpRecord& e = base.eventOps[i];
            if (e.opTable == 1)
                e.opId = ids.map(Ref::Kernel, "kernel", e.opId);
            else if (e.opTable == 2)
                e.opId = ids.map(Ref::Own, "memcpy", e.opId);
            else if (e.opTable == 3)
                e.opId = ids.map(Ref::Own, "memset", e.opId);
        }
    }
    append(base.kernelMetrics, more.kernelMetrics, ids);
    append(base.counterTracks, more.counterTracks, ids);
    append(base.counterSamples, more.counterSamples, ids);
    append(base.benchRuns, more.benchRuns, ids);
    append(base.benchSamples, more.benchSamples, ids);
    append(base.warpEvents, more.warpEvents, ids);
    append(base.sassFunctions, more.sassFunctions, ids);
    append(base.sassInstructions, more.sassInstructions, ids);
    append(base.sourceCounters, more.sourceCounters, ids);
    append(base.sourceFiles, more.sourceFiles, ids);
    linkKernels(base, warnings);
    return base;
}

std::string launchOrigin(const RunInfo& run)
{
    const auto options = store::fromJsonObject(run.optionsJson.empty() ? "{}" : run.optionsJson);
    if (!options)
        return {};
    if (run.kind == "trace") {
        // metakey::kRecordCaptureRange (core/metrics, a layer above the store).
        const auto it = options->find("record.capture_range");
        return it == options->end() || it->second == "none" ? std::string() : it->second;
    }
    if (const auto it = options->find(kCollectorArgumentsOption); it != options->end()) {
        if (const auto args = splitCommand(it->second)) {
            for (size_t i = 0; i < args->size(); ++i) {
                const std::string& a = (*args)[i];
                if (a == "--capture-range" && i + 1 < args->size())
                    return (*args)[i + 1];
                if (a.starts_with("--capture-range="))
                    return a.substr(16);
            }
        }
    }
    return {};
}

int64_t launchSkipOf(const RunInfo& run)
{
    const auto number = [](std::string_view text) -> std::optional<int64_t> {
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || value < 0)
            return std::nullopt;
        return value;
    };
    const auto options = store::fromJsonObject(run.optionsJson.empty() ? "{}" : run.optionsJson);
    if (!options)
        return 0;
    if (const auto it = options->find(kCollectorArgumentsOption); it != options->end()) {
        const auto args = splitCommand(it->second);
        if (args) {
            for (size_t i = 0; i < args->size(); ++i) {
                const std::string& a = (*args)[i];
                if (a == "--launch-skip" && i + 1 < args->size())
                    return number((*args)[i + 1]).value_or(0);
                if (a.starts_with("--launch-skip="))
                    return number(std::string_view(a).substr(14)).value_or(0);
            }
            return 0;
        }
    }
    // envkey::kProfileLaunchSkip (core/metrics, a layer above the store): the profile pipeline's
    // own record of the skip, found in the options of runs inferred from older files.
    if (const auto it = options->find("profile.launch_skip"); it != options->end())
        return number(it->second).value_or(0);
    return 0;
}

void linkKernels(SessionData& data, std::vector<std::string>* warnings)
{
    data.kernelLinks.clear();
    std::unordered_map<int64_t, std::string> processName;
    for (const ProcessInfo& p : data.processes)
        processName[p.pid] = p.name;

    // (run, process name, kernel name) -> launches in id (= launch) order.
    using Key = std::tuple<uint32_t, std::string, std::string>;
    std::map<Key, std::vector<int64_t>> launches;
    // (run, process name) -> names of the kernels launched there.
    std::map<std::pair<uint32_t, std::string>, std::set<std::string>> kernelsOfProcess;
    std::vector<const KernelRecord*> sorted;
    sorted.reserve(data.kernels.size());
    for (const KernelRecord& k : data.kernels)
        sorted.push_back(&k);
    std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
    for (const KernelRecord* k : sorted) {
        const std::string& process = processName[k->pid];
        std::string name = kernelName(data, *k);
        kernelsOfProcess[{k->runId, process}].insert(name);
        launches[{k->runId, process, std::move(name)}].push_back(k->id);
    }

    // Runs that measured launches: profile and PC-sampling runs, and imports with metrics (ncu).
    std::set<uint32_t> measuring;
    for (const KernelMetric& m : data.kernelMetrics)
        measuring.insert(m.runId);
    for (const RunInfo& r : data.runs) {
        if (r.kind == "profile" || r.kind == "pc-sampling")
            measuring.insert(r.id);
    }
    for (const RunInfo& profiled : data.runs) {
        if (!measuring.contains(profiled.id))
            continue;
        // The profiler skipped K matching launches per process before profiling: the first
        // profiled launch of a kernel is its K-th, but only if the filter matched that kernel
        // alone in the process (else the skip was shared among several kernels).
        const int64_t skip = profiled.kind == "import" ? 0 : launchSkipOf(profiled);
        if (skip > 0) {
            const auto several = std::find_if(kernelsOfProcess.begin(), kernelsOfProcess.end(),
                [&](const auto& entry) { return entry.first.first == profiled.id && entry.second.size() > 1; });
            if (several != kernelsOfProcess.end()) {
                const std::string& ambiguous = several->first.second;
                if (warnings)
                    warnings->push_back("run " + std::to_string(profiled.id) + " (" + profiled.kind
                        + ") was made with --launch-skip " + std::to_string(skip) + " and profiled several kernels in "
                        + (ambiguous.empty() ? std::string("one process") : "process " + ambiguous)
                        + ": which traced launches it measured is ambiguous, so none of its launches is linked");
                continue;
            }
        }
        for (const auto& [key, ids] : launches) {
            if (std::get<0>(key) != profiled.id)
                continue;
            for (const RunInfo& traced : data.runs) {
                if ((traced.kind != "trace" && traced.kind != "import") || measuring.contains(traced.id))
                    continue;
                const auto it = launches.find({traced.id, std::get<1>(key), std::get<2>(key)});
                if (it == launches.end())
                    continue;
                // Ordinals count from where each run started counting: unless both started at the
                // same place, the n-th launch of one is not the n-th of the other.
                if (const std::string from = launchOrigin(profiled), to = launchOrigin(traced); from != to) {
                    const auto origin = [](const std::string& o) {
                        return o.empty()             ? std::string("the program's start")
                            : o == "cudaProfilerApi" ? std::string("cudaProfilerStart")
                                                     : "the NVTX range '" + o.substr(o.find(':') + 1) + "'";
                    };
                    const std::string why = "run " + std::to_string(profiled.id) + " (" + profiled.kind
                        + ") counted launches from " + origin(from) + ", run " + std::to_string(traced.id) + " ("
                        + traced.kind + ") from " + origin(to)
                        + ": their launches cannot be matched, so none is linked";
                    if (warnings && std::find(warnings->begin(), warnings->end(), why) == warnings->end())
                        warnings->push_back(why); // once, not per kernel
                    break;
                }
                const size_t first = static_cast<size_t>(skip);
                for (size_t i = 0; i < ids.size() && first + i < it->second.size(); ++i)
                    data.kernelLinks.push_back({ids[i], it->second[first + i]});
                break;
            }
        }
    }
    std::sort(data.kernelLinks.begin(), data.kernelLinks.end(),
        [](const KernelLink& a, const KernelLink& b) { return a.kernelId < b.kernelId; });
}

} // namespace ws

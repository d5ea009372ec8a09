// SPDX-License-Identifier: MIT
#include "core/metrics/profileingest.h"

#include "core/util/titlewords.h"

#include "core/metrics/metricnames.h"
#include "core/metrics/sessionmeta.h"
#include "core/occupancy/occupancycalculator.h"
#include "core/util/demangle.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <map>
#include <optional>

namespace ws {

namespace {

constexpr const char* kExtraSection = "CommandLine";

struct LaunchRef {
    const ProfileResult* result;
    const ProfiledLaunch* launch;
};

const DeviceInfo* deviceOf(const ProfileResult& r, uint32_t id)
{
    for (const auto& d : r.devices) {
        if (d.id == id)
            return &d;
    }
    return nullptr;
}

// The launch metrics for one launch, by ncu name.
std::map<std::string, double> launchMetrics(const ProfiledLaunch& l, const DeviceInfo* dev)
{
    std::map<std::string, double> m;
    const int64_t grid = static_cast<int64_t>(l.gridX) * l.gridY * l.gridZ;
    const int64_t block = static_cast<int64_t>(l.blockX) * l.blockY * l.blockZ;
    m[metric::kGridSize] = static_cast<double>(grid);
    m[metric::kBlockSize] = static_cast<double>(block);
    m[metric::kThreadCount] = static_cast<double>(grid * block);
    m[metric::kClusterSize] = l.clusterX > 0 ? static_cast<double>(l.clusterX) * l.clusterY * l.clusterZ : 0.0;
    m[metric::kRegistersPerThread] = l.registersPerThread;
    m[metric::kSharedMemPerBlockStatic] = l.staticSmemBytes;
    m[metric::kSharedMemPerBlockDynamic] = l.dynamicSmemBytes;
    if (!dev)
        return m;
    m[metric::kSmCount] = dev->smCount;
    ArchitectureLimits limits;
    if (!ArchitectureLimits::forDevice(*dev, limits))
        return m;
    m[metric::kSharedMemPerBlockDriver] = static_cast<double>(limits.smemReservedPerBlock);
    OccupancyInput in;
    in.blockSize = static_cast<int>(block);
    in.registersPerThread = l.registersPerThread;
    in.staticSmemBytes = l.staticSmemBytes;
    in.dynamicSmemBytes = l.dynamicSmemBytes;
    in.maxDynamicSmemBytes = l.maxDynamicSmemBytes;
    in.carveoutPercent = l.carveoutPercent;
    const auto occ = OccupancyCalculator(limits).compute(in);
    auto limit = [&](const char* name, int v) {
        if (v != INT_MAX)
            m[name] = v;
    };
    limit(metric::kOccupancyLimitRegisters, occ.limitRegisters);
    limit(metric::kOccupancyLimitSharedMem, occ.limitSharedMem);
    limit(metric::kOccupancyLimitWarps, occ.limitWarps);
    limit(metric::kOccupancyLimitBlocks, occ.limitBlocks);
    // ncu reports the registers the hardware allocates (at least 16 per thread).
    if (occ.allocatedRegsPerThread > 0)
        m[metric::kRegistersPerThread] = occ.allocatedRegsPerThread;
    if (occ.blocksPerSm > 0) {
        m[metric::kSharedMemConfigSize] = static_cast<double>(occ.smemConfigBytes);
        m[metric::kWavesPerSm] = OccupancyCalculator::waves(grid, occ.blocksPerSm, dev->smCount);
    }
    m[metric::kTheoreticalOccupancy] = occ.occupancyPct;
    m[metric::kTheoreticalWarpsPerSm] = occ.activeWarpsPerSm;
    m[metric::kSchedulerTheoreticalWarps]
        = static_cast<double>(occ.activeWarpsPerSm) / std::max(1, limits.subPartitions);
    return m;
}

} // namespace

ProfileIngest::ProfileIngest(const SectionCatalog& catalog, MetricRequest request)
    : m_catalog(catalog)
    , m_request(std::move(request))
{
}

std::string ProfileIngest::displayUnit(const std::string& metricName, const std::string& cuptiUnit)
{
    const bool pct = metricName.find(".pct") != std::string::npos
        || (metricName.size() > 4 && metricName.compare(metricName.size() - 4, 4, "_pct") == 0);
    if (pct || cuptiUnit == "percent")
        return "%";
    return cuptiUnit;
}

std::string ProfileIngest::breakdownLabel(const std::string& metricName)
{
    const size_t sep = metricName.find("__");
    if (sep == std::string::npos)
        return metricName;
    const std::string unit = metricName.substr(0, sep);
    const size_t dot = metricName.find('.', sep);
    const std::string counter
        = metricName.substr(sep + 2, dot == std::string::npos ? std::string::npos : dot - sep - 2);
    static const std::map<std::string, std::string> units = {{"sm", "SM"}, {"smsp", "SMSP"}, {"l1tex", "L1"},
        {"lts", "L2"}, {"dram", "DRAM"}, {"fbpa", "DRAM"}, {"idc", "IDC"}, {"gpc", "GPC"}, {"gpu", "GPU"}};
    const auto it = units.find(unit);
    return (it != units.end() ? it->second : unit) + ": " + titleWords(counter);
}

SessionData ProfileIngest::build(const std::vector<ProfileResult>& results, const ProcessExit& root) const
{
    SessionData s;
    s.meta[metakey::kSessionKind] = metakey::kSessionKindProfile;
    s.meta[metakey::kProfileRangeMode] = "auto range (one range per kernel launch)";
    s.meta[metakey::kProfileReplayMode] = "kernel replay";
    s.meta[metakey::kKernelTimeSource]
        = "profile run without activity tracing: start = host CLOCK_MONOTONIC at the launch call, "
          "end = start + gpu__time_duration.sum";
    std::string sections;
    for (const auto& id : m_request.sectionIds)
        sections += (sections.empty() ? "" : ",") + id;
    s.meta[metakey::kProfileSections] = sections;

    // metric_def: one per name across processes, in order of first appearance.
    std::map<std::string, uint32_t> idOf;
    auto define = [&](const std::string& name, const std::string& unit, const std::string& section,
                      const std::string& description) {
        if (auto it = idOf.find(name); it != idOf.end())
            return it->second;
        MetricDef d;
        d.id = static_cast<uint32_t>(s.metricDefs.size() + 1);
        d.name = name;
        d.unit = unit;
        d.section = section;
        d.description = description;
        s.metricDefs.push_back(d);
        idOf.emplace(name, d.id);
        return d.id;
    };
    auto placeCounter = [&](const ProfiledMetric& m) {
        std::string unit = displayUnit(m.name, m.unit);
        if (!m.breakdownOf.empty()) {
            std::string section = kExtraSection;
            for (const auto& sec : m_catalog.sections()) {
                for (const auto& g : sec.groups) {
                    for (const auto& i : g.items) {
                        if (i.kind == SectionItem::Kind::Breakdown && i.name == m.breakdownOf)
                            section = sec.id;
                    }
                }
                if (section != kExtraSection)
                    break;
            }
            return define(m.name, unit, section, breakdownLabel(m.name));
        }
        if (const auto p = m_catalog.placement(m.name)) {
            if (!p->item->unit.empty())
                unit = p->item->unit;
            return define(m.name, unit, p->section->id, p->item->label);
        }
        return define(m.name, unit, kExtraSection, m.description);
    };

    // Launches of all processes, by host launch time.
    std::vector<LaunchRef> launches;
    for (const auto& r : results)
        for (const auto& l : r.launches)
            launches.push_back({&r, &l});
    std::stable_sort(launches.begin(), launches.end(),
        [](const LaunchRef& a, const LaunchRef& b) { return a.launch->hostStartNs < b.launch->hostStartNs; });

    // Counters first (in each process's order), so ids follow collection order.
    std::map<const ProfileResult*, std::vector<uint32_t>> counterIds;
    for (const auto& r : results) {
        auto& ids = counterIds[&r];
        for (const auto& m : r.metrics)
            ids.push_back(placeCounter(m));
    }
    for (const auto& item : m_request.launchMetrics) {
        const auto p = m_catalog.placement(item.name);
        define(item.name, item.unit, p ? p->section->id : kExtraSection, item.label);
    }
    for (const auto& item : m_request.derivedMetrics) {
        const auto p = m_catalog.placement(item.name);
        define(item.name, item.unit, p ? p->section->id : kExtraSection, item.label + " = " + item.expression.text());
    }

    int64_t kernelId = 0;
    uint32_t passesMax = 0;
    for (const auto& r : results) {
        if (auto it = r.info.find("passes"); it != r.info.end())
            passesMax
                = std::max<uint32_t>(passesMax, static_cast<uint32_t>(std::strtoul(it->second.c_str(), nullptr, 10)));
    }
    if (passesMax > 0)
        s.meta[metakey::kProfilePasses] = std::to_string(passesMax);
    // The cache state each replay pass started from (all: evicted L2, as ncu's default; none:
    // what the previous run left, with only the memory it changed restored, or, in results of
    // older profilers, whatever CUPTI's kernel replay left). Cache-sensitive metrics mean
    // different things.
    std::string replay;
    for (const auto& r : results) {
        if (auto it = r.info.find("cache_control"); it != r.info.end())
            s.meta[metakey::kProfileCacheControl] = it->second;
        if (auto it = r.info.find("replay"); it != r.info.end())
            replay = it->second;
    }
    // Replay experiments (issue 18) change what the cache-sensitive values mean: the session says
    // which ran. The profiler writes none_compare, none_dirty_passes and replay_overrides only for
    // an experiment, and eviction_mode always ("own" is the default).
    std::string experiment;
    for (const char* key : {"none_compare", "none_dirty_passes", "replay_overrides", "eviction_mode"})
        for (const auto& r : results)
            if (auto it = r.info.find(key); it != r.info.end() && !it->second.empty() && it->second != "own") {
                experiment += (experiment.empty() ? "" : "; ") + std::string(key) + "=" + it->second;
                break;
            }
    if (!experiment.empty())
        s.meta[metakey::kProfileReplayExperiment] = experiment;
    // The replay the profiler says it ran, not the one the cache control implies: from 2026-12-02
    // to 12-03 `all` ran none's changed-blocks replay (its results say so in `replay`).
    const bool changedBlocks = replay.find("changes restored") != std::string::npos;
    // `pass_start_dirty`: the profiler's own words for the dirty lines every pass starts with (the
    // `none` default from 2026-12-04); written only by profilers that do it.
    bool passStartDirty = false;
    for (const auto& r : results)
        passStartDirty = passStartDirty || r.info.count("pass_start_dirty");
    const bool afterFirst = replay.find("passes after the first back to back") != std::string::npos;
    if (changedBlocks && afterFirst && passStartDirty)
        s.meta[metakey::kProfileReplayMode] = metakey::kReplayModeChangedBlocksAfterFirstDirty;
    else if (changedBlocks && afterFirst)
        s.meta[metakey::kProfileReplayMode] = metakey::kReplayModeChangedBlocksAfterFirst;
    else if (changedBlocks)
        s.meta[metakey::kProfileReplayMode] = metakey::kReplayModeChangedBlocks;
    else if (auto it = s.meta.find(metakey::kProfileCacheControl); it != s.meta.end() && it->second == "all")
        s.meta[metakey::kProfileReplayMode] = metakey::kReplayModeRestoreEvict;

    for (const auto& ref : launches) {
        const auto& r = *ref.result;
        const auto& l = *ref.launch;
        KernelRecord k;
        k.id = ++kernelId;
        k.pid = r.pid;
        k.deviceId = l.deviceId;
        k.contextId = l.contextId;
        k.streamId = l.streamId;
        k.start = l.hostStartNs;
        k.mangledName = s.strings.intern(l.mangledName);
        k.demangledName = s.strings.intern(demangle(l.mangledName));
        k.shortName = s.strings.intern(shortName(l.mangledName));
        k.gridX = l.gridX, k.gridY = l.gridY, k.gridZ = l.gridZ;
        k.blockX = l.blockX, k.blockY = l.blockY, k.blockZ = l.blockZ;
        k.clusterX = l.clusterX, k.clusterY = l.clusterY, k.clusterZ = l.clusterZ;
        k.registersPerThread = l.registersPerThread;
        k.staticSmemBytes = l.staticSmemBytes;
        k.dynamicSmemBytes = l.dynamicSmemBytes;
        k.localMemPerThread = l.localMemPerThread;

        std::map<std::string, double> byName;
        const auto& ids = counterIds[&r];
        for (const auto& [idx, v] : l.values) {
            if (idx < r.metrics.size()) {
                byName[r.metrics[idx].name] = v;
                s.kernelMetrics.push_back({k.id, ids[idx], v});
            }
        }
        const auto launchValues = launchMetrics(l, deviceOf(r, l.deviceId));
        for (const auto& item : m_request.launchMetrics) {
            if (auto it = launchValues.find(item.name); it != launchValues.end()) {
                byName[item.name] = it->second;
                s.kernelMetrics.push_back({k.id, idOf.at(item.name), it->second});
            }
        }
        for (const auto& item : m_request.derivedMetrics) {
            const auto v = item.expression.evaluate([&](const std::string& n) -> std::optional<double> {
                auto it = byName.find(n);
                if (it == byName.end())
                    return std::nullopt;
                return it->second;
            });
            if (v) {
                byName[item.name] = *v;
                s.kernelMetrics.push_back({k.id, idOf.at(item.name), *v});
            }
        }
        const auto dur = byName.find(metric::kDuration);
        k.end = dur != byName.end() ? k.start + static_cast<TimeNs>(std::llround(dur->second)) : k.start;
        s.kernels.push_back(k);
    }

    for (const auto& r : results) {
        ProcessInfo p;
        p.pid = r.pid;
        p.name = r.processName;
        if (r.pid == root.pid) {
            p.commandLine = root.commandLine;
            p.exitCode = root.exitCode;
            p.exitSignal = root.exitSignal;
        }
        if (auto it = r.info.find("anchor_realtime_ns"); it != r.info.end())
            p.anchorRealtimeNs = std::strtoll(it->second.c_str(), nullptr, 10);
        if (auto it = r.info.find("anchor_monotonic_ns"); it != r.info.end())
            p.anchorMonotonicNs = std::strtoll(it->second.c_str(), nullptr, 10);
        s.processes.push_back(p);
        for (auto d : r.devices) {
            d.pid = r.pid;
            s.devices.push_back(d);
        }
        for (const auto& [k, v] : r.info)
            s.environment["profile." + std::to_string(r.pid) + "." + k] = v;
        for (size_t i = 0; i < r.notes.size(); ++i)
            s.environment["profile." + std::to_string(r.pid) + ".note" + std::to_string(i)] = r.notes[i];
    }
    if (std::none_of(results.begin(), results.end(), [&](const ProfileResult& r) { return r.pid == root.pid; })
        && root.pid != 0) {
        ProcessInfo p;
        p.pid = root.pid;
        p.commandLine = root.commandLine;
        p.exitCode = root.exitCode;
        p.exitSignal = root.exitSignal;
        s.processes.push_back(p);
    }
    return s;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/compare/comparesession.h"

#include "core/model/launchindex.h"
#include "core/model/recordsource.h"
#include "core/store/sessionreader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

namespace ws::compare {

void CompareSession::indexDurations()
{
    keyDurations.assign(keys.size(), {});
    for (const auto& l : launches)
        keyDurations[l.key].push_back(static_cast<double>(l.duration()));
}

std::vector<size_t> CompareSession::launchesOf(uint32_t key) const
{
    std::vector<size_t> out;
    for (size_t i = 0; i < launches.size(); ++i) {
        if (launches[i].key == key)
            out.push_back(i);
    }
    return out;
}

int CompareSession::keyIndex(const KernelKey& key) const
{
    const auto it = std::find(keys.begin(), keys.end(), key);
    return it == keys.end() ? -1 : static_cast<int>(it - keys.begin());
}

std::string CompareSession::rangeName(const NvtxRangeRecord& r) const
{
    return data.str(r.name);
}

namespace {

// The NVTX ranges open on each launching thread at each launch time: one sweep per thread over
// its ranges and launches, both in time order, keeping the ranges still open.
void assignPaths(CompareSession& s, const std::vector<std::pair<int64_t, int64_t>>& launchThread)
{
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> rangesByThread;
    for (size_t i = 0; i < s.data.nvtxRanges.size(); ++i) {
        const auto& r = s.data.nvtxRanges[i];
        rangesByThread[{r.pid, r.tid}].push_back(static_cast<uint32_t>(i));
    }
    for (auto& [thread, ranges] : rangesByThread) {
        std::sort(ranges.begin(), ranges.end(), [&](uint32_t x, uint32_t y) {
            const auto& a = s.data.nvtxRanges[x];
            const auto& b = s.data.nvtxRanges[y];
            return std::tie(a.start, a.depth, a.id) < std::tie(b.start, b.depth, b.id);
        });
    }
    std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> launchesByThread;
    for (size_t i = 0; i < s.launches.size(); ++i) {
        if (launchThread[i].second != 0 || launchThread[i].first != 0)
            launchesByThread[launchThread[i]].push_back(i);
    }
    std::vector<std::vector<uint32_t>> paths(s.launches.size());
    for (auto& [thread, idx] : launchesByThread) {
        const auto it = rangesByThread.find(thread);
        if (it == rangesByThread.end())
            continue;
        const auto& ranges = it->second;
        std::sort(idx.begin(), idx.end(),
            [&](size_t x, size_t y) { return s.launches[x].launchTime < s.launches[y].launchTime; });
        std::vector<uint32_t> open;
        size_t next = 0;
        for (size_t li : idx) {
            const TimeNs t = s.launches[li].launchTime;
            while (next < ranges.size() && s.data.nvtxRanges[ranges[next]].start <= t)
                open.push_back(ranges[next++]);
            std::erase_if(open, [&](uint32_t r) { return s.data.nvtxRanges[r].end < t; });
            paths[li] = open; // already outermost first: opened in start order
        }
    }
    std::map<KernelKey, uint32_t> keyIndex;
    for (size_t i = 0; i < s.launches.size(); ++i) {
        auto& l = s.launches[i];
        std::string path;
        for (uint32_t r : paths[i]) {
            if (!path.empty())
                path += " / ";
            path += s.rangeName(s.data.nvtxRanges[r]);
        }
        l.firstRange = static_cast<uint32_t>(s.rangePath.size());
        l.rangeCount = static_cast<uint32_t>(paths[i].size());
        s.rangePath.insert(s.rangePath.end(), paths[i].begin(), paths[i].end());
        KernelKey key {std::move(path), std::string()};
        key.name = s.data.str(static_cast<StringId>(l.key)); // l.key holds the name's string id here
        const auto [it, inserted] = keyIndex.try_emplace(key, static_cast<uint32_t>(s.keys.size()));
        if (inserted)
            s.keys.push_back(key);
        l.key = it->second;
    }
}

} // namespace

CompareSession indexCompareSession(SessionData data, const std::string& path)
{
    CompareSession s;
    s.path = path;
    s.label = std::filesystem::path(path).filename().string();
    s.data = std::move(data);
    if (!s.data.benchRuns.empty())
        s.bench = bench::benchResultFromSession(s.data, path);
    s.metrics = SessionMetrics::fromData(s.data);

    const MemoryRecordSource source(s.data);
    const LaunchIndex index(source);
    std::vector<size_t> order(s.data.kernels.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        const auto& a = s.data.kernels[x];
        const auto& b = s.data.kernels[y];
        return std::tie(a.start, a.id) < std::tie(b.start, b.id);
    });
    s.launches.reserve(order.size());
    std::vector<std::pair<int64_t, int64_t>> launchThread;
    launchThread.reserve(order.size());
    for (size_t i : order) {
        const auto& k = s.data.kernels[i];
        CompareLaunch l;
        l.id = k.id;
        l.start = k.start;
        l.end = k.end;
        l.launchTime = k.start;
        l.streamId = k.streamId;
        l.deviceId = k.deviceId;
        l.pid = k.pid;
        // Grouped like cuda_gpu_kern_sum: by demangled name, the mangled one when missing.
        l.key = k.demangledName ? k.demangledName : (k.shortName ? k.shortName : k.mangledName);
        std::pair<int64_t, int64_t> thread {0, 0};
        if (const auto* launch = index.find(k.pid, k.correlationId)) {
            l.launchTime = launch->start;
            thread = {launch->pid, launch->tid};
        }
        s.launches.push_back(l);
        launchThread.push_back(thread);
    }
    assignPaths(s, launchThread);
    s.indexDurations();
    return s;
}

bool hasPaths(const CompareSession& s)
{
    return std::any_of(s.keys.begin(), s.keys.end(), [](const KernelKey& k) { return !k.path.empty(); });
}

void dropPaths(CompareSession& s)
{
    std::map<std::string, uint32_t> byName;
    std::vector<KernelKey> keys;
    std::vector<uint32_t> remap(s.keys.size());
    for (size_t k = 0; k < s.keys.size(); ++k) {
        const auto [it, inserted] = byName.try_emplace(s.keys[k].name, static_cast<uint32_t>(keys.size()));
        if (inserted)
            keys.push_back({std::string(), s.keys[k].name});
        remap[k] = it->second;
    }
    for (auto& l : s.launches)
        l.key = remap[l.key];
    s.keys = std::move(keys);
    s.indexDurations();
}

std::string alignKeys(CompareSession& a, CompareSession& b)
{
    const bool pa = hasPaths(a);
    const bool pb = hasPaths(b);
    if (pa == pb)
        return {};
    dropPaths(pa ? a : b);
    return std::string(pa ? "B" : "A") + " has no NVTX paths: kernels are matched by name alone";
}

namespace {

template <class Rows> void keepRuns(Rows& rows, const std::vector<uint32_t>& timing)
{
    std::erase_if(
        rows, [&](const auto& r) { return std::find(timing.begin(), timing.end(), r.runId) == timing.end(); });
}

} // namespace

SessionData timingRuns(SessionData data)
{
    std::vector<uint32_t> timing;
    for (const RunInfo& r : data.runs) {
        if (r.kind == "trace" || r.kind == "import")
            timing.push_back(r.id);
    }
    if (timing.empty() || timing.size() == data.runs.size())
        return data;
    keepRuns(data.kernels, timing);
    keepRuns(data.memcpys, timing);
    keepRuns(data.memsets, timing);
    keepRuns(data.apiCalls, timing);
    keepRuns(data.nvtxRanges, timing);
    keepRuns(data.nvtxMarks, timing);
    keepRuns(data.syncs, timing);
    return data;
}

CompareSession loadCompareSession(const std::string& path)
{
    const SessionReader reader(path);
    return indexCompareSession(timingRuns(reader.readAll()), path);
}

} // namespace ws::compare

// SPDX-License-Identifier: MIT
#include "core/import/importfinish.h"

#include "core/store/sessionerror.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

namespace ws {

namespace {

// Records by start time, ids 1..n in that order. Importers mostly produce sorted or nearly
// sorted tables, so the common case is one pass; otherwise 16-byte keys are sorted, not records.
template <typename Record> void sortByStart(std::vector<Record>& rows)
{
    const bool sorted
        = std::is_sorted(rows.begin(), rows.end(), [](const Record& a, const Record& b) { return a.start < b.start; });
    if (!sorted) {
        std::vector<std::pair<TimeNs, uint32_t>> keys(rows.size());
        for (size_t i = 0; i < rows.size(); ++i)
            keys[i] = {rows[i].start, static_cast<uint32_t>(i)};
        std::sort(keys.begin(), keys.end()); // index breaks ties: stable
        std::vector<uint32_t> order(rows.size());
        for (size_t i = 0; i < keys.size(); ++i)
            order[i] = keys[i].second;
        keys = {};
        applyPermutation(rows, order);
    }
    int64_t id = 0;
    for (auto& r : rows)
        r.id = ++id;
}

void fillProcessesAndThreads(SessionData& data)
{
    std::set<int64_t> knownPids;
    for (const auto& p : data.processes)
        knownPids.insert(p.pid);
    std::set<std::pair<int64_t, int64_t>> knownThreads;
    for (const auto& t : data.threads)
        knownThreads.emplace(t.pid, t.tid);

    std::set<int64_t> pids;
    std::set<std::pair<int64_t, int64_t>> threads;
    // Consecutive rows are mostly on the same thread: skip the set lookup for repeats.
    const auto collect = [&threads](const auto& rows) {
        std::pair<int64_t, int64_t> last {0, 0};
        bool first = true;
        for (const auto& r : rows) {
            if (!first && r.pid == last.first && r.tid == last.second)
                continue;
            first = false;
            last = {r.pid, r.tid};
            threads.insert(last);
        }
    };
    collect(data.apiCalls);
    collect(data.nvtxRanges);
    collect(data.nvtxMarks);
    collect(data.overheads);
    for (const auto& t : threads)
        pids.insert(t.first);
    const auto collectPids = [&pids](const auto& rows) {
        int64_t last = 0;
        bool first = true;
        for (const auto& r : rows) {
            if (!first && r.pid == last)
                continue;
            first = false;
            last = r.pid;
            pids.insert(last);
        }
    };
    collectPids(data.kernels);
    collectPids(data.memcpys);
    collectPids(data.memsets);
    collectPids(data.syncs);

    for (int64_t pid : pids) {
        if (knownPids.insert(pid).second) {
            ProcessInfo p;
            p.pid = pid;
            data.processes.push_back(std::move(p));
        }
    }
    for (const auto& t : threads) {
        if (knownThreads.insert(t).second) {
            ThreadInfo info;
            info.pid = t.first;
            info.tid = t.second;
            data.threads.push_back(std::move(info));
        }
    }
    std::sort(data.processes.begin(), data.processes.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
    std::sort(data.threads.begin(), data.threads.end(),
        [](const auto& a, const auto& b) { return std::tie(a.pid, a.tid) < std::tie(b.pid, b.tid); });
}

void fillStreams(SessionData& data)
{
    using Key = std::tuple<int64_t, uint32_t, uint32_t>; // pid, device, stream
    std::set<Key> known;
    for (const auto& s : data.streams)
        known.emplace(s.pid, s.deviceId, s.streamId);
    auto add = [&](int64_t pid, uint32_t device, uint32_t context, uint32_t stream) {
        if (!known.emplace(pid, device, stream).second)
            return;
        StreamInfo s;
        s.pid = pid;
        s.deviceId = device;
        s.contextId = context;
        s.streamId = stream;
        data.streams.push_back(std::move(s));
    };
    for (const auto& r : data.kernels)
        add(r.pid, r.deviceId, r.contextId, r.streamId);
    for (const auto& r : data.memcpys)
        add(r.pid, r.deviceId, r.contextId, r.streamId);
    for (const auto& r : data.memsets)
        add(r.pid, r.deviceId, r.contextId, r.streamId);
    std::sort(data.streams.begin(), data.streams.end(), [](const auto& a, const auto& b) {
        return std::tie(a.pid, a.deviceId, a.streamId) < std::tie(b.pid, b.deviceId, b.streamId);
    });
}

} // namespace

void orderNvtxRanges(std::vector<NvtxRangeRecord>& ranges)
{
    const size_t n = ranges.size();
    if (n == 0)
        return;
    // 1. Indices per thread, in file order.
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> byThread;
    std::vector<uint32_t>* current = nullptr;
    std::pair<int64_t, int64_t> currentKey {0, 0};
    for (size_t i = 0; i < n; ++i) {
        const std::pair<int64_t, int64_t> key {ranges[i].pid, ranges[i].tid};
        if (!current || key != currentKey) {
            current = &byThread[key];
            currentKey = key;
        }
        current->push_back(static_cast<uint32_t>(i));
    }
    // 2. Per thread: order by (start, end descending, index), then depth with a stack of ends.
    const auto threadOrder = [&ranges](uint32_t ia, uint32_t ib) {
        const auto& a = ranges[ia];
        const auto& b = ranges[ib];
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end > b.end; // the enclosing range first
        return ia < ib;           // identical spans: the one recorded first encloses
    };
    std::vector<TimeNs> openEnds;
    std::vector<std::vector<uint32_t>*> lists;
    for (auto& [key, list] : byThread) {
        if (!std::is_sorted(list.begin(), list.end(), threadOrder))
            std::sort(list.begin(), list.end(), threadOrder);
        openEnds.clear();
        for (uint32_t i : list) {
            auto& r = ranges[i];
            while (!openEnds.empty() && openEnds.back() <= r.start)
                openEnds.pop_back();
            r.depth = static_cast<int32_t>(openEnds.size());
            openEnds.push_back(r.end);
        }
        lists.push_back(&list);
    }
    // 3. Merge the threads by (start, depth, index): each list is already in that order.
    std::vector<uint32_t> order;
    if (lists.size() == 1) {
        order = std::move(*lists.front());
    } else {
        order.reserve(n);
        using Head = std::tuple<TimeNs, int32_t, uint32_t, size_t, size_t>; // start, depth, index, list, pos
        std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
        for (size_t l = 0; l < lists.size(); ++l) {
            const uint32_t i = lists[l]->front();
            heads.emplace(ranges[i].start, ranges[i].depth, i, l, 0);
        }
        while (!heads.empty()) {
            auto [start, depth, index, l, pos] = heads.top();
            heads.pop();
            order.push_back(index);
            if (++pos < lists[l]->size()) {
                const uint32_t i = (*lists[l])[pos];
                heads.emplace(ranges[i].start, ranges[i].depth, i, l, pos);
            }
        }
    }
    byThread.clear();
    // Gathering into a second vector reads the (nearly ordered) source almost sequentially and
    // writes strictly sequentially: several times faster than permuting in place, for one extra
    // copy of the table at the peak.
    std::vector<NvtxRangeRecord> sorted;
    sorted.reserve(n);
    for (uint32_t i : order) {
        sorted.push_back(ranges[i]);
        sorted.back().id = static_cast<int64_t>(sorted.size());
    }
    order = {};
    ranges = std::move(sorted);
}

void finishImport(SessionData& data, ImportFormat format, const std::string& source)
{
    orderNvtxRanges(data.nvtxRanges);
    sortByStart(data.kernels);
    sortByStart(data.memcpys);
    sortByStart(data.memsets);
    sortByStart(data.apiCalls);
    sortByStart(data.syncs);
    sortByStart(data.overheads);
    std::stable_sort(
        data.nvtxMarks.begin(), data.nvtxMarks.end(), [](const auto& a, const auto& b) { return a.ts < b.ts; });
    int64_t id = 0;
    for (auto& m : data.nvtxMarks)
        m.id = ++id;
    std::stable_sort(data.counterSamples.begin(), data.counterSamples.end(),
        [](const auto& a, const auto& b) { return std::tie(a.trackId, a.ts) < std::tie(b.trackId, b.ts); });
    fillProcessesAndThreads(data);
    fillStreams(data);
    data.meta["import.format"] = importFormatName(format);
    data.meta["import.source"] = source;
}

std::string readWholeFile(const std::string& path, size_t maxBytes)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw SessionError(SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
    std::string content;
    char buffer[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
        content.append(buffer, n);
        if (content.size() > maxBytes) {
            std::fclose(f);
            throw SessionError(SessionError::Kind::BadInput, path,
                "file is larger than " + std::to_string(maxBytes >> 20) + " MiB, too large for this format");
        }
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed)
        throw SessionError(SessionError::Kind::NotFound, path, "read error");
    return content;
}

} // namespace ws

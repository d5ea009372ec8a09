// SPDX-License-Identifier: MIT
#include "core/import/importfinish.h"

#include "core/store/sessionerror.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <span>
#include <thread>
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

namespace {

// Runs job(0) .. job(parts - 1), parts - 1 of them on their own threads. An exception (out of
// memory on a big trace) is rethrown here, on the caller's thread, after every part ended.
void runParts(unsigned parts, const std::function<void(unsigned)>& job)
{
    std::vector<std::exception_ptr> errors(std::max(parts, 1u));
    const auto guarded = [&](unsigned p) {
        try {
            job(p);
        } catch (...) {
            errors[p] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(parts > 0 ? parts - 1 : 0);
    for (unsigned p = 1; p < parts; ++p)
        threads.emplace_back(guarded, p);
    guarded(0);
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors) {
        if (e)
            std::rethrow_exception(e);
    }
}

// The order ranges are numbered in: (start, depth, file index).
bool mergeBefore(const NvtxRangeRecord& a, uint32_t ia, const NvtxRangeRecord& b, uint32_t ib)
{
    return std::tie(a.start, a.depth, ia) < std::tie(b.start, b.depth, ib);
}

// Merges the given slices of the per-thread lists (each already in merge order) into `out`.
void mergeLists(
    const std::vector<NvtxRangeRecord>& ranges, std::vector<std::span<const uint32_t>> slices, uint32_t* out)
{
    std::erase_if(slices, [](const auto& s) { return s.empty(); });
    if (slices.size() == 1) {
        std::copy(slices.front().begin(), slices.front().end(), out);
        return;
    }
    // Heap of (list, position), smallest head on top.
    using Head = std::pair<uint32_t, uint32_t>;
    const auto after = [&](const Head& x, const Head& y) {
        const uint32_t ix = slices[x.first][x.second];
        const uint32_t iy = slices[y.first][y.second];
        return mergeBefore(ranges[iy], iy, ranges[ix], ix);
    };
    std::priority_queue<Head, std::vector<Head>, decltype(after)> heads(after);
    for (uint32_t l = 0; l < slices.size(); ++l)
        heads.emplace(l, 0);
    while (!heads.empty()) {
        auto [l, pos] = heads.top();
        heads.pop();
        *out++ = slices[l][pos];
        if (++pos < slices[l].size())
            heads.emplace(l, pos);
    }
}

} // namespace

unsigned defaultOrderParts(size_t ranges)
{
    // Below ~a quarter million ranges the threads cost more than they save.
    if (ranges < (size_t(1) << 18))
        return 1;
    return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

void orderNvtxRanges(std::vector<NvtxRangeRecord>& ranges)
{
    orderNvtxRanges(ranges, defaultOrderParts(ranges.size()));
}

void orderNvtxRanges(std::vector<NvtxRangeRecord>& ranges, unsigned parts)
{
    const size_t n = ranges.size();
    if (n == 0)
        return;
    parts = std::max(parts, 1u);
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
    std::vector<std::vector<uint32_t>*> lists;
    lists.reserve(byThread.size());
    for (auto& [key, list] : byThread)
        lists.push_back(&list);
    // 2. Per thread: order by (start, end descending, index), then depth with a stack of ends.
    //    Threads are independent: the lists are shared out over the parts, longest first.
    const auto threadOrder = [&ranges](uint32_t ia, uint32_t ib) {
        const auto& a = ranges[ia];
        const auto& b = ranges[ib];
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end > b.end; // the enclosing range first
        return ia < ib;           // identical spans: the one recorded first encloses
    };
    const unsigned listParts = std::min<unsigned>(parts, static_cast<unsigned>(lists.size()));
    std::vector<std::vector<std::vector<uint32_t>*>> share(listParts);
    {
        std::vector<size_t> load(listParts, 0);
        std::vector<std::vector<uint32_t>*> bySize = lists;
        std::stable_sort(
            bySize.begin(), bySize.end(), [](const auto* a, const auto* b) { return a->size() > b->size(); });
        for (auto* list : bySize) {
            const size_t p = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            share[p].push_back(list);
            load[p] += list->size();
        }
    }
    runParts(listParts, [&](unsigned p) {
        std::vector<TimeNs> openEnds;
        for (auto* list : share[p]) {
            if (!std::is_sorted(list->begin(), list->end(), threadOrder))
                std::sort(list->begin(), list->end(), threadOrder);
            openEnds.clear();
            for (uint32_t i : *list) {
                auto& r = ranges[i];
                while (!openEnds.empty() && openEnds.back() <= r.start)
                    openEnds.pop_back();
                r.depth = static_cast<int32_t>(openEnds.size());
                openEnds.push_back(r.end);
            }
        }
    });
    // 3. Merge the threads by (start, depth, index): each list is already in that order (a
    //    thread's list is sorted by start, and at one start the enclosing range, of lower depth,
    //    comes first). Split by start into pieces of about equal size, one per part: everything
    //    before a split time merges before everything after it, so the pieces merge and gather
    //    independently into their own stretch of the output.
    std::vector<TimeNs> splits; // piece p covers starts in [splits[p - 1], splits[p])
    if (parts > 1 && lists.size() > 1) {
        std::vector<TimeNs> sample;
        const size_t step = std::max<size_t>(n / 4096, 1);
        for (size_t i = 0; i < n; i += step)
            sample.push_back(ranges[i].start);
        std::sort(sample.begin(), sample.end());
        for (unsigned p = 1; p < parts; ++p) {
            const TimeNs t = sample[sample.size() * p / parts];
            if (splits.empty() || t > splits.back())
                splits.push_back(t);
        }
    }
    const size_t pieces = splits.size() + 1;
    // Per piece, per list: the slice of the list in that piece, and where the piece's output starts.
    std::vector<std::vector<std::span<const uint32_t>>> slices(pieces);
    std::vector<size_t> offset(pieces + 1, 0);
    for (auto* list : lists) {
        size_t from = 0;
        for (size_t p = 0; p < pieces; ++p) {
            size_t to = list->size();
            if (p < splits.size()) {
                const TimeNs t = splits[p];
                to = static_cast<size_t>(std::partition_point(list->begin() + static_cast<std::ptrdiff_t>(from),
                                             list->end(), [&](uint32_t i) { return ranges[i].start < t; })
                    - list->begin());
            }
            slices[p].emplace_back(list->data() + from, to - from);
            offset[p + 1] += to - from;
            from = to;
        }
    }
    for (size_t p = 0; p < pieces; ++p)
        offset[p + 1] += offset[p];
    std::vector<uint32_t> order(n);
    // Gathering into a second vector reads the (nearly ordered) source almost sequentially and
    // writes strictly sequentially: several times faster than permuting in place, for one extra
    // copy of the table at the peak.
    std::vector<NvtxRangeRecord> sorted(n);
    runParts(static_cast<unsigned>(pieces), [&](unsigned p) {
        mergeLists(ranges, slices[p], order.data() + offset[p]);
        for (size_t k = offset[p]; k < offset[p + 1]; ++k) {
            sorted[k] = ranges[order[k]];
            sorted[k].id = static_cast<int64_t>(k + 1);
        }
    });
    slices.clear();
    byThread.clear();
    order = {};
    ranges = std::move(sorted);
}

void finishImport(SessionData& data, ImportFormat format, const std::string& source, bool rangesStreamed)
{
    if (!rangesStreamed)
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
    if (rangesStreamed)
        data.nvtxRanges = {}; // their rows are written already; the caller must not write them twice
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

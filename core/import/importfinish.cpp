// SPDX-License-Identifier: MIT
#include "import/importfinish.h"

#include "store/sessionerror.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

namespace ws {

namespace {

template <typename Record> void sortByStart(std::vector<Record>& rows)
{
    std::stable_sort(rows.begin(), rows.end(), [](const Record& a, const Record& b) { return a.start < b.start; });
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
    for (const auto& r : data.apiCalls)
        threads.emplace(r.pid, r.tid);
    for (const auto& r : data.nvtxRanges)
        threads.emplace(r.pid, r.tid);
    for (const auto& r : data.nvtxMarks)
        threads.emplace(r.pid, r.tid);
    for (const auto& r : data.overheads)
        threads.emplace(r.pid, r.tid);
    for (const auto& t : threads)
        pids.insert(t.first);
    for (const auto& r : data.kernels)
        pids.insert(r.pid);
    for (const auto& r : data.memcpys)
        pids.insert(r.pid);
    for (const auto& r : data.memsets)
        pids.insert(r.pid);
    for (const auto& r : data.syncs)
        pids.insert(r.pid);

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

void assignNvtxDepths(std::vector<NvtxRangeRecord>& ranges)
{
    // Sort an index rather than the 72-byte records: cheaper with millions of ranges.
    std::vector<uint32_t> order(ranges.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t ia, uint32_t ib) {
        const auto& a = ranges[ia];
        const auto& b = ranges[ib];
        if (a.pid != b.pid)
            return a.pid < b.pid;
        if (a.tid != b.tid)
            return a.tid < b.tid;
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end > b.end; // the enclosing range first
        return ia < ib;           // identical spans: the one recorded first encloses
    });
    std::vector<TimeNs> openEnds;
    int64_t pid = 0, tid = 0;
    bool first = true;
    for (uint32_t i : order) {
        auto& r = ranges[i];
        if (first || r.pid != pid || r.tid != tid) {
            openEnds.clear();
            pid = r.pid;
            tid = r.tid;
            first = false;
        }
        while (!openEnds.empty() && openEnds.back() <= r.start)
            openEnds.pop_back();
        r.depth = static_cast<int32_t>(openEnds.size());
        openEnds.push_back(r.end);
    }
}

void finishImport(SessionData& data, ImportFormat format, const std::string& source)
{
    assignNvtxDepths(data.nvtxRanges);
    sortByStart(data.kernels);
    sortByStart(data.memcpys);
    sortByStart(data.memsets);
    sortByStart(data.apiCalls);
    // Ranges starting together: the outer one first, so ids follow nesting too.
    std::stable_sort(data.nvtxRanges.begin(), data.nvtxRanges.end(),
        [](const auto& a, const auto& b) { return a.start != b.start ? a.start < b.start : a.depth < b.depth; });
    for (size_t i = 0; i < data.nvtxRanges.size(); ++i)
        data.nvtxRanges[i].id = static_cast<int64_t>(i + 1);
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

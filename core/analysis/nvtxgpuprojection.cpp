// SPDX-License-Identifier: MIT
#include "core/analysis/nvtxgpuprojection.h"

#include "core/analysis/durationsummary.h"
#include "core/analysis/nsysreports.h"
#include "core/model/launchindex.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_set>

namespace ws {

namespace {

// One piece of GPU work with the API call that launched it.
struct Op {
    TimeNs apiStart = 0;
    TimeNs apiEnd = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    uint32_t correlationId = 0;
};

using ThreadKey = std::pair<int64_t, int64_t>; // (pid, tid)

} // namespace

std::vector<NvtxProjection> projectNvtxRanges(const RecordSource& source)
{
    const LaunchIndex launches(source);
    std::map<ThreadKey, std::vector<Op>> opsByThread;
    auto add = [&](int64_t pid, uint32_t correlationId, TimeNs start, TimeNs end) {
        const LaunchIndex::Launch* api = launches.find(pid, correlationId);
        if (!api)
            return;
        opsByThread[{pid, api->tid}].push_back({api->start, api->end, start, end, correlationId});
    };
    source.forEachKernel([&](const KernelRecord& k) { add(k.pid, k.correlationId, k.start, k.end); });
    source.forEachMemcpy([&](const MemcpyRecord& m) { add(m.pid, m.correlationId, m.start, m.end); });
    source.forEachMemset([&](const MemsetRecord& m) { add(m.pid, m.correlationId, m.start, m.end); });
    for (auto& [key, ops] : opsByThread)
        std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.apiStart < b.apiStart; });

    // Same-thread ranges, per thread in start order, for the projection and the child counts.
    std::map<ThreadKey, std::vector<NvtxRangeRecord>> rangesByThread;
    source.forEachNvtxRange([&](const NvtxRangeRecord& r) {
        if (r.endTid == 0 || r.endTid == r.tid)
            rangesByThread[{r.pid, r.tid}].push_back(r);
    });

    const StringTable& strings = source.header().strings;
    std::vector<NvtxProjection> out;
    std::unordered_set<uint32_t> distinct;
    for (auto& [key, ranges] : rangesByThread) {
        std::sort(ranges.begin(), ranges.end(), [](const NvtxRangeRecord& a, const NvtxRangeRecord& b) {
            return std::tie(a.start, a.depth, a.id) < std::tie(b.start, b.depth, b.id);
        });
        const auto opsIt = opsByThread.find(key);
        for (size_t i = 0; i < ranges.size(); ++i) {
            const NvtxRangeRecord& r = ranges[i];
            NvtxProjection p;
            p.name = nvtxRangeName(r.domain, r.name, strings);
            p.style = r.style;
            p.pid = r.pid;
            p.tid = r.tid;
            p.rangeStart = r.start;
            p.rangeEnd = r.end;
            p.level = r.depth;
            // Direct children: later ranges one level deeper that start inside this one.
            for (size_t j = i + 1; j < ranges.size() && ranges[j].start <= r.end; ++j) {
                if (ranges[j].depth == r.depth + 1 && ranges[j].end <= r.end)
                    ++p.children;
            }
            if (opsIt == opsByThread.end())
                continue;
            const std::vector<Op>& ops = opsIt->second;
            auto it = std::lower_bound(
                ops.begin(), ops.end(), r.start, [](const Op& o, TimeNs t) { return o.apiStart < t; });
            distinct.clear();
            bool any = false;
            for (; it != ops.end() && it->apiStart <= r.end; ++it) {
                if (it->apiEnd > r.end)
                    continue;
                if (!any) {
                    p.projectedStart = it->start;
                    p.projectedEnd = it->end;
                    any = true;
                } else {
                    p.projectedStart = std::min(p.projectedStart, it->start);
                    p.projectedEnd = std::max(p.projectedEnd, it->end);
                }
                distinct.insert(it->correlationId);
            }
            if (!any)
                continue;
            p.gpuOps = static_cast<int64_t>(distinct.size());
            out.push_back(std::move(p));
        }
    }
    std::sort(out.begin(), out.end(), [](const NvtxProjection& a, const NvtxProjection& b) {
        return std::tie(a.projectedStart, a.pid, a.tid, a.level) < std::tie(b.projectedStart, b.pid, b.tid, b.level);
    });
    return out;
}

ReportTable nvtxGpuProjSum(const RecordSource& source)
{
    ReportTable table {"nvtx_gpu_proj_sum", "NVTX GPU Projection Summary", {}, {}};
    auto col = [](std::string name, std::string unit, ColumnKind kind) {
        return ReportColumn {std::move(name), std::move(unit), kind};
    };
    table.columns = {
        col("Range", "", ColumnKind::Text),
        col("Style", "", ColumnKind::Text),
        col("Total Proj Time", "ns", ColumnKind::Duration),
        col("Total Range Time", "ns", ColumnKind::Duration),
        col("Range Instances", "", ColumnKind::Count),
        col("Proj Avg", "ns", ColumnKind::Duration),
        col("Proj Med", "ns", ColumnKind::Duration),
        col("Proj Min", "ns", ColumnKind::Duration),
        col("Proj Max", "ns", ColumnKind::Duration),
        col("Proj StdDev", "ns", ColumnKind::Duration),
        col("Total GPU Ops", "", ColumnKind::Count),
        col("Avg GPU Ops", "", ColumnKind::Count),
        col("Avg Range Lvl", "", ColumnKind::Count),
        col("Avg Num Child", "", ColumnKind::Count),
    };
    struct Group {
        std::vector<int64_t> projected;
        int64_t rangeTotal = 0;
        int64_t ops = 0;
        int64_t levels = 0;
        int64_t children = 0;
    };
    std::map<std::pair<std::string, int32_t>, Group> groups;
    for (const NvtxProjection& p : projectNvtxRanges(source)) {
        Group& g = groups[{p.name, static_cast<int32_t>(p.style)}];
        g.projected.push_back(p.projectedEnd - p.projectedStart);
        g.rangeTotal += p.rangeEnd - p.rangeStart;
        g.ops += p.gpuOps;
        g.levels += p.level;
        g.children += p.children;
    }
    struct Row {
        DurationSummary s;
        std::vector<ReportCell> cells;
    };
    std::vector<Row> rows;
    for (auto& [key, g] : groups) {
        Row row;
        row.s = summarizeDurations(g.projected);
        const int64_t n = row.s.count;
        // Averages of counts are rounded to 0.1, as nsys's round(avg(x), 1).
        auto avg = [&](int64_t sum) { return n > 0 ? roundedRatio(sum, n) : 0.0; };
        row.cells = {key.first, std::string(nvtxStyleName(static_cast<NvtxStyle>(key.second))), row.s.total,
            g.rangeTotal, n, row.s.avg, row.s.median, row.s.min, row.s.max, row.s.stdev, g.ops, avg(g.ops),
            avg(g.levels), avg(g.children)};
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.s.total > b.s.total; });
    for (auto& r : rows)
        table.rows.push_back(std::move(r.cells));
    return table;
}

} // namespace ws

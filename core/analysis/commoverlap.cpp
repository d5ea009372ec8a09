// SPDX-License-Identifier: MIT
#include "core/analysis/commoverlap.h"

#include "core/analysis/commkernels.h"
#include "core/model/commranks.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace ws {

std::vector<TimeInterval> intervalUnion(std::vector<TimeInterval> intervals)
{
    std::erase_if(intervals, [](const TimeInterval& i) { return i.second <= i.first; });
    std::sort(intervals.begin(), intervals.end());
    std::vector<TimeInterval> out;
    for (const TimeInterval& i : intervals) {
        if (!out.empty() && i.first <= out.back().second)
            out.back().second = std::max(out.back().second, i.second);
        else
            out.push_back(i);
    }
    return out;
}

TimeNs intervalLength(const std::vector<TimeInterval>& merged)
{
    TimeNs total = 0;
    for (const TimeInterval& i : merged)
        total += i.second - i.first;
    return total;
}

TimeNs intersectionLength(const std::vector<TimeInterval>& a, const std::vector<TimeInterval>& b)
{
    TimeNs total = 0;
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size()) {
        const TimeNs lo = std::max(a[i].first, b[j].first);
        const TimeNs hi = std::min(a[i].second, b[j].second);
        if (hi > lo)
            total += hi - lo;
        // The one that ends first cannot meet anything later in the other list.
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return total;
}

namespace {

struct Work {
    std::vector<TimeInterval> comm;
    std::vector<TimeInterval> compute;
};

CommOverlapRow summarize(uint32_t device, int64_t pid, const Work& w)
{
    CommOverlapRow r;
    r.deviceId = device;
    r.pid = pid;
    r.commOps = static_cast<int64_t>(w.comm.size());
    r.computeKernels = static_cast<int64_t>(w.compute.size());
    const auto comm = intervalUnion(w.comm);
    const auto compute = intervalUnion(w.compute);
    r.commNs = intervalLength(comm);
    r.computeNs = intervalLength(compute);
    r.overlapNs = intersectionLength(comm, compute);
    return r;
}

} // namespace

std::vector<CommOverlapRow> analyzeCommOverlap(const RecordSource& source)
{
    const StringTable& strings = source.header().strings;
    // Kernels of one name share their verdict: classify each (short, demangled, mangled) once.
    std::map<std::tuple<StringId, StringId, StringId>, bool> isComm;
    std::map<std::pair<uint32_t, int64_t>, Work> work; // (device, pid)
    source.forEachKernel([&](const KernelRecord& k) {
        const auto key = std::make_tuple(k.shortName, k.demangledName, k.mangledName);
        auto it = isComm.find(key);
        if (it == isComm.end())
            it = isComm.emplace(key, classifyKernel(k, strings) != CommKind::None).first;
        Work& w = work[{k.deviceId, k.pid}];
        (it->second ? w.comm : w.compute).emplace_back(k.start, k.end);
    });
    source.forEachMemcpy([&](const MemcpyRecord& m) {
        if (classifyCopy(m.copyKind) != CommKind::None)
            work[{m.deviceId, m.pid}].comm.emplace_back(m.start, m.end);
    });

    const auto ranks = processRanks(source.header().meta);
    std::vector<CommOverlapRow> out;
    for (auto it = work.begin(); it != work.end();) {
        const uint32_t device = it->first.first;
        auto last = it;
        Work all;
        size_t processes = 0;
        for (; last != work.end() && last->first.first == device; ++last) {
            all.comm.insert(all.comm.end(), last->second.comm.begin(), last->second.comm.end());
            all.compute.insert(all.compute.end(), last->second.compute.begin(), last->second.compute.end());
            ++processes;
        }
        if (processes > 1)
            out.push_back(summarize(device, -1, all));
        for (; it != last; ++it) {
            CommOverlapRow r = summarize(device, it->first.second, it->second);
            if (const auto rk = ranks.find(r.pid); rk != ranks.end())
                r.rank = rk->second.rank;
            out.push_back(r);
        }
    }
    return out;
}

ReportTable commOverlap(const RecordSource& source)
{
    ReportTable table {"comm_overlap", "Communication / Compute Overlap", {}, {}};
    table.columns = {
        {"DevId", "", ColumnKind::Id},
        {"PID", "", ColumnKind::Id},
        {"Rank", "", ColumnKind::Id},
        {"Comm Ops", "", ColumnKind::Count},
        {"Comm Time", "ns", ColumnKind::Duration},
        {"Compute Kernels", "", ColumnKind::Count},
        {"Compute Time", "ns", ColumnKind::Duration},
        {"Overlap Time", "ns", ColumnKind::Duration},
        {"Overlap", "%", ColumnKind::Percent},
        {"Exposed Comm", "ns", ColumnKind::Duration},
    };
    const auto idOrNull = [](int64_t v) { return v >= 0 ? ReportCell(v) : ReportCell(); };
    for (const CommOverlapRow& r : analyzeCommOverlap(source)) {
        const double pct = r.overlapPct();
        table.rows.push_back({static_cast<int64_t>(r.deviceId), idOrNull(r.pid), idOrNull(r.rank), r.commOps,
            static_cast<int64_t>(r.commNs), r.computeKernels, static_cast<int64_t>(r.computeNs),
            static_cast<int64_t>(r.overlapNs), pct >= 0 ? ReportCell(pct) : ReportCell(),
            static_cast<int64_t>(r.exposedCommNs())});
    }
    return table;
}

} // namespace ws

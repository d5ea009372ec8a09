// SPDX-License-Identifier: MIT
#include "core/ranking/kernelranking.h"

#include "core/analysis/durationsummary.h"

#include <algorithm>

namespace ws {

std::vector<KernelRank> rankKernels(const KernelLaunchTable& table, const TimeWindow& window)
{
    std::vector<std::vector<int64_t>> durations(table.groups().size());
    table.forEachIn(window, [&](const KernelLaunchTable::Launch& l) { durations[l.group].push_back(l.duration()); });

    std::vector<KernelRank> ranks;
    int64_t grandTotal = 0;
    for (size_t g = 0; g < durations.size(); ++g) {
        if (durations[g].empty())
            continue;
        const DurationSummary s = summarizeDurations(durations[g]);
        KernelRank r;
        r.group = static_cast<uint32_t>(g);
        r.calls = s.count;
        r.totalNs = s.total;
        r.avgNs = s.avg;
        r.medianNs = s.median;
        r.minNs = s.min;
        r.maxNs = s.max;
        r.stdevNs = s.stdev;
        grandTotal += s.total;
        ranks.push_back(r);
    }
    for (KernelRank& r : ranks)
        r.sharePct = grandTotal > 0 ? roundedPercent(r.totalNs, grandTotal) : 0.0;
    const auto& groups = table.groups();
    std::sort(ranks.begin(), ranks.end(), [&](const KernelRank& a, const KernelRank& b) {
        if (a.totalNs != b.totalNs)
            return a.totalNs > b.totalNs;
        if (a.calls != b.calls)
            return a.calls < b.calls;
        return groups[a.group].name < groups[b.group].name;
    });
    return ranks;
}

} // namespace ws

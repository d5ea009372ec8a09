// SPDX-License-Identifier: MIT
#include "core/iket/warprolesummary.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

namespace ws::iket {

bool isWaitName(std::string_view name)
{
    for (size_t i = 0; i + 4 <= name.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(name[i])) == 'w'
            && std::tolower(static_cast<unsigned char>(name[i + 1])) == 'a'
            && std::tolower(static_cast<unsigned char>(name[i + 2])) == 'i'
            && std::tolower(static_cast<unsigned char>(name[i + 3])) == 't')
            return true;
    }
    return false;
}

std::vector<RoleSummary> summarizeRoles(std::span<const WarpEvent> events, const StringTable& strings, int64_t kernelId)
{
    struct WarpSpan {
        TimeNs begin = INT64_MAX;
        TimeNs end = INT64_MIN;
    };
    struct Acc {
        RoleSummary summary;
        std::map<std::tuple<int32_t, int32_t>, WarpSpan> warps; // (block, warp)
        std::map<std::pair<StringId, WarpEventKind>, std::vector<double>> durations;
    };
    std::map<std::pair<int64_t, std::string>, Acc> acc; // (kernel, role name): sorted output
    for (const WarpEvent& e : events) {
        if (kernelId >= 0 && e.kernelId != kernelId)
            continue;
        Acc& a = acc[{e.kernelId, strings.at(e.role)}];
        a.summary.kernelId = e.kernelId;
        a.summary.role = e.role;
        WarpSpan& w = a.warps[{e.block, e.warp}];
        w.begin = std::min(w.begin, e.begin);
        w.end = std::max(w.end, e.end);
        if (e.kind == WarpEventKind::Mark) {
            ++a.summary.marks;
            continue;
        }
        const auto d = static_cast<double>(e.end - e.begin);
        a.durations[{e.name, e.kind}].push_back(d);
        if (e.kind == WarpEventKind::Range && e.depth == 0 && isWaitName(strings.at(e.name)))
            a.summary.waitingNs += d;
    }
    std::vector<RoleSummary> out;
    out.reserve(acc.size());
    for (auto& [key, a] : acc) {
        RoleSummary s = std::move(a.summary);
        s.warps = static_cast<int64_t>(a.warps.size());
        for (const auto& [k, w] : a.warps)
            s.activeNs += static_cast<double>(w.end - w.begin);
        for (auto& [phase, d] : a.durations) {
            std::sort(d.begin(), d.end());
            PhaseStats p;
            p.name = phase.first;
            p.kind = phase.second;
            p.count = static_cast<int64_t>(d.size());
            for (const double x : d)
                p.totalNs += x;
            p.meanNs = p.totalNs / static_cast<double>(d.size());
            const auto rank = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(d.size())));
            p.p95Ns = d[std::max<size_t>(rank, 1) - 1];
            s.phases.push_back(p);
        }
        std::stable_sort(s.phases.begin(), s.phases.end(),
            [](const PhaseStats& x, const PhaseStats& y) { return x.totalNs > y.totalNs; });
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace ws::iket

// SPDX-License-Identifier: MIT
#include "core/compare/iterations.h"

#include <algorithm>
#include <map>
#include <set>

namespace ws::compare {

namespace {

// Splits launches (indices in start order) at each launch of the most frequent key.
void splitByPeriodKernel(const CompareSession& s, const std::vector<size_t>& launches, Iterations& it)
{
    if (launches.empty())
        return;
    std::map<uint32_t, std::pair<size_t, size_t>> count; // key -> (launches, first position)
    for (size_t p = 0; p < launches.size(); ++p) {
        auto [slot, inserted] = count.try_emplace(s.launches[launches[p]].key, 0, p);
        ++slot->second.first;
    }
    uint32_t period = 0;
    size_t best = 0, bestFirst = 0;
    for (const auto& [key, c] : count) {
        if (c.first > best || (c.first == best && c.second < bestFirst)) {
            period = key;
            best = c.first;
            bestFirst = c.second;
        }
    }
    double sum = 0;
    bool started = false;
    for (size_t idx : launches) {
        const auto& l = s.launches[idx];
        if (l.key == period) {
            if (started)
                it.values.push_back(sum);
            started = true;
            sum = 0;
        }
        if (started)
            sum += static_cast<double>(l.duration());
    }
    if (started)
        it.values.push_back(sum);
    it.period = s.keys[period].name;
    it.basis += "iterations start at each launch of " + s.keys[period].name + " (" + std::to_string(best)
        + " launches, the most frequent kernel)";
}

} // namespace

Iterations findIterations(const CompareSession& s, const std::string& rangeName)
{
    Iterations it;
    it.origin = s.launches.empty() ? 0 : s.launches.front().start;
    if (!rangeName.empty()) {
        // Launches per instance of the range (a launch belongs to every range on its path).
        std::map<uint32_t, std::vector<size_t>> byInstance;
        for (size_t i = 0; i < s.launches.size(); ++i) {
            const auto& l = s.launches[i];
            for (uint32_t r = 0; r < l.rangeCount; ++r) {
                const uint32_t range = s.rangePath[l.firstRange + r];
                if (s.rangeName(s.data.nvtxRanges[range]) == rangeName)
                    byInstance[range].push_back(i);
            }
        }
        if (byInstance.empty()) {
            it.basis = "no instance of NVTX range '" + rangeName + "' launched kernels";
            return it;
        }
        it.rangeFound = true;
        TimeNs first = s.data.nvtxRanges[byInstance.begin()->first].start;
        for (const auto& [range, ls] : byInstance)
            first = std::min(first, s.data.nvtxRanges[range].start);
        it.origin = first;
        if (byInstance.size() >= 2) {
            std::vector<std::pair<TimeNs, double>> values;
            for (const auto& [range, ls] : byInstance) {
                double sum = 0;
                for (size_t i : ls)
                    sum += static_cast<double>(s.launches[i].duration());
                values.emplace_back(s.data.nvtxRanges[range].start, sum);
            }
            std::sort(values.begin(), values.end());
            for (const auto& v : values)
                it.values.push_back(v.second);
            it.basis = "each of the " + std::to_string(values.size()) + " instances of NVTX range '" + rangeName
                + "' is one iteration";
            return it;
        }
        it.basis = "inside NVTX range '" + rangeName + "': ";
        splitByPeriodKernel(s, byInstance.begin()->second, it);
        return it;
    }
    std::vector<size_t> all(s.launches.size());
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    splitByPeriodKernel(s, all, it);
    return it;
}

std::vector<std::string> rangesWithKernels(const CompareSession& s)
{
    std::map<std::string, std::set<uint32_t>> instances;
    for (const auto& l : s.launches) {
        for (uint32_t r = 0; r < l.rangeCount; ++r) {
            const uint32_t range = s.rangePath[l.firstRange + r];
            instances[s.rangeName(s.data.nvtxRanges[range])].insert(range);
        }
    }
    std::vector<std::pair<size_t, std::string>> order;
    order.reserve(instances.size());
    for (const auto& [name, set] : instances)
        order.emplace_back(set.size(), name);
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::vector<std::string> names;
    names.reserve(order.size());
    for (auto& o : order)
        names.push_back(std::move(o.second));
    return names;
}

} // namespace ws::compare

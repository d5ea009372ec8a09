// SPDX-License-Identifier: MIT
#include "core/ranking/launchidle.h"

namespace ws {

GpuIdleAnalysis analyzeGpuIdle(const KernelLaunchTable& launches,
    const std::map<uint32_t, std::vector<GpuWork>>& copies, std::vector<std::string> copyLabels, TimeNs minGapNs)
{
    // Kernels are labelled by group index; the copies' labels follow the groups'.
    std::vector<std::string> labels;
    labels.reserve(launches.groups().size() + copyLabels.size());
    for (const KernelGroup& g : launches.groups())
        labels.push_back(g.shortName);
    const auto shift = static_cast<uint32_t>(labels.size());
    for (std::string& l : copyLabels)
        labels.push_back(std::move(l));
    std::map<uint32_t, std::vector<GpuWork>> byDevice;
    for (const KernelLaunchTable::Launch& l : launches.launches())
        byDevice[l.deviceId].push_back({l.start, l.end, l.group});
    for (const auto& [device, work] : copies) {
        auto& into = byDevice[device];
        for (GpuWork w : work) {
            w.label += shift;
            into.push_back(w);
        }
    }
    return analyzeGpuWork(std::move(byDevice), labels, minGapNs);
}

} // namespace ws

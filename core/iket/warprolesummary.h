// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"

#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace ws::iket {

// Durations of one named phase (range) of one warp role.
struct PhaseStats {
    StringId name = 0;
    WarpEventKind kind = WarpEventKind::Range;
    int64_t count = 0;
    double meanNs = 0;
    double p95Ns = 0; // nearest rank: the ceil(0.95 n)-th smallest
    double totalNs = 0;
};

// One role of one kernel launch, over all its warps and blocks.
struct RoleSummary {
    int64_t kernelId = 0;
    StringId role = 0;
    int64_t warps = 0;
    int64_t marks = 0;
    double activeNs = 0;  // sum over the role's warps of (last event end - first event begin)
    double waitingNs = 0; // sum of the durations of the role's waiting ranges (depth 0 push/pop)
    double waitShare() const { return activeNs > 0 ? waitingNs / activeNs : 0; }
    std::vector<PhaseStats> phases; // by total time, longest first
};

// A waiting range: its name contains "wait" (wait_full, wait_for_data, barrier_wait...).
bool isWaitName(std::string_view name);

// Per (kernel, role) summaries, kernels in id order, roles by name. `kernelId` < 0: every kernel.
std::vector<RoleSummary> summarizeRoles(
    std::span<const WarpEvent> events, const StringTable& strings, int64_t kernelId = -1);

} // namespace ws::iket

// SPDX-License-Identifier: MIT
#pragma once

#include "core/iket/warprolesummary.h"
#include "core/timeline/laneprovider.h"

#include <vector>

namespace ws::iket {

// Warp-role lanes of in-kernel traces (appendWarpLanes) for TimelineModel::load and
// TimelineModel::fromSessionData, plus the per (kernel, role) summaries, attached to the model.
class WarpLaneProvider : public LaneProvider {
public:
    void appendLanes(TimelineModel& model, const SessionReader& reader) const override;
    void appendLanes(TimelineModel& model, const SessionData& data) const override;
};

// What WarpLaneProvider attaches to the model.
struct WarpRoleSummaries : LaneAttachment {
    std::vector<RoleSummary> roles;
};

// The warp-role summaries attached to `model`; empty when it was built without the provider
// or has no in-kernel trace.
const std::vector<RoleSummary>& warpRoles(const TimelineModel& model);

// The providers a viewer passes when it loads a model (today: warp roles).
LaneProviders laneProviders();

} // namespace ws::iket

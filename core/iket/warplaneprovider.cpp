// SPDX-License-Identifier: MIT
#include "core/iket/warplaneprovider.h"

#include "core/iket/warplanes.h"
#include "core/store/sessionreader.h"
#include "core/timeline/timelinemodel.h"

namespace ws::iket {

namespace {

void append(TimelineModel& model, std::span<const WarpEvent> events, const std::map<std::string, std::string>& meta)
{
    appendWarpLanes(
        model, events, droppedEventsByWarp(meta), unrecordedWarpsByKernel(meta)); // never cached: see warplanes.h
    if (events.empty())
        return;
    auto summaries = std::make_shared<WarpRoleSummaries>();
    summaries->roles = summarizeRoles(events, model.strings);
    model.attachments.push_back(std::move(summaries));
}

} // namespace

void WarpLaneProvider::appendLanes(TimelineModel& model, const SessionReader& reader) const
{
    append(model, reader.readWarpEvents(), reader.meta());
}

void WarpLaneProvider::appendLanes(TimelineModel& model, const SessionData& data) const
{
    append(model, data.warpEvents, data.meta);
}

const std::vector<RoleSummary>& warpRoles(const TimelineModel& model)
{
    static const std::vector<RoleSummary> none;
    for (const auto& a : model.attachments) {
        if (const auto* s = dynamic_cast<const WarpRoleSummaries*>(a.get()))
            return s->roles;
    }
    return none;
}

LaneProviders laneProviders()
{
    static const WarpLaneProvider warps;
    static const LaneProvider* const all[] = {&warps};
    return all;
}

} // namespace ws::iket

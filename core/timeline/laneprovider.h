// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"

#include <memory>
#include <span>

namespace ws {

class SessionReader;
struct TimelineModel;

// Something a lane provider computed beside its lanes (per-role summaries of in-kernel
// traces, say). TimelineModel keeps them opaque; the provider's layer reads them back with a
// dynamic_cast (see core/iket/warplaneprovider.h), so core/timeline never names their type.
struct LaneAttachment {
    virtual ~LaneAttachment() = default;
};

// Appends lanes of a kind that the six event tables do not hold (warp roles of in-kernel
// traces, ...) to a TimelineModel being loaded. core/timeline calls providers; the layers
// above implement them, so the timeline never depends on the collectors that produce the data.
// Both overloads must give the same lanes for the same session: the file and in-memory paths
// are compared by the tests. Lanes are appended before the model sorts its lanes and counts
// its events; strings are model.strings (the session's, then the lane labels).
class LaneProvider {
public:
    virtual ~LaneProvider() = default;
    virtual void appendLanes(TimelineModel& model, const SessionReader& reader) const = 0;
    virtual void appendLanes(TimelineModel& model, const SessionData& data) const = 0;
};

using LaneProviders = std::span<const LaneProvider* const>;

} // namespace ws

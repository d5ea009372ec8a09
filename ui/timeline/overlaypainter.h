// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/eventdetails.h"
#include "ui/session/selectionmodel.h"
#include "ui/timeline/timelinepaintcontext.h"

#include <functional>

class QPainter;

namespace ws {

// What is drawn over the rows: the range selection (the app-wide time filter), the hovered
// and selected events, the launch arrow from an API call to the GPU work it launched with the
// delay between them, and the "no GPU activity" notice.
class OverlayPainter {
public:
    // Widget rectangle of a lane's row (event area part), empty when not shown.
    using LaneRect = std::function<QRect(int lane)>;

    struct State {
        TimeRange range;
        QRect hover; // empty: nothing hovered
        EventSelection selected;
        const EventDetails* selectedDetails = nullptr;
    };

    void paint(QPainter& p, const TimelinePaintContext& c, const State& s, const LaneRect& laneRect) const;
    // The notices over the rows: where a killed or crashed process ended (paintProcessEnds),
    // then "no GPU activity" for sessions without it.
    void paintNoGpuNotice(QPainter& p, const TimelinePaintContext& c) const;
    // A dashed line where each process that was killed or exited non-zero ended, labelled with
    // how (processExitNote).
    void paintProcessEnds(QPainter& p, const TimelinePaintContext& c) const;

    // The widget rectangle of [start, end) on a lane's row, clamped just outside the view.
    static QRect eventRect(const TimelinePaintContext& c, const LaneRect& laneRect, int lane, TimeNs start, TimeNs end);

private:
    void paintLaunchArrow(QPainter& p, const TimelinePaintContext& c, const EventSelection& sel, const QRect& r,
        const EventDetails& d, const LaneRect& laneRect) const;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/timeline/timelinecoordinates.h"
#include "ui/session/sessionsnapshot.h"
#include "ui/style/colorscheme.h"
#include "ui/timeline/timelinerowmodel.h"

#include <QFont>
#include <QRect>

namespace ws {

// One row as the timeline lays it out. y is in layer coordinates: from the top of the pinned
// area (layer 0) or of the scrolling content (layer 1).
struct TimelineLayoutRow {
    TimelineRowModel::Row row;
    int y = 0;
    int h = 0;
    int layer = 1;
};

// What the painters need of the widget for one paint: its geometry, colours, font and view.
// Filled by TimelineView per paint; painters never reach back into the widget.
struct TimelinePaintContext {
    const SessionSnapshot* snapshot = nullptr;
    const ColorScheme* colors = nullptr;
    QFont font;
    TimelineCoordinates coords;
    int width = 0;  // the widget's
    int height = 0; // the widget's
    int rulerHeight = 0;
    int labelWidth = 0;
    int scrollbarWidth = 0;
    int scrollValue = 0; // the scrolling rows' offset
    int pinnedHeight = 0;
    QRect pinnedArea;
    QRect scrolledArea;
    QRect eventArea;
    // The mouse in widget coordinates; (-1, -1) when it is not over the view. Labels that would
    // cover events are drawn only while the pointer is near what they describe.
    QPoint pointer {-1, -1};

    // Widget y of a layer's y = 0.
    int layerTop(int layer) const { return layer == 0 ? rulerHeight : scrolledArea.top() - scrollValue; }
};

} // namespace ws

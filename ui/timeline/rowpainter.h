// SPDX-License-Identifier: MIT
#pragma once

#include "ui/timeline/timelineframe.h"
#include "ui/timeline/timelinepaintcontext.h"

#include <vector>

class QPainter;

namespace ws {

// The rows of one layer (pinned or scrolling): the built frame's rows written into place
// (drawn from its image, moved or stretched, while a frame for the current view is still being
// built), plain row backgrounds before the first frame exists, and the notes in expanded group
// headers.
class RowPainter {
public:
    // Backgrounds only: the first few ms after opening, before any frame (text is the
    // worker's job, so this stays cheap).
    void paintBackgrounds(QPainter& p, const TimelinePaintContext& c, const std::vector<TimelineLayoutRow>& rows,
        int layer, const QRect& area) const;
    // The layer's rows from the frame; true when they were written straight into the painter's
    // buffer (RasterBuffer) rather than drawn from the frame's image.
    bool paintFrame(
        QPainter& p, const TimelinePaintContext& c, const TimelineFrame& f, int layer, const QRect& area) const;
    // An expanded group's time area is empty: warp-role groups say there how much of their
    // time each role spent waiting (Row::note).
    void paintGroupNotes(QPainter& p, const TimelinePaintContext& c, const std::vector<TimelineLayoutRow>& rows,
        int layer, const QRect& area) const;
};

} // namespace ws

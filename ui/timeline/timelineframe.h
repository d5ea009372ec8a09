// SPDX-License-Identifier: MIT
#pragma once

#include "session/sessionsnapshot.h"
#include "timeline/lodcounter.h"
#include "timeline/lodfold.h"
#include "timeline/timelinecoordinates.h"
#include "util/cancellation.h"

#include <QRect>
#include <QRgb>

#include <memory>
#include <vector>

namespace ws {

// One row the frame builder is asked to draw. y is in layer coordinates: from the top of
// the pinned area (layer 0) or of the scrolling content (layer 1).
struct FrameRow {
    int lane = -1;    // a TimelineModel lane, or
    int counter = -1; // a counter series
    int y = 0;
    int height = 0;
    int layer = 1;
    bool gpu = false; // GPU rows get "idle" labels in long gaps
};

struct FrameRequest {
    std::shared_ptr<const SessionSnapshot> snapshot;
    TimelineCoordinates coords;
    std::vector<FrameRow> rows;
    quint64 generation = 0;
    CancellationToken cancel;
};

struct FrameLabel {
    QRect rect;
    StringId name = 0;
    quint32 count = 1; // > 1: a folded run
    QRgb text = 0;
};

struct FrameIdle {
    QRect rect;
    TimeNs gap = 0;
};

// What paintEvent replays: rectangles batched by colour (one fillRect run per colour, no
// pen or brush changes in between), hatch marks over folded runs, and text positions.
struct FrameLayer {
    std::vector<QRgb> colors;
    std::vector<std::vector<QRect>> rects; // rects[i] share colors[i]
    std::vector<QRect> folded;
    std::vector<FrameLabel> labels;
    std::vector<FrameIdle> idle;
};

// Per row, the draw list as built: hit testing and tooltips read it, so what the mouse finds
// is exactly what was painted.
struct FrameRowHits {
    FrameRow row;
    std::vector<LodRect> rects;
    std::vector<CounterColumn> columns;
};

struct TimelineFrame {
    quint64 generation = 0;
    TimelineCoordinates coords;
    std::shared_ptr<const SessionSnapshot> snapshot;
    FrameLayer layers[2];
    std::vector<FrameRowHits> rows;
    qint64 rectCount = 0;
    qint64 eventsCovered = 0;
    double buildMs = 0;
    int contentTop = 0; // layer-1 content range the frame covers
    int contentBottom = 0;
};

// Builds a frame; runs on a worker thread. Returns nullptr if cancelled midway.
std::shared_ptr<TimelineFrame> buildTimelineFrame(const FrameRequest& request);

// Minimum width (px) for a slice to get a label (Perfetto's rule).
inline constexpr int kMinLabelPx = 5;
// Gaps on GPU rows at least this wide (px) say how long the GPU was idle.
inline constexpr int kMinIdleLabelPx = 70;

} // namespace ws

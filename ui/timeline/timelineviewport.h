// SPDX-License-Identifier: MIT
#pragma once

#include "core/timeline/timelinecoordinates.h"
#include "ui/session/selectionmodel.h"

#include <optional>

namespace ws {

// The visible time range of the timeline: zoom around a point, pan, fit, and the undo/redo
// of views. The range itself lives in the shared SelectionModel (every panel follows it, and
// it keeps the Back/Forward history); this class turns user intent into clamped ranges.
// Pixel widths are passed in: the viewport knows time, the widget knows its geometry.
class TimelineViewport {
public:
    explicit TimelineViewport(SelectionModel* selection);

    // The session's time span: views are clamped to it; without one, views do not change.
    void setBounds(TimeNs begin, TimeNs end);
    void clearBounds() { m_hasBounds = false; }
    bool hasBounds() const { return m_hasBounds; }

    TimeRange viewRange() const { return m_selection->viewRange(); }
    // The view across `widthPx` pixels: the range fitted to the width, or, while the range is
    // the one a whole-pixel pan set, that pan's coordinates (the grid of the view it started
    // from, moved by whole pixels), so a frame can reuse the previous frame's columns.
    TimelineCoordinates coordinates(int widthPx) const;

    // Shows [begin, end), clamped to the session; `remember` adds the range left to the
    // history (explicit jumps: fit, zoom to selection), plain zooms and pans do not.
    void setView(TimeNs begin, TimeNs end, bool remember = false);
    // factor < 1 zooms in, keeping the time under pixel anchorX (of `widthPx`) in place;
    // anchorX outside [0, widthPx]: the middle.
    void zoomBy(double factor, double anchorX, int widthPx);
    void panBy(double fractionOfWidth);
    // Shows `c`, a pan of a view of `duration` ns from coordinates() (e.g. a drag from where it
    // started), and keeps its grid while the range stays the one it set.
    void showPanned(const TimelineCoordinates& c, TimeNs duration);
    void fitAll();
    // The range selection, or the selected event when there is no range.
    void fitSelection();
    // [start, end) with a tenth of margin each side.
    void fitSpan(TimeNs start, TimeNs end);
    // Centres [start, end), zooming in until it is ~2% of the view; never zooms out.
    void reveal(TimeNs start, TimeNs end);

    bool canUndo() const { return m_selection->canGoBack(); }
    bool canRedo() const { return m_selection->canGoForward(); }
    void undo() { m_selection->goBack(); }
    void redo() { m_selection->goForward(); }

private:
    SelectionModel* m_selection;
    // The last whole-pixel pan and the range it set (any other range change leaves it stale).
    struct Pan {
        TimelineCoordinates coords;
        TimeRange range;
    };
    std::optional<Pan> m_pan;
    TimeNs m_begin = 0;
    TimeNs m_end = 0;
    bool m_hasBounds = false;
};

} // namespace ws

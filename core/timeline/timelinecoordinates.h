// SPDX-License-Identifier: MIT
#pragma once

// Time <-> pixel maths of the timeline, in one place. The renderer, the LOD fold, hit testing
// and the tests all call these functions, so a rectangle on screen and the event found under
// the mouse agree to the pixel. Qt-free so core and its tests can use it.

#include "core/model/records.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace ws {

// Pixel columns [x0, x1) an event covers; x1 > x0 always (every event is at least 1 px wide).
struct PixelSpan {
    int64_t x0 = 0;
    int64_t x1 = 0;
    bool operator==(const PixelSpan&) const = default;
};

class TimelineCoordinates {
public:
    // Zooming deeper than this shows nothing new: timestamps are whole nanoseconds.
    static constexpr double kMinNsPerPx = 1.0 / 64.0;

    TimelineCoordinates() = default;
    TimelineCoordinates(TimeNs viewStart, double nsPerPx, int widthPx)
        : m_anchor(viewStart)
        , m_nsPerPx(std::max(nsPerPx, kMinNsPerPx))
        , m_width(std::max(widthPx, 1))
    {
    }

    // Shows [begin, end) across `widthPx` pixels.
    static TimelineCoordinates fit(TimeNs begin, TimeNs end, int widthPx)
    {
        const int w = std::max(widthPx, 1);
        const double span = static_cast<double>(std::max<TimeNs>(end - begin, 1));
        return TimelineCoordinates(begin, span / w, w);
    }

    // The view `offsetPx` whole pixels right of the one that starts at `anchor`: column(t) is
    // that view's column minus offsetPx, exactly. Pans keep the anchor and the scale, so a
    // pan of k pixels moves every column by exactly k and a frame can reuse the previous
    // frame's columns (a view started at the rounded nanosecond instead would move them by
    // k plus a fraction, differently for each event).
    static TimelineCoordinates anchored(TimeNs anchor, double nsPerPx, int widthPx, int64_t offsetPx)
    {
        TimelineCoordinates c(anchor, nsPerPx, widthPx);
        c.m_offset = offsetPx;
        return c;
    }
    // The same view panned by `dxPx` whole pixels (positive: later times), on the same grid.
    TimelineCoordinates shiftedByPixels(int64_t dxPx) const
    {
        return anchored(m_anchor, m_nsPerPx, m_width, m_offset + dxPx);
    }
    // How many whole pixels this view is panned from `from` when both lie on one grid (same
    // anchor, scale and width), so that column(t) == from.column(t) - shift for every t whose
    // columns neither view clamps; nothing otherwise.
    std::optional<int64_t> pixelShiftFrom(const TimelineCoordinates& from) const
    {
        if (from.m_anchor != m_anchor || from.m_nsPerPx != m_nsPerPx || from.m_width != m_width)
            return std::nullopt;
        return m_offset - from.m_offset;
    }

    // The first nanosecond of the view (its left edge, rounded on a grid with an offset).
    TimeNs viewStart() const
    {
        return m_offset == 0 ? m_anchor
                             : m_anchor + static_cast<TimeNs>(std::llround(static_cast<double>(m_offset) * m_nsPerPx));
    }
    TimeNs anchor() const { return m_anchor; }
    int64_t offsetPx() const { return m_offset; }
    double nsPerPx() const { return m_nsPerPx; }
    int width() const { return m_width; }
    TimeNs viewEnd() const { return viewStart() + static_cast<TimeNs>(std::ceil(m_nsPerPx * m_width)); }

    // Subtract in integers first: doubles hold the difference exactly where absolute
    // timestamps (~2^60 ns since boot) would lose the low bits.
    double timeToX(TimeNs t) const { return gridX(t) - static_cast<double>(m_offset); }
    TimeNs xToTime(double x) const
    {
        return m_anchor + static_cast<TimeNs>(std::llround((x + static_cast<double>(m_offset)) * m_nsPerPx));
    }

    // The pixel column a timestamp falls in, clamped just outside the viewport so far-away
    // events cannot overflow. Clamping keeps the function monotonic, which the LOD's binary
    // searches rely on. Rounded on the grid first, then moved by the whole-pixel offset: the
    // same for every view of one grid.
    int64_t column(TimeNs t) const { return clampColumn(std::floor(gridX(t)) - static_cast<double>(m_offset)); }

    PixelSpan span(TimeNs start, TimeNs end) const { return spanFrom(column(start), end); }
    // The same span when column(start) is known: x0.
    PixelSpan spanFrom(int64_t x0, TimeNs end) const
    {
        const int64_t x1 = std::max(x0 + 1, clampColumn(std::ceil(gridX(end)) - static_cast<double>(m_offset)));
        return {x0, x1};
    }

    bool visible(PixelSpan s) const { return s.x1 > 0 && s.x0 < m_width; }

    // Zoom by `factor` (< 1 zooms in) keeping the time under pixel `anchorX` where it is.
    TimelineCoordinates zoomedAround(double anchorX, double factor) const
    {
        const double anchorT = static_cast<double>(viewStart()) + anchorX * m_nsPerPx;
        const double ns = std::max(m_nsPerPx * factor, kMinNsPerPx);
        return TimelineCoordinates(static_cast<TimeNs>(std::llround(anchorT - anchorX * ns)), ns, m_width);
    }

    TimelineCoordinates pannedBy(double dxPx) const
    {
        return TimelineCoordinates(
            viewStart() + static_cast<TimeNs>(std::llround(dxPx * m_nsPerPx)), m_nsPerPx, m_width);
    }

    bool operator==(const TimelineCoordinates&) const = default;

private:
    // x on the grid: pixels right of the anchor.
    double gridX(TimeNs t) const { return static_cast<double>(t - m_anchor) / m_nsPerPx; }
    int64_t clampColumn(double x) const
    {
        // NaN cannot happen (nsPerPx > 0); infinities and huge values clamp.
        return static_cast<int64_t>(std::clamp(x, -1.0, static_cast<double>(m_width) + 1.0));
    }

    TimeNs m_anchor = 0; // the view's start when it has no offset
    double m_nsPerPx = 1.0;
    int m_width = 1;
    int64_t m_offset = 0; // whole pixels right of the anchor
};

// Keeps a view range inside the session (with a margin so the last event can be centred)
// and no narrower than `minSpan` nanoseconds.
struct TimeRangeClamp {
    static std::array<TimeNs, 2> apply(
        TimeNs begin, TimeNs end, TimeNs sessionBegin, TimeNs sessionEnd, TimeNs minSpan = 20)
    {
        const TimeNs session = std::max<TimeNs>(sessionEnd - sessionBegin, 1);
        const TimeNs margin = session / 10;
        const TimeNs lo = sessionBegin - margin;
        const TimeNs hi = sessionEnd + margin;
        TimeNs span = std::clamp<TimeNs>(end - begin, minSpan, hi - lo);
        begin = std::clamp<TimeNs>(begin, lo, hi - span);
        return {begin, begin + span};
    }
};

// Ruler ticks: the smallest 1-2-5 step (in ns) whose labels are at least `minPx` apart.
inline TimeNs niceTickStep(double nsPerPx, double minPx)
{
    const double wanted = std::max(nsPerPx * minPx, 1.0);
    TimeNs decade = 1;
    while (static_cast<double>(decade) * 10.0 <= wanted && decade < std::numeric_limits<TimeNs>::max() / 10)
        decade *= 10;
    for (const TimeNs m : {1, 2, 5, 10}) {
        if (static_cast<double>(decade * m) >= wanted)
            return decade * m;
    }
    return decade * 10;
}

// First tick at or after `t` for a step: ticks sit on multiples of the step from `origin`.
inline TimeNs firstTickAtOrAfter(TimeNs t, TimeNs origin, TimeNs step)
{
    const TimeNs rel = t - origin;
    TimeNs q = rel / step;
    if (q * step < rel)
        ++q;
    return origin + q * step;
}

} // namespace ws

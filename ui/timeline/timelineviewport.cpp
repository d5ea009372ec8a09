// SPDX-License-Identifier: MIT
#include "ui/timeline/timelineviewport.h"

#include <algorithm>
#include <cmath>

namespace ws {

TimelineViewport::TimelineViewport(SelectionModel* selection)
    : m_selection(selection)
{
}

void TimelineViewport::setBounds(TimeNs begin, TimeNs end)
{
    m_begin = begin;
    m_end = end;
    m_hasBounds = true;
}

TimelineCoordinates TimelineViewport::coordinates(int widthPx) const
{
    const TimeRange v = m_selection->viewRange();
    if (m_pan && m_pan->range == v && m_pan->coords.width() == std::max(widthPx, 1))
        return m_pan->coords;
    return TimelineCoordinates::fit(v.begin, v.end, widthPx);
}

void TimelineViewport::showPanned(const TimelineCoordinates& c, TimeNs duration)
{
    if (!m_hasBounds)
        return;
    // The range keeps the view's duration: the grid's scale is the one fit() gave that view.
    // Remembered before the range changes: the view asks for its coordinates on the signal.
    const TimeRange wanted {c.viewStart(), c.viewStart() + duration};
    m_pan = Pan {c, wanted};
    setView(wanted.begin, wanted.end);
    // Clamped at the session's edge: the range is not the pan's, and the view is fitted to it.
    if (m_selection->viewRange() != wanted)
        m_pan.reset();
}

void TimelineViewport::setView(TimeNs begin, TimeNs end, bool remember)
{
    if (!m_hasBounds)
        return;
    const auto r = TimeRangeClamp::apply(begin, end, m_begin, m_end);
    if (remember)
        m_selection->jumpToViewRange({r[0], r[1]});
    else
        m_selection->setViewRange({r[0], r[1]});
}

void TimelineViewport::zoomBy(double factor, double anchorX, int widthPx)
{
    const TimelineCoordinates c = coordinates(widthPx);
    if (anchorX < 0 || anchorX > c.width())
        anchorX = c.width() / 2.0;
    const TimelineCoordinates z = c.zoomedAround(anchorX, factor);
    setView(z.viewStart(), z.viewEnd());
}

void TimelineViewport::panBy(double fractionOfWidth)
{
    const TimeRange v = m_selection->viewRange();
    const auto d = static_cast<TimeNs>(std::llround(static_cast<double>(v.duration()) * fractionOfWidth));
    setView(v.begin + d, v.end + d);
}

void TimelineViewport::fitAll()
{
    if (m_hasBounds)
        setView(m_begin, m_end, true);
}

void TimelineViewport::fitSelection()
{
    const TimeRange r = m_selection->timeRange();
    if (!r.isEmpty()) {
        setView(r.begin, r.end, true);
        return;
    }
    const EventSelection e = m_selection->selectedEvent();
    if (e.isValid())
        fitSpan(e.start, e.end);
}

void TimelineViewport::fitSpan(TimeNs start, TimeNs end)
{
    // A tenth of margin each side, so the event's neighbours give context.
    const TimeNs d = std::max<TimeNs>(end - start, 10);
    setView(start - d / 10, end + d / 10, true);
}

void TimelineViewport::reveal(TimeNs start, TimeNs end)
{
    const TimeRange v = m_selection->viewRange();
    const TimeNs d = std::max<TimeNs>(end - start, 1);
    TimeNs span = v.duration();
    // Zoom in until the event is at least ~2% of the width; never zoom out.
    if (static_cast<double>(d) < static_cast<double>(span) / 50.0)
        span = std::max<TimeNs>(d * 50, 100);
    const TimeNs mid = start + d / 2;
    setView(mid - span / 2, mid - span / 2 + span, true);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/timeline/dependencypainter.h"

#include <QPainter>
#include <QPolygon>

#include <algorithm>
#include <cmath>

namespace ws {

namespace {

// The GPU op an event selection names, in the derivation's terms.
GpuOpRef opOf(const EventSelection& s)
{
    if (!s.isValid())
        return {};
    switch (s.ref.table()) {
    case EventTable::Kernel:
        return {GpuOpRef::Table::Kernel, s.ref.rowid()};
    case EventTable::Memcpy:
        return {GpuOpRef::Table::Memcpy, s.ref.rowid()};
    case EventTable::Memset:
        return {GpuOpRef::Table::Memset, s.ref.rowid()};
    default:
        return {};
    }
}

int xOf(const TimelinePaintContext& c, TimeNs t)
{
    // Clamped a little outside the view, so a far end keeps its direction without overflowing.
    const double x = std::clamp(c.coords.timeToX(t), -10000.0, c.coords.width() + 10000.0);
    return c.labelWidth + static_cast<int>(std::floor(x));
}

void diamond(QPainter& p, QPoint at, int r)
{
    const QPolygon shape({at + QPoint(0, -r), at + QPoint(r, 0), at + QPoint(0, r), at + QPoint(-r, 0)});
    p.drawPolygon(shape);
}

void arrowHead(QPainter& p, QPointF to, QPointF from, double size)
{
    const double angle = std::atan2(from.y() - to.y(), from.x() - to.x());
    QPolygonF head;
    head << to << to + QPointF(std::cos(angle + 0.45) * size, std::sin(angle + 0.45) * size)
         << to + QPointF(std::cos(angle - 0.45) * size, std::sin(angle - 0.45) * size);
    p.drawPolygon(head);
}

} // namespace

std::vector<DependencyPainter::Arrow> DependencyPainter::arrows(
    const TimelinePaintContext& c, const LaneRect& laneRect, const EventSelection& selected) const
{
    std::vector<Arrow> out;
    if (!c.snapshot || !c.snapshot->model || c.snapshot->dependencies.empty())
        return out;
    const TimeNs viewBegin = c.coords.viewStart();
    const TimeNs viewEnd = c.coords.viewEnd();
    const GpuOpRef selectedOp = opOf(selected);
    // (pid, stream) -> lane of its GPU stream row; built per paint (lanes are few next to events,
    // and a cache keyed by the snapshot's address could outlive the snapshot).
    std::map<std::pair<int64_t, uint32_t>, int> streamLanes;
    const auto& lanes = c.snapshot->model->lanes;
    for (size_t i = 0; i < lanes.size(); ++i)
        if (lanes[i].kind == LaneKind::GpuStream)
            streamLanes.emplace(std::make_pair(lanes[i].pid, lanes[i].streamId), static_cast<int>(i));
    const auto streamLane = [&](int64_t pid, uint32_t stream) {
        const auto it = streamLanes.find({pid, stream});
        return it == streamLanes.end() ? -1 : it->second;
    };
    for (const StreamDependency& d : c.snapshot->dependencies) {
        if (d.waitKind != EventOpKind::Wait)
            continue;
        // Nothing of it in view: skip before any lookup (sessions may hold many).
        const TimeNs first = std::min({d.recordTime, d.waitTime, d.producer.valid() ? d.producerStart : d.recordTime});
        const TimeNs last = std::max({d.recordTime, d.waitTime, d.consumer.valid() ? d.consumerStart : d.waitTime});
        if (last < viewBegin || first > viewEnd)
            continue;
        const int laneA = streamLane(d.pid, d.producerStream);
        const int laneB = streamLane(d.pid, d.consumerStream);
        const QRect rowA = laneA >= 0 ? laneRect(laneA) : QRect();
        const QRect rowB = laneB >= 0 ? laneRect(laneB) : QRect();
        if (rowA.isEmpty() || rowB.isEmpty())
            continue;
        Arrow a;
        a.dependency = &d;
        // Markers near the top of their rows, clear of the names drawn at the rows' middle.
        a.record = QPoint(xOf(c, d.recordTime), rowA.top() + 4);
        a.wait = QPoint(xOf(c, d.waitTime), rowB.top() + 4);
        a.hasConsumer = d.consumer.valid();
        if (a.hasConsumer)
            a.consumer = QPoint(xOf(c, d.consumerStart), rowB.top() + 4);
        if (d.producer.valid()) {
            const int x0 = xOf(c, d.producerStart);
            const int x1 = std::max(xOf(c, d.producerEnd), x0 + 1);
            a.producer = QRect(x0, rowA.top(), x1 - x0, rowA.height());
        }
        a.highlighted = selectedOp.valid() && selectedOp == d.consumer;
        out.push_back(a);
    }
    return out;
}

void DependencyPainter::paint(
    QPainter& p, const TimelinePaintContext& c, const LaneRect& laneRect, const EventSelection& selected) const
{
    const std::vector<Arrow> all = arrows(c, laneRect, selected);
    if (all.empty())
        return;
    const QColor ink = color();
    p.save();
    p.setClipRect(c.eventArea);
    // Markers and straight segments without antialiasing: exact pixels, cheap to draw.
    p.setRenderHint(QPainter::Antialiasing, false);
    for (const Arrow& a : all) {
        p.setPen(QPen(ink, 1));
        p.drawLine(a.record, a.wait);
        if (a.hasConsumer)
            p.drawLine(a.wait, a.consumer);
        p.setBrush(ink);
        diamond(p, a.record, 4);
        diamond(p, a.wait, 4);
        if (a.hasConsumer)
            arrowHead(p, a.consumer,
                a.wait.x() == a.consumer.x() ? QPointF(a.consumer.x() - 1, a.consumer.y()) : QPointF(a.wait), 7);
    }
    // What the selected op waited for: its producer outlined, a bold arrow from the producer's end.
    for (const Arrow& a : all) {
        if (!a.highlighted || a.producer.isEmpty())
            continue;
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(ink, 2));
        p.drawRect(a.producer.adjusted(1, 1, -1, -1));
        const QPoint from(a.producer.right(), a.producer.center().y());
        const QPoint to(a.consumer.x(), a.consumer.y() + 6);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(ink, 2));
        p.drawLine(from, to);
        p.setBrush(ink);
        arrowHead(p, to, from, 9);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    p.restore();
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/timeline/overlaypainter.h"

#include "ui/style/timeformat.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace ws {

QRect OverlayPainter::eventRect(
    const TimelinePaintContext& ctx, const LaneRect& laneRect, int lane, TimeNs start, TimeNs end)
{
    const QRect row = laneRect(lane);
    if (row.isEmpty())
        return {};
    const TimelineCoordinates& c = ctx.coords;
    const PixelSpan s = c.span(start, end);
    const int x0 = static_cast<int>(std::clamp<int64_t>(s.x0, -2, c.width() + 2));
    const int x1 = static_cast<int>(std::clamp<int64_t>(s.x1, -2, c.width() + 2));
    return QRect(ctx.labelWidth + x0, row.top(), std::max(x1 - x0, 1), row.height());
}

void OverlayPainter::paint(QPainter& p, const TimelinePaintContext& ctx, const State& s, const LaneRect& laneRect) const
{
    const TimelineCoordinates& c = ctx.coords;
    const ColorScheme& colors = *ctx.colors;
    const QRect area = ctx.eventArea;
    p.save();
    p.setClipRect(area);
    // Range selection: the app-wide time filter.
    if (!s.range.isEmpty()) {
        const int x0 = ctx.labelWidth + static_cast<int>(std::clamp(c.timeToX(s.range.begin), -2.0, c.width() + 2.0));
        const int x1 = ctx.labelWidth + static_cast<int>(std::clamp(c.timeToX(s.range.end), -2.0, c.width() + 2.0));
        p.fillRect(QRect(x0, area.top(), std::max(x1 - x0, 1), area.height()), colors.selectionFill);
        p.fillRect(QRect(x0, area.top(), 1, area.height()), colors.selectionEdge);
        p.fillRect(QRect(x1, area.top(), 1, area.height()), colors.selectionEdge);
    }
    // Hovered and selected events.
    if (!s.hover.isNull()) {
        p.setPen(QPen(colors.text, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(s.hover.adjusted(0, 1, -1, -2));
    }
    const EventSelection& sel = s.selected;
    if (sel.isValid() && ctx.snapshot && sel.lane < static_cast<int>(ctx.snapshot->model->lanes.size())) {
        const QRect r = eventRect(ctx, laneRect, sel.lane, sel.start, sel.end);
        if (!r.isEmpty()) {
            p.setPen(QPen(colors.highlight, 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(0, 1, 0, -1));
        }
        if (s.selectedDetails)
            paintLaunchArrow(p, ctx, sel, r, *s.selectedDetails, laneRect);
    }
    p.restore();
}

void OverlayPainter::paintLaunchArrow(QPainter& p, const TimelinePaintContext& ctx, const EventSelection& sel,
    const QRect& r, const EventDetails& d, const LaneRect& laneRect) const
{
    // The launch arrow: from the API call to the GPU work it launched (either end may be the
    // selected one), with the delay between them.
    if (d.lane != sel.lane || d.index != sel.index || d.linkLane < 0)
        return;
    const TimelineCoordinates& c = ctx.coords;
    const ColorScheme& colors = *ctx.colors;
    const bool selIsApi = sel.ref.table() == EventTable::ApiCall;
    const QRect api = selIsApi ? r : eventRect(ctx, laneRect, d.linkLane, d.linkStart, d.linkEnd);
    const QRect gpu = selIsApi ? eventRect(ctx, laneRect, d.linkLane, d.linkStart, d.linkEnd) : r;
    const TimeNs apiStart = selIsApi ? sel.start : d.linkStart;
    const TimeNs gpuStart = selIsApi ? d.linkStart : sel.start;
    if (api.isEmpty() || gpu.isEmpty())
        return;
    p.setRenderHint(QPainter::Antialiasing, true);
    const QPointF from(api.left() + std::min(api.width(), 6) / 2.0, api.top() < gpu.top() ? api.bottom() : api.top());
    const QPointF to(gpu.left() + 1, gpu.top() > api.top() ? gpu.top() : gpu.bottom());
    p.setPen(QPen(colors.arrow, 2));
    p.drawLine(from, to);
    const QLineF line(to, from);
    const double angle = std::atan2(line.dy(), line.dx());
    QPolygonF head;
    head << to << to + QPointF(std::cos(angle + 0.45) * 9, std::sin(angle + 0.45) * 9)
         << to + QPointF(std::cos(angle - 0.45) * 9, std::sin(angle - 0.45) * 9);
    p.setBrush(colors.arrow);
    p.drawPolygon(head);
    p.setRenderHint(QPainter::Antialiasing, false);
    // Launch-to-start delay on the GPU row, from the call's start to the work's start.
    const int qx0 = ctx.labelWidth + static_cast<int>(std::clamp(c.timeToX(apiStart), -2.0, c.width() + 2.0));
    const int qx1 = gpu.left();
    const int qy = gpu.top() + 2;
    if (qx1 - qx0 > 2) {
        p.fillRect(QRect(qx0, qy, qx1 - qx0, 2), colors.arrow);
        const QString text = d.queued > 0 && !selIsApi
            ? QStringLiteral("queued %1").arg(formatDuration(gpuStart - d.queued))
            : QStringLiteral("launch → start %1").arg(formatDuration(gpuStart - apiStart));
        const QFontMetrics fm(ctx.font);
        const int tw = fm.horizontalAdvance(text) + 8;
        // Beside the bracket when it is long enough, else left of where the call began:
        // never over the kernel's own label.
        const int tx = qx1 - qx0 >= tw ? qx1 - tw : qx0 - tw - 4;
        // A call left of the view: the text goes to the view's left edge instead.
        const QRect tr(std::max(tx, ctx.labelWidth + 2), qy + 2, tw, fm.height());
        // The label is opaque and sits on the GPU row: drawn only while the pointer is near the
        // call, the work, the bracket or the label itself, so it never hides events otherwise.
        // The delay is also in the Selection dock ("Launch to start").
        const QRect bracket(qx0, qy - 4, qx1 - qx0, 10);
        const QRect near = (tr | bracket | r | api).adjusted(-8, -8, 8, 8);
        if (near.contains(ctx.pointer)) {
            p.fillRect(tr, colors.background);
            p.setPen(colors.arrow);
            p.drawText(tr, Qt::AlignCenter, text);
        }
    }
}

void OverlayPainter::paintProcessEnds(QPainter& p, const TimelinePaintContext& ctx) const
{
    const TimelineModel& m = *ctx.snapshot->model;
    const QRect area = ctx.eventArea;
    int labelRow = 0;
    for (const ProcessInfo& process : m.processes) {
        const std::string note = processExitNote(process);
        if (note.empty())
            continue;
        // The process ended after its last recorded event; without events, where the session ends.
        TimeNs end = 0;
        for (const TimelineLane& lane : m.lanes)
            if (lane.pid == process.pid && lane.kind != LaneKind::GpuStream && lane.size() > 0)
                for (size_t k = lane.size() - std::min<size_t>(lane.size(), 64); k < lane.size(); ++k)
                    end = std::max(end, lane.endAt(k));
        if (end == 0)
            end = m.end;
        const double x = ctx.coords.timeToX(end);
        if (x < -200 || x > ctx.coords.width() + 2)
            continue;
        const int px = ctx.labelWidth + static_cast<int>(x);
        p.save();
        p.setClipRect(area);
        p.setPen(QPen(QColor(200, 0, 32), 2, Qt::DashLine));
        p.drawLine(px, area.top(), px, area.bottom());
        const QString text = QStringLiteral("✖ %1 (pid %2) %3")
                                 .arg(QString::fromStdString(process.name))
                                 .arg(process.pid)
                                 .arg(QString::fromStdString(note));
        QFont f = ctx.font;
        f.setBold(true);
        p.setFont(f);
        QRect box = p.fontMetrics().boundingRect(text).adjusted(-6, -3, 6, 3);
        // At the bottom: the top holds the "no GPU activity" notice.
        box.moveBottomRight(QPoint(px - 2, area.bottom() - 6 - labelRow * (box.height() + 4)));
        if (box.left() < area.left())
            box.moveLeft(px + 2);
        p.fillRect(box, QColor(255, 225, 228));
        p.setPen(QColor(150, 0, 20));
        p.drawText(box, Qt::AlignCenter, text);
        p.restore();
        ++labelRow;
    }
}

void OverlayPainter::paintNoGpuNotice(QPainter& p, const TimelinePaintContext& ctx) const
{
    // Painted last, over everything: a target that was killed or crashed is marked where it
    // ended (a dashed line labelled "python3 (pid 1855) killed by SIGSEGV").
    if (ctx.snapshot && ctx.snapshot->model)
        paintProcessEnds(p, ctx);
    if (!ctx.snapshot || ctx.snapshot->hasGpuActivity())
        return;
    const QString text = QStringLiteral("No GPU activity in this session — %1").arg(ctx.snapshot->gpuEmptyReason());
    const QRect area = ctx.eventArea.adjusted(8, 6 + ctx.pinnedHeight, -8, 0);
    QFont f = ctx.font;
    f.setBold(true);
    p.setFont(f);
    const QRect box = p.fontMetrics()
                          .boundingRect(QRect(area.left(), area.top(), area.width(), 200), Qt::TextWordWrap, text)
                          .adjusted(-8, -4, 8, 4);
    p.fillRect(box, QColor(255, 236, 150));
    p.setPen(QColor(60, 40, 0));
    p.drawText(box.adjusted(8, 4, -8, -4), Qt::TextWordWrap, text);
    p.setFont(ctx.font);
}

} // namespace ws

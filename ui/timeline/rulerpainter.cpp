// SPDX-License-Identifier: MIT
#include "ui/timeline/rulerpainter.h"

#include "ui/style/timeformat.h"

#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace ws {

namespace {

// The ruler's pixels as an image can hold them: a QImage target (the raster backing store, a
// grab's pixmap) at one device pixel per pixel, moved by whole pixels at most.
bool imageTarget(QPainter& p, QImage::Format& format)
{
    QPaintDevice* device = p.paintEngine() ? p.paintEngine()->paintDevice() : nullptr;
    if (!device || device->devType() != QInternal::Image || p.device()->devicePixelRatio() != 1.0)
        return false;
    const QTransform& t = p.deviceTransform();
    if (t.type() > QTransform::TxTranslate || t.dx() != std::round(t.dx()) || t.dy() != std::round(t.dy()))
        return false;
    format = static_cast<QImage*>(device)->format();
    return true;
}

} // namespace

void RulerPainter::paint(QPainter& p, const TimelinePaintContext& ctx, TimeRange selection)
{
    const TimelineCoordinates& c = ctx.coords;
    const ColorScheme& colors = *ctx.colors;
    const int rulerHeight = ctx.rulerHeight;
    const int labelWidth = ctx.labelWidth;
    const QRect ruler(0, 0, ctx.width, rulerHeight);
    p.fillRect(ruler, colors.groupHeader);
    p.fillRect(QRect(0, rulerHeight - 1, ctx.width, 1), colors.mutedText);
    const QFontMetrics fm(ctx.font);
    RulerLabels::Style style {ctx.font, colors.text.rgba(), colors.groupHeader.rgba(), rulerHeight};
    const bool cached = m_cachesText && imageTarget(p, style.format);
    if (cached)
        m_labels.setStyle(style);
    const TimeNs origin = ctx.snapshot->begin();
    const int spacing = cached ? m_labels.spacingText() : fm.horizontalAdvance(QStringLiteral("000.000 ms"));
    const TimeNs step = niceTickStep(c.nsPerPx(), spacing + 16);
    p.save();
    p.setClipRect(QRect(labelWidth, 0, ctx.eventArea.width(), rulerHeight));
    p.setPen(colors.text);
    // Deep in a long session "20.0001 s, 20.0002 s" hides the step: the first tick keeps the
    // absolute time, the others say how far they are from it ("+100 µs").
    const TimeNs firstTick = firstTickAtOrAfter(c.viewStart(), origin, step);
    const bool relative = std::abs(firstTick - origin) / step >= 1000;
    struct Tick {
        TimeNs t;
        int x;
        QString label;
        bool bold;
        QImage image; // null: drawn with drawText (a copy: the cache may rehash or clear meanwhile)
    };
    std::vector<Tick> ticks;
    for (TimeNs t = firstTick; t <= c.viewEnd(); t += step) {
        const int x = labelWidth + static_cast<int>(std::floor(c.timeToX(t)));
        const bool bold = relative && t == firstTick;
        QString label = relative && t != firstTick ? QStringLiteral("+") + formatTick(t - firstTick, step)
                                                   : formatTick(t - origin, step);
        QImage image = cached ? m_labels.image(label, bold) : QImage();
        ticks.push_back({t, x, std::move(label), bold, image});
    }
    // A copied image covers what an earlier label drew under it: only where no two overlap.
    for (size_t i = 0; cached && i + 1 < ticks.size(); ++i) {
        if (ticks[i].x + ticks[i].image.width() > ticks[i + 1].x) {
            for (Tick& tick : ticks)
                tick.image = QImage();
        }
    }
    for (const Tick& tick : ticks) {
        const TimeNs t = tick.t;
        const int x = tick.x;
        p.fillRect(QRect(x, rulerHeight - 8, 1, 7), colors.text);
        if (!tick.image.isNull()) {
            p.drawImage(QPoint(x + RulerLabels::kTextOffset, 0), tick.image);
        } else {
            QFont f = ctx.font;
            f.setBold(tick.bold);
            p.setFont(f);
            p.drawText(QRect(x + 3, 2, 200, rulerHeight - 10), Qt::AlignLeft | Qt::AlignVCenter, tick.label);
            p.setFont(ctx.font);
        }
        // Minor ticks: five per step.
        for (int k = 1; k < 5; ++k) {
            const int mx = labelWidth + static_cast<int>(std::floor(c.timeToX(t + step * k / 5)));
            p.fillRect(QRect(mx, rulerHeight - 4, 1, 3), colors.mutedText);
        }
    }
    if (!selection.isEmpty()) {
        const int x0 = labelWidth + static_cast<int>(std::clamp(c.timeToX(selection.begin), -2.0, c.width() + 2.0));
        const int x1 = labelWidth + static_cast<int>(std::clamp(c.timeToX(selection.end), -2.0, c.width() + 2.0));
        const QRect sel(x0, 0, std::max(x1 - x0, 1), rulerHeight - 1);
        p.fillRect(sel, colors.selectionFill);
        const QString text = formatDuration(selection.duration());
        const int tw = fm.horizontalAdvance(text) + 10;
        const QRect box((x0 + x1) / 2 - tw / 2, 4, tw, rulerHeight - 8);
        p.fillRect(box, colors.selectionEdge);
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.restore();
    // Left of the ruler: the visible span, so the scale is never ambiguous.
    const QString span = QStringLiteral("view %1").arg(formatDuration(c.viewEnd() - c.viewStart()));
    const QRect spanRect(RulerLabels::kSpanX, 0, labelWidth - 12, rulerHeight);
    const QImage spanImage = cached ? m_labels.spanImage(span, spanRect.width()) : QImage();
    // (The image must end inside the label column, where only the background is under it.)
    if (!spanImage.isNull() && spanRect.left() + spanImage.width() <= labelWidth) {
        p.drawImage(spanRect.topLeft(), spanImage);
    } else {
        p.setPen(colors.text);
        p.drawText(spanRect, Qt::AlignVCenter | Qt::AlignLeft, span);
    }
}

} // namespace ws

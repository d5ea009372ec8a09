// SPDX-License-Identifier: MIT
#include "ui/timeline/rowpainter.h"

#include "ui/timeline/rasterbuffer.h"

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <optional>

namespace ws {

void RowPainter::paintBackgrounds(QPainter& p, const TimelinePaintContext& c,
    const std::vector<TimelineLayoutRow>& rows, int layer, const QRect& area) const
{
    if (area.isEmpty())
        return;
    const ColorScheme& colors = *c.colors;
    p.save();
    p.setClipRect(area);
    const int top = c.layerTop(layer);
    int index = 0;
    for (const TimelineLayoutRow& r : rows) {
        const int y = top + r.y;
        if (y + r.h >= area.top() && y <= area.bottom()) {
            const QColor plain = (index % 2) ? colors.rowAlternate : colors.background;
            if (r.row.kind == TimelineRowModel::Kind::Group) {
                p.fillRect(QRect(0, y, area.width(), r.h), colors.groupHeader);
            } else {
                p.fillRect(QRect(0, y, c.labelWidth, r.h), plain);
                p.fillRect(
                    QRect(c.labelWidth, y, area.width() - c.labelWidth, r.h), r.row.gpu ? colors.gpuIdle : plain);
            }
        }
        ++index;
    }
    p.restore();
}

void RowPainter::paintGroupNotes(QPainter& p, const TimelinePaintContext& c, const std::vector<TimelineLayoutRow>& rows,
    int layer, const QRect& area) const
{
    if (area.isEmpty())
        return;
    p.save();
    p.setClipRect(area.adjusted(c.labelWidth, 0, 0, 0));
    p.setPen(c.colors->mutedText);
    const int top = c.layerTop(layer);
    for (const TimelineLayoutRow& r : rows) {
        const int y = top + r.y;
        if (r.row.note.isEmpty() || !r.row.expanded || y + r.h < area.top() || y > area.bottom())
            continue;
        p.drawText(QRect(c.labelWidth + 8, y, area.width() - c.labelWidth - 16, r.h), Qt::AlignLeft | Qt::AlignVCenter,
            r.row.note);
    }
    p.restore();
}

bool RowPainter::paintFrame(
    QPainter& p, const TimelinePaintContext& c, const TimelineFrame& f, int layer, const QRect& area) const
{
    if (area.isEmpty())
        return false;
    const LayerPixels& pixels = f.layers[layer];
    const int dy = layer == 0 ? 0 : f.layerTop[1] - c.scrollValue;
    const int y = area.top() + dy;
    const int fullWidth = c.labelWidth + c.eventArea.width();
    if (f.labelWidth == c.labelWidth && f.coords == c.coords && (pixels.isNull() || pixels.width() == fullWidth)) {
        // The frame was built for this view: its rows are written straight into the painter's
        // buffer where it is one (the window's backing store: each pixel written once, from the
        // rows' scanlines), else blitted from the frame's image; then the plain background the
        // rows leave out below.
        const QRect clip(0, area.top(), fullWidth, area.height());
        const std::optional<RasterBuffer> buffer = pixels.isNull() ? std::nullopt : RasterBuffer::of(p);
        p.save();
        p.setCompositionMode(QPainter::CompositionMode_Source);
        p.setClipRect(clip);
        if (buffer) {
            const QPoint origin = buffer->origin() + QPoint(0, y); // the layer's (0, 0) in the buffer
            for (const QRect& r : buffer->writable(clip))
                pixels.compose(buffer->bits(), buffer->bytesPerLine(), origin, r.translated(-origin));
        } else if (!pixels.isNull()) {
            p.drawImage(QPoint(0, y), f.image(layer));
        }
        const int imageBottom = y + pixels.height();
        const QRect below = QRect(0, imageBottom, fullWidth, area.bottom() + 1 - imageBottom).intersected(clip);
        if (!below.isEmpty())
            p.fillRect(below, QColor::fromRgb(f.background));
        p.restore();
        return buffer.has_value();
    }
    if (pixels.isNull())
        return false; // a stale frame with no rows: the view's background is already under it
    const QImage& img = f.image(layer);
    p.save();
    p.setCompositionMode(QPainter::CompositionMode_Source);
    const int lw = std::min(f.labelWidth, c.labelWidth);
    // The label column scrolls with the rows but never pans.
    p.setClipRect(QRect(0, area.top(), lw, area.height()));
    p.drawImage(QPoint(0, y), img, QRect(0, 0, lw, img.height()));
    // A frame built for another view is shown moved (same zoom) or stretched (other zoom)
    // until the new one arrives.
    p.setClipRect(QRect(c.labelWidth, area.top(), c.eventArea.width(), area.height()));
    const QRect source(f.labelWidth, 0, img.width() - f.labelWidth, img.height());
    const TimelineCoordinates& now = c.coords;
    const double sx = f.coords.nsPerPx() / now.nsPerPx();
    // A drag on the frame's grid moves it by whole pixels exactly; the views' rounded starts would
    // put it a fraction of a pixel off, or several pixels where a pixel is under a nanosecond.
    const std::optional<int64_t> shift = now.pixelShiftFrom(f.coords);
    const double dx = shift ? static_cast<double>(-*shift)
                            : static_cast<double>(f.coords.viewStart() - now.viewStart()) / now.nsPerPx();
    if (std::abs(sx - 1.0) < 1e-9 && std::abs(dx - std::round(dx)) < 1e-6) {
        p.drawImage(QPoint(c.labelWidth + static_cast<int>(std::lround(dx)), y), img, source);
    } else {
        p.setCompositionMode(QPainter::CompositionMode_SourceOver);
        p.drawImage(QRectF(c.labelWidth + dx, y, source.width() * sx, source.height()), img, source);
    }
    p.restore();
    return false;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include <QPoint>
#include <QRect>
#include <QRegion>

#include <optional>

class QPainter;

namespace ws {

// The 32-bit pixel buffer a QPainter draws into, where pixels can be written into it directly:
// a raster paint engine on a QImage (a widget's backing store on the raster platforms, an
// image) at one device pixel per pixel, translated but not scaled or rotated. Writing the
// timeline's rows there costs one store per pixel; drawing them through QPainter needs them in
// an image first, and copies every pixel twice.
class RasterBuffer {
public:
    // nullopt when the painter's target is anything else (a QPixmap, a scaled display, a
    // transformed painter, a format other than (A)RGB32): draw through QPainter then.
    static std::optional<RasterBuffer> of(QPainter& p);

    uchar* bits() const { return m_bits; }
    qsizetype bytesPerLine() const { return m_bytesPerLine; }
    // Where the painter's logical (0, 0) is in the buffer.
    QPoint origin() const { return m_origin; }
    // The parts of the logical rectangle `r` the painter may draw on (its system clip: a paint
    // event's region; its own clip), in device (buffer) coordinates.
    QRegion writable(const QRect& r) const;

private:
    uchar* m_bits = nullptr;
    qsizetype m_bytesPerLine = 0;
    QPoint m_origin;
    QRegion m_clip; // device coordinates, inside the buffer
};

} // namespace ws

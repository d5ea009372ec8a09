// SPDX-License-Identifier: MIT
#include "ui/timeline/rasterbuffer.h"

#include <QImage>
#include <QPaintEngine>
#include <QPainter>

#include <cmath>

namespace ws {

std::optional<RasterBuffer> RasterBuffer::of(QPainter& p)
{
    QPaintEngine* engine = p.paintEngine();
    if (!engine || engine->type() != QPaintEngine::Raster)
        return std::nullopt;
    // A widget's paint is redirected to its backing store: the engine's device is that image.
    QPaintDevice* device = engine->paintDevice();
    if (!device || device->devType() != QInternal::Image)
        return std::nullopt;
    auto* image = static_cast<QImage*>(device);
    switch (image->format()) {
    case QImage::Format_RGB32:
    case QImage::Format_ARGB32:
    case QImage::Format_ARGB32_Premultiplied: // opaque pixels are stored alike in all three
        break;
    default:
        return std::nullopt;
    }
    // The engine writes into the image's buffer as it was when painting began: a shared image
    // would detach here and the writes would go elsewhere.
    if (image->devicePixelRatio() != 1.0 || !image->isDetached())
        return std::nullopt;
    const QTransform& t = p.deviceTransform();
    if (t.type() > QTransform::TxTranslate || t.dx() != std::round(t.dx()) || t.dy() != std::round(t.dy()))
        return std::nullopt;
    RasterBuffer b;
    b.m_bits = image->bits();
    b.m_bytesPerLine = image->bytesPerLine();
    b.m_origin = QPoint(static_cast<int>(t.dx()), static_cast<int>(t.dy()));
    const QRegion system = engine->systemClip();
    b.m_clip = system.isEmpty() ? QRegion(image->rect()) : system.intersected(image->rect());
    if (p.hasClipping())
        b.m_clip &= p.clipRegion().translated(b.m_origin);
    return b;
}

QRegion RasterBuffer::writable(const QRect& r) const
{
    return m_clip.intersected(r.translated(m_origin));
}

} // namespace ws

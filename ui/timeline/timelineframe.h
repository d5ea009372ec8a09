// SPDX-License-Identifier: MIT
#pragma once

#include "core/timeline/lodcounter.h"
#include "core/timeline/lodfold.h"
#include "core/timeline/timelinecoordinates.h"
#include "core/util/cancellation.h"
#include "ui/session/sessionsnapshot.h"
#include "ui/timeline/layerpixels.h"

#include <QFont>
#include <QImage>
#include <QRect>
#include <QRgb>

#include <ctime>
#include <memory>
#include <vector>

namespace ws {

// One row the frame builder is asked to draw. y is in layer coordinates: from the top of
// the pinned area (layer 0) or of the scrolling content (layer 1).
struct FrameRow {
    int lane = -1;    // a TimelineModel lane, or
    int counter = -1; // a counter series, or neither: a group header
    int y = 0;
    int height = 0;
    int layer = 1;
    bool gpu = false; // GPU rows: the background is the idle shade, long gaps get an "idle" label
    QRgb background = 0;
    bool group = false; // a group header: bold label, open/closed triangle; with a lane: its summary
    // The label column: the row's name (a counter adds its maximum on a second line).
    QString label;
    int depth = 0;
    bool expanded = true;
    QRgb labelBackground = 0;
};

// The colours and font the rasteriser needs, copied from the widget (never read across
// threads).
struct FrameStyle {
    QRgb background = 0xffffffff;
    QRgb groupHeader = 0xffe0e0e0;
    QRgb grid = 0x16000000;  // ARGB, blended over the row background
    QRgb hatch = 0x78ffffff; // ARGB, blended over folded runs
    QRgb mutedText = 0xff808080;
    QRgb text = 0xff000000;
    QFont font;
};

struct TimelineFrame;

struct FrameRequest {
    std::shared_ptr<const SessionSnapshot> snapshot;
    TimelineCoordinates coords;
    std::vector<FrameRow> rows;
    FrameStyle style;
    int labelWidth = 0;          // the label column, left of the events, in the same layers
    int layerTop[2] = {0, 0};    // layer coordinate of each image's first line
    int layerHeight[2] = {0, 0}; // image heights; 0 = no image for that layer
    quint64 generation = 0;
    CancellationToken cancel;
    // Compose each layer's image on the worker as well (TimelineFrame::image): the view's rows
    // cannot be written straight into its buffer (a scaled display), so paint draws the image.
    bool composeImages = false;
    // The frame shown now (immutable once delivered, so the worker may read it). When `coords`
    // is a whole-pixel pan of its view on the same snapshot, each lane's fold takes over the
    // rectangles that lie inside both views (foldLaneReusing): same frame, less work.
    std::shared_ptr<const TimelineFrame> previous;
};

// Per row, the draw list as built: hit testing and tooltips read it, so what the mouse finds
// is exactly what was painted.
struct FrameRowHits {
    FrameRow row;
    std::vector<LodRect> rects;
    std::vector<CounterColumn> columns;
};

// A finished frame: the pixels of the pinned rows (layer 0) and of the visible scrolling rows
// (layer 1), as their rows' scanlines and the labels over them (LayerPixels: the GUI thread
// writes them straight into the window), plus the draw lists they were rasterised from.
struct TimelineFrame {
    quint64 generation = 0;
    TimelineCoordinates coords;
    std::shared_ptr<const SessionSnapshot> snapshot;
    // Label column + event area, from the layer's top down to the bottom of its last row
    // (null when no row is in view): below that the layer is plain `background`, which the
    // view fills itself rather than copying it.
    LayerPixels layers[2];
    // The layer as an image, composed on first use and kept (a frame shown moved or stretched,
    // a paint device that is not a plain RGB32 buffer, tests). Not thread-safe: call it on the
    // thread that owns the delivered frame.
    const QImage& image(int layer) const;
    int labelWidth = 0;
    int layerTop[2] = {0, 0};
    int layerHeight[2] = {0, 0}; // the layer's height in the view (images may be shorter)
    QRgb background = 0xffffffff;
    std::vector<FrameRowHits> rows;
    qint64 rectCount = 0;
    qint64 eventsCovered = 0;
    qint64 labelCount = 0;
    qint64 rectsReused = 0; // taken over from the previous frame's folds (FrameRequest::previous)
    double buildMs = 0;     // fold + raster + text, on the worker (wall clock)
    double buildCpuMs = 0;  // the same, in CPU time of the worker thread

private:
    mutable QImage m_images[2];
    mutable bool m_composed[2] = {false, false};
};

// CPU time of the calling thread: on a shared machine wall-clock times include waiting for a
// core, CPU time is what the work costs.
inline double threadCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Builds and rasterises a frame; runs on a worker thread. Returns nullptr if cancelled.
//
// Why rasterise here rather than replay rectangles in paintEvent: a zoom level where API
// calls sit a pixel or two apart needs ~30k rectangles for 68 rows (1-px idle gaps must stay
// visible), and QPainter::fillRect costs ~0.5 us each: 15+ ms on the GUI thread. Every
// rectangle of a row spans the row's full height, so the worker fills one scanline per row
// and the labels; paintEvent writes each row's scanline down the row (LayerPixels::compose).
std::shared_ptr<TimelineFrame> buildTimelineFrame(const FrameRequest& request);

// Renders `text` elided to `bucket` px (`mode`) in `ink` on `fill`: an RGB32 image as wide as
// the text (at most `bucket`), or a null image when nothing readable fits. Labels are cached
// by what they show; this is the cost of a cache miss.
// `advance` is labelAdvance(text, font, bold) when the caller knows it (-1: measured here).
// A text of one character is drawn only with `wholeShortText` (and when it fits): alone it is
// not a readable label, after a folded run's count it is the whole name.
QImage renderLabel(const QString& text, int bucket, QRgb fill, QRgb ink, const QFont& font, bool bold,
    Qt::TextElideMode mode, int advance = -1, bool wholeShortText = false);
// What renderLabel compares with the bucket: the text's width in px (int max for a text that
// elidedText treats as several variants).
int labelAdvance(const QString& text, const QFont& font, bool bold);

// Minimum width (px) for a slice to get a label (Perfetto's rule).
inline constexpr int kMinLabelPx = 5;
// Gaps on GPU rows at least this wide (px) say how long the GPU was idle.
inline constexpr int kMinIdleLabelPx = 70;

} // namespace ws

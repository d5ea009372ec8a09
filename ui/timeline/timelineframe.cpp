// SPDX-License-Identifier: MIT
#include "ui/timeline/timelineframe.h"

#include "ui/timeline/countprefix.h"
#include "ui/timeline/elisiontable.h"
#include "ui/timeline/hatchedscanlines.h"
#include "ui/timeline/idlenotetexts.h"
#include "ui/timeline/layerpixels.h"
#include "ui/timeline/pixelfill.h"

#include "ui/style/colorscheme.h"
#include "ui/style/timeformat.h"

#include <QElapsedTimer>
#include <QFontMetrics>
#include <QHash>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace ws {

namespace {

// Lighter shade for a counter's area; its min..max band keeps the full colour.
QRgb lighter(QRgb c)
{
    return qRgb((qRed(c) + 2 * 255) / 3, (qGreen(c) + 2 * 255) / 3, (qBlue(c) + 2 * 255) / 3);
}

struct Label {
    QRect rect;
    StringId name = 0;
    quint32 count = 1;
    QRgb fill = 0;
    QRgb text = 0;
};

struct Idle {
    QRect rect;
    TimeNs gap = 0;
};

// Writes straight into an RGB32 image: the pixels that are not one scanline per row (a
// counter's plot, a row's label cell).
class Raster {
public:
    // Draws into the columns [x0, x0 + width) of `image`; x is relative to x0. `yPhase` is the
    // image's first line in the layer: hatches stay on the layer's diagonals.
    Raster(QImage& image, int x0, int width, int yPhase = 0)
        : m_bits(image.bits() + static_cast<qsizetype>(x0) * 4)
        , m_stride(image.bytesPerLine())
        , m_width(std::min(width, image.width() - x0))
        , m_height(image.height())
        , m_yPhase(yPhase)
    {
    }
    int width() const { return m_width; }
    uint32_t* line(int y) { return reinterpret_cast<uint32_t*>(m_bits + static_cast<qsizetype>(y) * m_stride); }
    void fill(int y0, int y1, QRgb c)
    {
        for (int y = std::max(y0, 0); y < std::min(y1, m_height); ++y)
            fillPixels(line(y), static_cast<size_t>(std::max(m_width, 0)), c);
    }
    // Diagonal hatch over folded runs (Tracy draws them zig-zagged): says "more in here".
    void hatch(int x0, int x1, int y0, int y1, QRgb over)
    {
        for (int y = std::max(y0, 0); y < std::min(y1, m_height); ++y) {
            uint32_t* l = line(y);
            for (int x = x0 + ((8 - ((x0 + y + m_yPhase) & 7)) & 7); x < x1; x += 8)
                l[x] = blendOver(l[x], over);
        }
    }
    // Copies `img` (RGB32) with its top-left at (x, y), clipped to the raster.
    void blit(const QImage& img, int x, int y)
    {
        const int x0 = std::max(x, 0);
        const int x1 = std::min(x + img.width(), m_width);
        if (x1 <= x0)
            return;
        // QImage's accessors are out-of-line calls: once per label, not per row.
        const uchar* bits = img.constBits();
        const qsizetype stride = img.bytesPerLine();
        const int rows = std::min(img.height(), m_height - y);
        for (int row = std::max(0, -y); row < rows; ++row) {
            const auto* src = reinterpret_cast<const uint32_t*>(bits + row * stride) + (x0 - x);
            std::memcpy(line(y + row) + x0, src, static_cast<size_t>(x1 - x0) * sizeof(uint32_t));
        }
    }
    void column(int x, int y0, int y1, QRgb c)
    {
        if (x < 0 || x >= m_width)
            return;
        for (int y = std::max(y0, 0); y < std::min(y1, m_height); ++y)
            line(y)[x] = c;
    }

private:
    uchar* m_bits;
    qsizetype m_stride;
    int m_width;
    int m_height;
    int m_yPhase;
};

// The previous frame's draw lists by lane (same snapshot): where each lane's visible events
// were, to start this frame's search for them from (visibleRangeHint), and, where this frame is
// a whole-pixel pan of it, the rectangles to take over.
struct PreviousFolds {
    std::vector<const std::vector<LodRect>*> byLane; // nullptr: fold afresh
    TimelineCoordinates view;                        // the previous frame's
    std::optional<int64_t> shift;                    // set for a pan: this view's columns = the previous ones - shift
};

PreviousFolds previousFolds(const FrameRequest& req, size_t lanes)
{
    PreviousFolds p;
    const TimelineFrame* prev = req.previous.get();
    if (!prev || prev->snapshot != req.snapshot)
        return p;
    p.view = prev->coords;
    const std::optional<int64_t> shift = req.coords.pixelShiftFrom(prev->coords);
    if (shift && *shift != 0 && std::abs(*shift) < req.coords.width())
        p.shift = shift;
    p.byLane.assign(lanes, nullptr);
    for (const FrameRowHits& h : prev->rows) {
        if (h.row.lane >= 0 && static_cast<size_t>(h.row.lane) < lanes && !p.byLane[static_cast<size_t>(h.row.lane)])
            p.byLane[static_cast<size_t>(h.row.lane)] = &h.rects;
    }
    return p;
}

// Per frame, reused from row to row.
struct LaneScratch {
    std::vector<uint32_t> scan;
    std::vector<std::pair<int, int>> hatchRuns; // folded runs' [x0, x1)
    std::vector<uint32_t> hatched;              // scan with the folded runs blended
};

// A lane's row: one scanline (folded runs hatched on the layer's diagonals), its labels.
void rasterLane(const SessionSnapshot& s, const FrameRequest& req, const FrameRow& row, int top, LayerPixels& layer,
    LaneScratch& scratch, const PreviousFolds& previous, std::vector<Label>& labels, std::vector<Idle>& idle,
    FrameRowHits& hits, TimelineFrame& frame)
{
    const auto laneIndex = static_cast<size_t>(row.lane);
    const TimelineLane& lane = s.model->lanes[laneIndex];
    const std::vector<LodRect>* before = laneIndex < previous.byLane.size() ? previous.byLane[laneIndex] : nullptr;
    const std::optional<VisibleRange> hint
        = before ? visibleRangeHint(*before, previous.view, req.coords) : std::nullopt;
    if (before && previous.shift)
        frame.rectsReused += static_cast<qint64>(foldLaneReusing(
            lane.start, lane.ends(), s.indexFor(laneIndex), req.coords, *before, *previous.shift, hits.rects, hint));
    else
        foldLane(lane.start, lane.ends(), s.indexFor(laneIndex), req.coords, hits.rects, hint);
    const int width = layer.eventWidth();
    const int bandTop = top + 1;
    const int bandH = std::max(row.height - 2, 1);
    const bool instants = laneKind(lane.kind).instants;
    auto& [scan, hatchRuns, hatched] = scratch;
    scan.resize(static_cast<size_t>(std::max(width, 0)));
    fillPixels(scan.data(), scan.size(), row.background);
    // Each rectangle's colour comes from its widest event's name: one load from the lane's
    // name array, far from where the fold read, and a cache miss per rectangle at 10M events
    // (a fifth of this function's time). Issued all together first, the misses overlap.
    for (const LodRect& r : hits.rects)
        __builtin_prefetch(lane.name.data() + r.widest);
    const LodRect* prev = nullptr;
    std::vector<std::pair<int, int>>& folded = hatchRuns;
    folded.clear();
    for (const LodRect& r : hits.rects) {
        int x0 = std::max(r.x0, 0);
        int x1 = std::min(r.x1, width);
        // Marks (in-kernel instants) are a 3 px tick, not a hairline.
        if (instants && r.count == 1 && lane.start[r.first] == lane.endAt(r.first)) {
            x0 = std::max(r.x0 - 1, 0);
            x1 = std::min(r.x0 + 2, width);
        }
        // A one-pixel gap between back-to-back single events keeps neighbours with the same
        // colour apart (Perfetto's SLICE_GAP_PX); runs and thin slices keep every pixel.
        if (r.count == 1 && x1 - x0 >= 4)
            x1 -= 1;
        if (x1 <= x0)
            continue;
        const QRgb color = s.color(lane.name[r.widest]) | 0xff000000u;
        fillPixels(scan.data() + x0, static_cast<size_t>(x1 - x0), color);
        ++frame.rectCount;
        frame.eventsCovered += r.count;
        if (r.count > 1 && x1 - x0 >= 4)
            folded.emplace_back(x0, x1);
        if (x1 - x0 >= kMinLabelPx)
            labels.push_back(
                {QRect(x0, bandTop, x1 - x0, bandH), lane.name[r.widest], r.count, color, ColorScheme::textOn(color)});
        if (row.gpu && prev) {
            const int gx0 = std::max(prev->x1, 0);
            const int gx1 = std::min(r.x0, width);
            if (gx1 - gx0 >= kMinIdleLabelPx)
                idle.push_back({QRect(gx0, bandTop, gx1 - gx0, bandH),
                    lane.start[r.first] - lane.endAt(prev->first + prev->count - 1)});
        }
        prev = &r;
    }
    layer.fillLines(top, bandTop, row.background);
    if (folded.empty()) {
        layer.copyLines(bandTop, bandTop + bandH, scan.data());
        return;
    }
    hatchScanline(scan, folded, req.style.hatch, hatched);
    layer.copyHatchedLines(bandTop, bandTop + bandH, scan.data(), hatched.data(), folded);
}

void rasterCounter(const SessionSnapshot& s, const FrameRequest& req, const FrameRow& row, int top, Raster& raster,
    FrameRowHits& hits, TimelineFrame& frame)
{
    const CounterSeries& c = s.counters[static_cast<size_t>(row.counter)];
    c.columns(req.coords, s.end(), hits.columns);
    raster.fill(top, top + row.height - 1, row.background);
    const double lo = std::min(0.0, c.minValue());
    const double hi = std::max(c.maxValue(), lo + 1e-12);
    const int plotTop = top + 3;
    const int bottom = top + row.height - 2;
    const double scale = static_cast<double>(bottom - plotTop) / (hi - lo);
    const QRgb strong = ColorScheme::forName(c.name) | 0xff000000u;
    const QRgb soft = lighter(strong);
    const auto yOf = [&](double v) { return bottom - static_cast<int>(std::lround((v - lo) * scale)); };
    // Area up to each column's maximum, and the min..max band in the strong colour: spikes
    // narrower than a pixel stay visible.
    for (const CounterColumn& col : hits.columns) {
        const int yMax = yOf(col.max);
        const int yMin = yOf(col.min);
        raster.column(col.x, yMax, bottom, soft);
        raster.column(col.x, yMax, std::max(yMin, yMax + 1), strong);
        ++frame.rectCount;
    }
    // Stretches without samples (record --gpu-metrics gaps): the held value is erased and the
    // stretch hatched in red with a red bar on top, so it never reads as a measurement (the
    // tooltip says how long and why).
    constexpr QRgb kGapInk = 0xffd04040u;
    for (const CounterGap& g : c.gaps) {
        const PixelSpan px = req.coords.span(g.start, g.end);
        if (!req.coords.visible(px))
            continue;
        const int x0 = static_cast<int>(std::max<int64_t>(px.x0, 0));
        const int x1 = static_cast<int>(std::min<int64_t>(px.x1, raster.width()));
        for (int x = x0; x < x1; ++x) {
            raster.column(x, top, top + row.height - 1, row.background);
            raster.column(x, top, top + 2, kGapInk);
        }
        raster.hatch(x0, x1, top + 2, top + row.height - 1, 0xa0d04040u);
    }
}

// A counter's row is not uniform vertically: drawn into an image of its own (the row above its
// grid line), laid over the layer's lines.
void rasterCounterRow(const SessionSnapshot& s, const FrameRequest& req, const FrameRow& row, int top,
    LayerPixels& layer, FrameRowHits& hits, TimelineFrame& frame)
{
    const int width = layer.eventWidth();
    QImage plot(std::max(width, 1), std::max(row.height - 1, 1), QImage::Format_RGB32);
    Raster raster(plot, 0, width, top);
    rasterCounter(s, req, row, 0, raster, hits, frame);
    layer.blit(plot, QPoint(layer.eventLeft(), top), QRect(layer.eventLeft(), 0, width, layer.height()));
}

} // namespace

int labelAdvance(const QString& text, const QFont& font, bool bold)
{
    if (text.contains(QChar(0x9c)))
        return std::numeric_limits<int>::max(); // a multi-length string: elidedText picks a variant
    QFont f = font;
    f.setBold(bold);
    return QFontMetrics(f).horizontalAdvance(text);
}

namespace {

// The tail of renderLabel, for a text already elided (`advance`: the elided text's width).
QImage drawElided(const QString& text, const QString& elided, int advance, int bucket, QRgb fill, QRgb ink,
    const QFont& font, bool bold, bool wholeShortText)
{
    QImage img;
    if ((elided.size() > 1 && elided != QStringLiteral("…")) || (wholeShortText && elided == text && !text.isEmpty())) {
        QFont f = font;
        f.setBold(bold);
        const QFontMetrics fm(f);
        img = QImage(std::max(1, std::min(bucket, advance + 1)), fm.height(), QImage::Format_RGB32);
        img.fill(fill);
        QPainter p(&img);
        p.setFont(f);
        p.setPen(QColor::fromRgb(ink));
        p.drawText(0, fm.ascent(), elided);
    }
    return img;
}

} // namespace

QImage renderLabel(const QString& text, int bucket, QRgb fill, QRgb ink, const QFont& font, bool bold,
    Qt::TextElideMode mode, int advance, bool wholeShortText)
{
    QFont f = font;
    f.setBold(bold);
    const QFontMetrics fm(f);
    // Measure first: most labels fit, and elidedText returns a text that fits unchanged, after
    // laying it out once more (each layout is a third of a label's cost). horizontalAdvance
    // rounds the width elidedText compares, so only a width below the bucket is known to fit.
    if (advance < 0)
        advance = labelAdvance(text, font, bold);
    QString elided = text;
    if (advance >= bucket) {
        elided = fm.elidedText(text, mode, bucket);
        advance = fm.horizontalAdvance(elided);
    }
    return drawElided(text, elided, advance, bucket, fill, ink, font, bold, wholeShortText);
}

namespace {

// Labels pre-rendered on their slice's colour, per worker thread: the same kernel names recur
// frame after frame, and a cached label is copied in with a few memcpys where drawing text
// costs ~10 us a label.
const QImage* labelImage(const QString& text, int width, QRgb fill, QRgb ink, const QFont& font, bool bold = false,
    Qt::TextElideMode mode = Qt::ElideRight)
{
    thread_local QHash<QString, QImage> cache;
    thread_local QFont cacheFont;
    if (!(cacheFont == font) || cache.size() > 5000) {
        cache.clear();
        cacheFont = font;
    }
    const int bucket = width & ~7; // widths snap down to 8 px: one image serves many slices
    const QString key
        = QStringLiteral("%1|%2|%3|%4|").arg(bucket).arg(fill, 0, 16).arg(ink, 0, 16).arg(int(mode) * 2 + int(bold))
        + text;
    auto it = cache.find(key);
    if (it == cache.end())
        it = cache.insert(key, renderLabel(text, bucket, fill, ink, font, bold, mode));
    return it->isNull() ? nullptr : &it.value();
}

// Slice labels, cached by value: (name, count, width bucket, colours) of one snapshot. A frame
// has up to ~2,000 of them; building a QString key (and the name's QString) for each cost more
// than blitting the image.
struct SliceLabelKey {
    StringId name = 0;
    quint32 count = 1; // 0: the name part of a folded run's label (after CountPrefix)
    int bucket = 0;
    QRgb fill = 0;
    QRgb ink = 0;
    int shown = -1; // an elided label's key: its elided text's length (and bucket its width)
    bool operator==(const SliceLabelKey&) const = default;
};

size_t qHash(const SliceLabelKey& k, size_t seed = 0)
{
    return qHashMulti(seed, k.name, k.count, k.bucket, k.fill, k.ink, k.shown);
}

// The bucket of a label whose text fits: its image is the same for every wider bucket.
constexpr int kFitsBucket = -1;

struct SliceTextKey {
    StringId name = 0;
    quint32 count = 1;
    bool operator==(const SliceTextKey&) const = default;
};

size_t qHash(const SliceTextKey& k, size_t seed = 0)
{
    return qHashMulti(seed, k.name, k.count);
}

const QImage* sliceLabelImage(const SessionSnapshot& s, const std::shared_ptr<const SessionSnapshot>& owner,
    const SliceLabelKey& key, const QFont& font)
{
    thread_local QHash<SliceLabelKey, QImage> cache;
    thread_local QFont cacheFont;
    // StringIds mean something only within their snapshot. A weak_ptr keeps the control block,
    // so a later snapshot at the same address still compares different.
    thread_local std::weak_ptr<const SessionSnapshot> cacheOwner;
    // A label that fits its bucket is the whole text whatever the bucket: every zoom step
    // changes the slices' widths, so keyed by bucket alone it would be drawn again (its text
    // laid out twice) each time. The text's advance is kept per (name, count) to tell.
    thread_local QHash<SliceTextKey, int> advances;
    // A label that does not fit is keyed by what it shows: its elided text (per width, from
    // an ElisionTable) and its image's width.
    thread_local QHash<SliceTextKey, ElisionTable> elisions;
    thread_local std::optional<QFontMetrics> metrics;
    const bool sameOwner = !cacheOwner.owner_before(owner) && !owner.owner_before(cacheOwner) && !cacheOwner.expired();
    if (!sameOwner || !(cacheFont == font) || cache.size() > 5000 || advances.size() > 20000) {
        cache.clear();
        advances.clear();
        elisions.clear();
        cacheFont = font;
        cacheOwner = owner;
        metrics.emplace(font);
    }
    const auto text = [&] {
        QString t = s.qstr(key.name);
        if (key.count > 1)
            t = QStringLiteral("%1 × %2").arg(formatCount(key.count), t);
        return t;
    };
    auto a = advances.constFind(SliceTextKey {key.name, key.count});
    if (a == advances.cend())
        a = advances.insert(SliceTextKey {key.name, key.count}, labelAdvance(text(), font, false));
    SliceLabelKey canonical = key;
    if (*a < key.bucket) {
        canonical.bucket = kFitsBucket;
        auto it = cache.find(canonical);
        if (it == cache.end())
            it = cache.insert(canonical,
                renderLabel(text(), key.bucket, key.fill, key.ink, font, false, Qt::ElideRight, *a, key.count == 0));
        return it->isNull() ? nullptr : &it.value();
    }
    const QString full = text();
    const ElisionTable::Elided& e = elisions[SliceTextKey {key.name, key.count}].at(full, key.bucket, *metrics);
    canonical.bucket = std::min(key.bucket, e.advance + 1);
    canonical.shown = static_cast<int>(e.text.size());
    auto it = cache.find(canonical);
    if (it == cache.end())
        it = cache.insert(
            canonical, drawElided(full, e.text, e.advance, key.bucket, key.fill, key.ink, font, false, key.count == 0));
    return it->isNull() ? nullptr : &it.value();
}

// The row's name left of its events: indented by depth; groups bold with an open/closed
// triangle; counters with their maximum on a second line.
void drawRowLabel(const FrameRequest& req, const FrameRow& row, int top, QImage& img, Raster& column)
{
    const bool group = row.group || (row.lane < 0 && row.counter < 0);
    const QRgb bg = group ? (req.style.groupHeader | 0xff000000u) : (row.labelBackground | 0xff000000u);
    column.fill(top, top + row.height - 1, bg);
    column.fill(top + row.height - 1, top + row.height, blendOver(bg, req.style.grid));
    const int x = 4 + row.depth * 12;
    const int textX = group ? x + 12 : x;
    const int avail = req.labelWidth - textX - 6;
    if (avail <= 8)
        return;
    const QStringList lines = row.label.split(QLatin1Char('\n'));
    const int lineH = QFontMetrics(req.style.font).height();
    int y = top + (row.height - lineH * static_cast<int>(lines.size())) / 2;
    for (const QString& line : lines) {
        if (const QImage* t = labelImage(line, avail, bg, req.style.text, req.style.font, group, Qt::ElideMiddle))
            column.blit(*t, textX, y);
        y += lineH;
    }
    if (group) {
        QPainter p(&img);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor::fromRgb(req.style.text));
        const int cy = top + row.height / 2;
        QPolygon tri;
        if (row.expanded)
            tri << QPoint(x, cy - 3) << QPoint(x + 8, cy - 3) << QPoint(x + 4, cy + 3);
        else
            tri << QPoint(x + 2, cy - 4) << QPoint(x + 2, cy + 4) << QPoint(x + 7, cy);
        p.drawPolygon(tri);
    }
}

// A row's label cell, cached per worker thread: the label column is the same frame after frame
// while the view zooms and pans, and drawing it (a keyed text lookup per line, the group's
// triangle through a QPainter) was 5% of a build.
struct RowLabelKey {
    QString label;
    int depth = 0;
    int height = 0;
    int labelWidth = 0;
    bool group = false;
    bool expanded = true;
    QRgb background = 0;
    QRgb grid = 0;
    QRgb groupHeader = 0;
    QRgb text = 0;
    bool operator==(const RowLabelKey&) const = default;
};

size_t qHash(const RowLabelKey& k, size_t seed = 0)
{
    return qHashMulti(seed, k.label, k.depth, k.height, k.labelWidth, k.group, k.expanded, k.background, k.grid,
        k.groupHeader, k.text);
}

// The row's label cell (the label column's lines of the row), drawn as drawRowLabel draws it
// at top 0.
QImage rowLabelCell(const FrameRequest& req, const FrameRow& row)
{
    // A cell is a function of the key (and the font) alone: drawn into an image of its own, so
    // what would spill into the neighbouring rows (text lines taller than the row, the triangle
    // past the column's edge) is cut off at the cell's edges whether kept or drawn afresh. Such
    // rows were drawn again in every frame (2% of the frame thread's time) from when the cell was
    // drawn in place.
    thread_local QHash<RowLabelKey, QImage> cells;
    thread_local QFont cellsFont;
    if (!(cellsFont == req.style.font) || cells.size() > 2000) {
        cells.clear();
        cellsFont = req.style.font;
    }
    const auto draw = [&] {
        QImage cell(req.labelWidth, std::max(row.height, 1), QImage::Format_RGB32);
        cell.fill(0u);
        Raster cellColumn(cell, 0, req.labelWidth);
        drawRowLabel(req, row, 0, cell, cellColumn);
        return cell;
    };
    const RowLabelKey key {row.label, row.depth, row.height, req.labelWidth,
        row.group || (row.lane < 0 && row.counter < 0), row.expanded, row.labelBackground | 0xff000000u, req.style.grid,
        req.style.groupHeader | 0xff000000u, req.style.text};
    auto it = cells.constFind(key);
    if (it == cells.cend())
        it = cells.insert(key, draw());
    return *it;
}

} // namespace

const QImage& TimelineFrame::image(int layer) const
{
    const auto i = static_cast<size_t>(layer);
    if (!m_composed[i]) {
        m_images[i] = layers[i].toImage();
        m_composed[i] = true;
    }
    return m_images[i];
}

std::shared_ptr<TimelineFrame> buildTimelineFrame(const FrameRequest& req)
{
    QElapsedTimer timer;
    timer.start();
    const double cpu0 = threadCpuMs();
    auto frame = std::make_shared<TimelineFrame>();
    frame->generation = req.generation;
    frame->coords = req.coords;
    frame->snapshot = req.snapshot;
    frame->layerTop[0] = req.layerTop[0];
    frame->layerTop[1] = req.layerTop[1];
    frame->labelWidth = req.labelWidth;
    frame->layerHeight[0] = std::max(req.layerHeight[0], 0);
    frame->layerHeight[1] = std::max(req.layerHeight[1], 0);
    frame->background = req.style.background | 0xff000000u;
    if (!req.snapshot || !req.snapshot->model)
        return frame;
    const SessionSnapshot& s = *req.snapshot;
    const int width = req.coords.width();
    LaneScratch scratch;
    const PreviousFolds previous = previousFolds(req, s.model->lanes.size());
    std::vector<Label> labels[2];
    std::vector<Idle> idle[2];
    frame->rows.reserve(req.rows.size());
    for (int layer = 0; layer < 2; ++layer) {
        if (req.layerHeight[layer] <= 0)
            continue;
        // Rows write every line they cover. Below the last one the layer is plain background:
        // the image stops there (with the rows of a session collapsed to its groups, about half
        // of a 1080-line view), and the view fills the rest (RowPainter::paintFrame).
        int bottom = 0;
        for (const FrameRow& row : req.rows) {
            if (row.layer == layer)
                bottom = std::max(bottom, row.y + row.height - req.layerTop[layer]);
        }
        bottom = std::min(bottom, req.layerHeight[layer]);
        if (bottom <= 0)
            continue;
        LayerPixels& pixels = frame->layers[layer];
        pixels = LayerPixels(req.labelWidth + width, bottom, req.labelWidth, frame->background);
        for (const FrameRow& row : req.rows) {
            if (row.layer != layer)
                continue;
            if (req.cancel.isCancelled())
                return nullptr;
            const int top = row.y - req.layerTop[layer];
            if (top + row.height <= 0 || top >= pixels.height())
                continue;
            FrameRowHits hits;
            hits.row = row;
            const QRgb bg = row.background | 0xff000000u;
            if (row.lane >= 0 && static_cast<size_t>(row.lane) < s.model->lanes.size()) {
                FrameRow r = row;
                r.background = bg;
                rasterLane(s, req, r, top, pixels, scratch, previous, labels[layer], idle[layer], hits, *frame);
            } else if (row.counter >= 0 && static_cast<size_t>(row.counter) < s.counters.size()) {
                FrameRow r = row;
                r.background = bg;
                rasterCounterRow(s, req, r, top, pixels, hits, *frame);
            } else {
                pixels.fillLines(top, top + row.height - 1, req.style.groupHeader | 0xff000000u);
            }
            pixels.fillLines(top + row.height - 1, top + row.height,
                blendOver(
                    row.lane >= 0 || row.counter >= 0 ? bg : (req.style.groupHeader | 0xff000000u), req.style.grid));
            if (req.labelWidth > 0)
                pixels.setLabelCell(top, rowLabelCell(req, row));
            frame->rows.push_back(std::move(hits));
        }
    }
    // Text last: cached label images copied in; idle labels (few) drawn with QPainter
    // (text rendering in worker threads is supported for QImage targets).
    thread_local std::unique_ptr<CountPrefix> prefixCache;
    if (!prefixCache || !(prefixCache->font() == req.style.font))
        prefixCache = std::make_unique<CountPrefix>(req.style.font);
    CountPrefix& prefixes = *prefixCache;
    thread_local std::unique_ptr<IdleNoteTexts> idleNotes;
    // The narrowest slice with a label, measured once per font: laying "abc…" out in every
    // frame was ~5% of the frame thread's time (2026-12-04 profile).
    thread_local int minText = 0;
    if (!idleNotes || !(idleNotes->font() == req.style.font)) {
        idleNotes = std::make_unique<IdleNoteTexts>(req.style.font);
        minText = QFontMetrics(req.style.font).horizontalAdvance(QStringLiteral("abc…")) + 4;
    }
    const QFontMetrics fm(req.style.font);
    for (int layer = 0; layer < 2; ++layer) {
        LayerPixels& target = frame->layers[layer];
        if (target.isNull())
            continue;
        // Labels stay inside the event area, as the rows' pixels.
        const QRect events(req.labelWidth, 0, width, target.height());
        const auto blit
            = [&](const QImage& img, int x, int y) { target.blit(img, QPoint(req.labelWidth + x, y), events); };
        for (const Label& lab : labels[layer]) {
            if (lab.rect.width() < minText)
                continue;
            const int bucket = (lab.rect.width() - 4) & ~7;
            const int x = lab.rect.left() + 2;
            // A folded run: the count from glyphs, then the name's own cached label (elided to
            // what is left), or "N × …" when no readable part of the name fits; a run too narrow
            // even for that has no label. No text is laid out for a count.
            // (Buckets of names are positive: kFitsBucket is a key of its own.)
            if (lab.count > 1) {
                const int pw = prefixes.width(lab.count);
                const QImage* name = bucket - pw > 0
                    ? sliceLabelImage(s, req.snapshot, {lab.name, 0, bucket - pw, lab.fill, lab.text}, req.style.font)
                    : nullptr;
                const bool ellipsis = !name;
                if (ellipsis && prefixes.width(lab.count, true) > bucket)
                    continue;
                const QImage& prefix = prefixes.image(lab.count, lab.fill, lab.text, ellipsis);
                const int y = lab.rect.top() + (lab.rect.height() - prefix.height()) / 2;
                blit(prefix, x, y);
                if (name)
                    blit(*name, x + pw, y);
                ++frame->labelCount;
                continue;
            }
            const SliceLabelKey key {lab.name, lab.count, bucket, lab.fill, lab.text};
            const QImage* img = sliceLabelImage(s, req.snapshot, key, req.style.font);
            if (!img)
                continue;
            blit(*img, x, lab.rect.top() + (lab.rect.height() - img->height()) / 2);
            ++frame->labelCount;
        }
        // An idle note is drawn with QPainter onto the layer's pixels around the gap (a line of
        // text above and below it: what the text could reach) and laid over them.
        for (const Idle& i : idle[layer]) {
            const IdleNoteTexts::Note& note = idleNotes->at(i.gap);
            if (note.advance + 8 > i.rect.width())
                continue;
            const QRect at = i.rect.translated(req.labelWidth, 0);
            const QRect patch = at.adjusted(0, -fm.height(), 0, fm.height()).intersected(events);
            if (patch.isEmpty())
                continue;
            QImage under(patch.size(), QImage::Format_RGB32);
            target.compose(under.bits(), under.bytesPerLine(), -patch.topLeft(), patch);
            QPainter p(&under);
            p.setFont(req.style.font);
            p.setPen(QColor::fromRgb(req.style.mutedText));
            p.drawText(at.translated(-patch.topLeft()), Qt::AlignCenter, note.text);
            p.end();
            target.blit(under, patch.topLeft(), events);
        }
    }
    if (req.composeImages) {
        for (int layer = 0; layer < 2; ++layer)
            (void)frame->image(layer); // the frame is still this thread's alone
    }
    frame->buildMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    frame->buildCpuMs = threadCpuMs() - cpu0;
    return frame;
}

} // namespace ws

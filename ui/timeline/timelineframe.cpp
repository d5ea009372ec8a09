// SPDX-License-Identifier: MIT
#include "timeline/timelineframe.h"

#include "timeline/colorscheme.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ws {

namespace {

// Lighter shade for a counter's area; its top edge keeps the full colour.
QRgb lighter(QRgb c)
{
    return qRgb((qRed(c) + 2 * 255) / 3, (qGreen(c) + 2 * 255) / 3, (qBlue(c) + 2 * 255) / 3);
}

class BatchMap {
public:
    explicit BatchMap(FrameLayer& layer)
        : m_layer(layer)
    {
    }
    void add(QRgb color, const QRect& r)
    {
        auto it = m_index.find(color);
        if (it == m_index.end()) {
            it = m_index.emplace(color, m_layer.colors.size()).first;
            m_layer.colors.push_back(color);
            m_layer.rects.emplace_back();
        }
        m_layer.rects[it->second].push_back(r);
    }

private:
    FrameLayer& m_layer;
    std::unordered_map<QRgb, size_t> m_index;
};

void buildLaneRow(const SessionSnapshot& s, const FrameRequest& req, const FrameRow& row, FrameLayer& layer,
    BatchMap& batches, FrameRowHits& hits, TimelineFrame& frame)
{
    const TimelineLane& lane = s.model->lanes[static_cast<size_t>(row.lane)];
    foldLane(lane.start, lane.end, s.indexFor(static_cast<size_t>(row.lane)), req.coords, hits.rects);
    const int width = req.coords.width();
    const int top = row.y + 1;
    const int h = std::max(row.height - 2, 1);
    const LodRect* prev = nullptr;
    for (const LodRect& r : hits.rects) {
        const int x0 = std::max(r.x0, 0);
        int x1 = std::min(r.x1, width);
        // A one-pixel gap between back-to-back single events keeps neighbours with the same
        // colour apart (Perfetto's SLICE_GAP_PX); runs and thin slices keep every pixel.
        if (r.count == 1 && x1 - x0 >= 4)
            x1 -= 1;
        if (x1 <= x0)
            continue;
        const QRgb color = s.color(lane.name[r.widest]);
        const QRect rect(x0, top, x1 - x0, h);
        batches.add(color, rect);
        ++frame.rectCount;
        frame.eventsCovered += r.count;
        if (r.count > 1 && x1 - x0 >= 4)
            layer.folded.push_back(rect);
        if (x1 - x0 >= kMinLabelPx)
            layer.labels.push_back({rect, lane.name[r.widest], r.count, ColorScheme::textOn(color)});
        if (row.gpu && prev) {
            const int gx0 = std::max(prev->x1, 0);
            const int gx1 = std::min(r.x0, width);
            if (gx1 - gx0 >= kMinIdleLabelPx) {
                const TimeNs gap = lane.start[r.first] - lane.end[prev->first + prev->count - 1];
                layer.idle.push_back({QRect(gx0, top, gx1 - gx0, h), gap});
            }
        }
        prev = &r;
    }
}

void buildCounterRow(const SessionSnapshot& s, const FrameRequest& req, const FrameRow& row, BatchMap& batches,
    FrameRowHits& hits, TimelineFrame& frame)
{
    const CounterSeries& c = s.counters[static_cast<size_t>(row.counter)];
    c.columns(req.coords, s.end(), hits.columns);
    const double lo = std::min(0.0, c.minValue());
    const double hi = std::max(c.maxValue(), lo + 1e-12);
    const int top = row.y + 3;
    const int bottom = row.y + row.height - 2;
    const double scale = static_cast<double>(bottom - top) / (hi - lo);
    const QRgb strong = ColorScheme::forName(c.name);
    const QRgb soft = lighter(strong);
    const auto yOf = [&](double v) { return bottom - static_cast<int>(std::lround((v - lo) * scale)); };
    // Area up to each column's maximum, and the min..max band in the strong colour: spikes
    // narrower than a pixel stay visible.
    int runStart = -1;
    int runY = 0;
    int runEnd = -1;
    const auto flush = [&] {
        if (runStart >= 0 && runY < bottom) {
            batches.add(soft, QRect(runStart, runY, runEnd - runStart, bottom - runY));
            ++frame.rectCount;
        }
    };
    for (const CounterColumn& col : hits.columns) {
        const int yMax = yOf(col.max);
        const int yMin = yOf(col.min);
        if (col.x == runEnd && yMax == runY) {
            ++runEnd;
        } else {
            flush();
            runStart = col.x;
            runEnd = col.x + 1;
            runY = yMax;
        }
        batches.add(strong, QRect(col.x, yMax, 1, std::max(yMin - yMax, 1)));
        ++frame.rectCount;
    }
    flush();
}

} // namespace

std::shared_ptr<TimelineFrame> buildTimelineFrame(const FrameRequest& req)
{
    QElapsedTimer timer;
    timer.start();
    auto frame = std::make_shared<TimelineFrame>();
    frame->generation = req.generation;
    frame->coords = req.coords;
    frame->snapshot = req.snapshot;
    if (!req.snapshot || !req.snapshot->model)
        return frame;
    const SessionSnapshot& s = *req.snapshot;
    BatchMap batches[2] = {BatchMap(frame->layers[0]), BatchMap(frame->layers[1])};
    frame->rows.reserve(req.rows.size());
    for (const FrameRow& row : req.rows) {
        if (req.cancel.isCancelled())
            return nullptr;
        FrameRowHits hits;
        hits.row = row;
        const int layer = row.layer == 0 ? 0 : 1;
        if (row.lane >= 0 && static_cast<size_t>(row.lane) < s.model->lanes.size())
            buildLaneRow(s, req, row, frame->layers[layer], batches[layer], hits, *frame);
        else if (row.counter >= 0 && static_cast<size_t>(row.counter) < s.counters.size())
            buildCounterRow(s, req, row, batches[layer], hits, *frame);
        frame->rows.push_back(std::move(hits));
    }
    frame->buildMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return frame;
}

} // namespace ws

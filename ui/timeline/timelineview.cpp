// SPDX-License-Identifier: MIT
#include "ui/timeline/timelineview.h"

#include "core/model/gpumetricsgaps.h"
#include "ui/session/kernelactions.h"
#include "ui/style/timeformat.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ws {

namespace {

// "kernel", "CUDA API call": what one event of its kind is called (core/timeline/trackkind.h).
QString eventKindLabel(EventTable table)
{
    const std::string_view label = trackKind(table).eventLabel;
    return QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
}

constexpr int kGroupHeight = 20;
constexpr int kLaneHeight = 22;
constexpr int kCounterHeight = 44;
constexpr int kIndent = 12; // per nesting level in the label column (timelineframe.cpp draws with it)
constexpr double kZoomStep = 0.8;
constexpr double kPanStep = 0.1;

} // namespace

TimelineView::TimelineView(SelectionModel* selection, TimelineRowModel* rows, QWidget* parent)
    : QWidget(parent)
    , m_selection(selection)
    , m_rows(rows)
    , m_viewport(selection)
    , m_scheduler(new FrameScheduler(
          [this] { return makeFrameRequest(); }, [this] { return m_snapshot && !isFrameCurrent(); }, this))
    , m_vscroll(new QScrollBar(Qt::Vertical, this))
    , m_colors(palette())
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(400, 200);
    // The first font measurement loads the font database (~15 ms): do it now, at start-up,
    // rather than in the first layout after a session opens.
    QFont bold = font();
    bold.setBold(true);
    (void)QFontMetrics(font()).horizontalAdvance(QStringLiteral("Process 0"));
    (void)QFontMetrics(bold).horizontalAdvance(QStringLiteral("Process 0"));
    m_vscroll->setSingleStep(kLaneHeight);
    connect(m_vscroll, &QScrollBar::valueChanged, this, [this] {
        if (!isFrameCurrent())
            requestFrame();
        update();
    });
    // A view change first asks for a frame; only if it is not there in a few ms is the old
    // one repainted moved into place, so a fast build costs one paint, not two.
    m_stalePaint.setSingleShot(true);
    m_stalePaint.setInterval(12);
    connect(&m_stalePaint, &QTimer::timeout, this, [this] {
        if (!isFrameCurrent())
            update();
    });
    connect(m_selection, &SelectionModel::viewRangeChanged, this, [this] {
        requestFrame();
        if (!m_stalePaint.isActive())
            m_stalePaint.start();
    });
    connect(m_selection, &SelectionModel::timeRangeChanged, this, qOverload<>(&QWidget::update));
    connect(m_selection, &SelectionModel::selectedEventChanged, this, [this](const EventSelection& e) {
        m_selectedDetails = {};
        if (e.isValid() && m_details)
            m_details->request(EventDetailsSource::Selection, e.lane, e.index);
        update();
    });
    connect(m_rows, &TimelineRowModel::rowsLayoutChanged, this, &TimelineView::relayout);
    // The window gives the row model a reloaded snapshot before the view: where the rows were
    // is remembered while the layout still matches the snapshot shown (reloadSnapshot).
    connect(m_rows, &QAbstractItemModel::modelAboutToBeReset, this, [this] { m_reloadAnchor = reloadAnchor(); });
    connect(m_scheduler, &FrameScheduler::frameBuilt, this, &TimelineView::onFrameBuilt);
}

TimelineView::~TimelineView()
{
    m_scheduler->shutdown();
}

void TimelineView::setDetailsSource(EventDetailsSource* details)
{
    m_details = details;
    if (m_details)
        connect(m_details, &EventDetailsSource::detailsReady, this, &TimelineView::onDetails);
}

void TimelineView::setEmptyMessage(const QString& message)
{
    m_emptyMessage = message;
    update();
}

void TimelineView::setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_scheduler->cancel();
    m_reloadAnchor.reset();
    m_snapshot = std::move(snapshot);
    if (m_snapshot) {
        m_viewport.setBounds(m_snapshot->begin(), m_snapshot->end());
        // A multi-run session opens on its trace, not on the replays seconds later.
        if (m_snapshot->openEnd > m_snapshot->openBegin
            && (m_snapshot->openBegin > m_snapshot->begin() || m_snapshot->openEnd < m_snapshot->end()))
            m_viewport.fitSpan(m_snapshot->openBegin, m_snapshot->openEnd);
    } else
        m_viewport.clearBounds();
    m_frame.reset();
    m_hover = {};
    m_selectedDetails = {};
    m_worstPaintMs = 0;
    relayout();
    m_vscroll->setValue(0);
    requestFrame();
    update();
}

namespace {

// The same row of two snapshots of one session: lanes are rebuilt on reload, their order may
// change when a run adds processes, their identity does not.
bool sameLane(const TimelineLane& a, const TimelineLane& b)
{
    return a.kind == b.kind && a.pid == b.pid && a.tid == b.tid && a.deviceId == b.deviceId && a.streamId == b.streamId
        && a.depth == b.depth && a.kernelId == b.kernelId && a.block == b.block && a.warp == b.warp;
}

// `event` of the previous snapshot in `now`: the lane with the same identity, the event with the
// same row at the same start; invalid when it is gone.
EventSelection findAgain(const EventSelection& event, const TimelineLane& was, const SessionSnapshot& now)
{
    EventSelection e;
    const auto& lanes = now.model->lanes;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const TimelineLane& lane = lanes[i];
        if (!sameLane(lane, was))
            continue;
        auto it = std::lower_bound(lane.start.begin(), lane.start.end(), event.start);
        for (; it != lane.start.end() && *it == event.start; ++it) {
            const auto index = static_cast<size_t>(it - lane.start.begin());
            if (lane.ref[index] == event.ref) {
                e.lane = static_cast<int>(i);
                e.index = static_cast<quint32>(index);
                e.ref = event.ref;
                e.start = lane.start[index];
                e.end = lane.endAt(index);
                e.name = now.qstr(lane.name[index]);
                return e;
            }
        }
    }
    return e;
}

} // namespace

int TimelineView::scrolledRowTop(int lane) const
{
    const auto it = m_laneRow.constFind(lane);
    if (it == m_laneRow.constEnd() || m_laneLayer.value(lane) == 0)
        return kNoRow;
    return rowRect(m_scrolled[it.value()]).top();
}

TimelineView::ReloadAnchor TimelineView::reloadAnchor() const
{
    const EventSelection e = m_selection->selectedEvent();
    return {m_vscroll->value(), e.isValid() ? scrolledRowTop(e.lane) : kNoRow};
}

void TimelineView::reloadSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    const TimeRange view = m_selection->viewRange();
    const EventSelection selected = m_selection->selectedEvent();
    // Captured when the row model was reset, if it was, else now.
    const ReloadAnchor anchor = std::exchange(m_reloadAnchor, std::nullopt).value_or(reloadAnchor());
    std::optional<TimelineLane> selectedLane;
    if (selected.isValid() && m_snapshot && static_cast<size_t>(selected.lane) < m_snapshot->model->lanes.size()) {
        const TimelineLane& l = m_snapshot->model->lanes[static_cast<size_t>(selected.lane)];
        selectedLane = TimelineLane {l.kind, l.pid, l.tid, l.deviceId, l.streamId, l.depth, l.kernelId, l.block, l.warp,
            l.role, l.label, {}, {}, {}, {}};
    }
    setSnapshot(std::move(snapshot));
    if (!m_snapshot)
        return;
    if (!view.isEmpty())
        m_viewport.setView(view.begin, view.end);
    m_vscroll->setValue(anchor.scroll);
    if (selectedLane) {
        const EventSelection again = findAgain(selected, *selectedLane, *m_snapshot);
        if (again.isValid()) {
            m_selection->setSelectedEvent(again);
            // Rows of a new process may come before the selected one: its row stays where it
            // was on screen, the rest of the scroll follows.
            const int top = scrolledRowTop(again.lane);
            if (top != kNoRow && anchor.selectedTop != kNoRow)
                m_vscroll->setValue(m_vscroll->value() + top - anchor.selectedTop);
        } else {
            m_selection->clearSelectedEvent();
        }
    }
    requestFrame();
    update();
}

// ---- layout ---------------------------------------------------------------------------

int TimelineView::rowHeight(const TimelineRowModel::Row& r) const
{
    switch (r.kind) {
    case TimelineRowModel::Kind::Group:
        return kGroupHeight;
    case TimelineRowModel::Kind::Counter:
        return kCounterHeight;
    case TimelineRowModel::Kind::Lane:
        break;
    }
    if (m_snapshot && r.lane >= 0 && static_cast<size_t>(r.lane) < m_snapshot->model->lanes.size())
        return laneKind(m_snapshot->model->lanes[static_cast<size_t>(r.lane)].kind).rowHeight;
    return kLaneHeight;
}

void TimelineView::relayout()
{
    // The row model takes a new snapshot before the view does (the window sets the rows
    // first): its rows name lanes of a snapshot this view does not have yet, possibly more of
    // them. setSnapshot() lays out again once both agree.
    if (m_rows->snapshot() && m_rows->snapshot() != m_snapshot)
        return;
    m_pinned.clear();
    m_scrolled.clear();
    m_laneRow.clear();
    m_laneLayer.clear();
    int y = 0;
    for (auto& r : m_rows->pinnedRows()) {
        const int h = rowHeight(r);
        if (r.lane >= 0) {
            m_laneRow.insert(r.lane, m_pinned.size());
            m_laneLayer.insert(r.lane, 0);
        }
        m_pinned.push_back({std::move(r), y, h, 0});
        y += h;
    }
    m_pinnedRowsHeight = y;
    // A pinned area never takes more than half the widget.
    m_pinnedHeight = m_pinned.empty() ? 0 : std::min(y + 3, std::max(height() - kRulerHeight, 0) / 2);
    y = 0;
    for (auto& r : m_rows->rows()) {
        const int h = rowHeight(r);
        // A lane shown only as a collapsed group's summary is found there (selection outline,
        // launch arrows).
        const int shown = r.lane >= 0 ? r.lane : r.summaryLane;
        if (shown >= 0 && !m_laneRow.contains(shown)) {
            m_laneRow.insert(shown, m_scrolled.size());
            m_laneLayer.insert(shown, 1);
        }
        // Lanes inside a collapsed group are reached through its header (an arrow from a
        // call on a hidden NVTX or driver row starts there).
        for (const int hidden : r.hiddenLanes) {
            if (!m_laneRow.contains(hidden)) {
                m_laneRow.insert(hidden, m_scrolled.size());
                m_laneLayer.insert(hidden, 1);
            }
        }
        m_scrolled.push_back({std::move(r), y, h, 1});
        y += h;
    }
    m_contentHeight = y;
    // The label column fits the longest name (processes like "python3 train.py --config ..."
    // would otherwise be cut), within a quarter of the widget.
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(font());
    const QFontMetrics fmBold(bold);
    int wanted = 0;
    int measured = 0;
    for (const auto* list : {&m_pinned, &m_scrolled}) {
        for (const LayoutRow& r : *list) {
            if (++measured > 2000)
                break;
            const bool group = r.row.kind == TimelineRowModel::Kind::Group;
            const QString& text = r.layer == 0 && group ? r.row.path : r.row.label;
            const int depth = r.layer == 0 ? 0 : r.row.depth;
            // + 18: 6 px right margin, and up to 8 more because the frame renders labels into
            // widths snapped down to 8 px (timelineframe.cpp labelImage).
            wanted = std::max(
                wanted, 4 + depth * kIndent + (group ? 12 : 0) + (group ? fmBold : fm).horizontalAdvance(text) + 18);
        }
    }
    m_labelWidth = std::clamp(
        wanted, kDefaultLabelWidth * 2 / 3, std::max(kDefaultLabelWidth * 2 / 3, std::min(440, width() / 4)));
    ++m_layoutGeneration;
    updateScrollBar();
    requestFrame();
    update();
}

void TimelineView::updateScrollBar()
{
    const int viewport = scrolledArea().height();
    m_vscroll->setRange(0, std::max(0, m_contentHeight - viewport + kLaneHeight));
    m_vscroll->setPageStep(std::max(viewport, 1));
    const int w = m_vscroll->sizeHint().width();
    m_vscroll->setGeometry(width() - w, kRulerHeight, w, height() - kRulerHeight);
}

QRect TimelineView::pinnedArea() const
{
    return QRect(0, kRulerHeight, width() - m_vscroll->width(), m_pinnedHeight);
}

QRect TimelineView::scrolledArea() const
{
    const int top = kRulerHeight + m_pinnedHeight;
    return QRect(0, top, width() - m_vscroll->width(), std::max(height() - top, 0));
}

QRect TimelineView::eventArea() const
{
    const int right = width() - m_vscroll->width();
    return QRect(m_labelWidth, kRulerHeight, std::max(right - m_labelWidth, 1), std::max(height() - kRulerHeight, 0));
}

int TimelineView::layerTop(int layer) const
{
    return layer == 0 ? kRulerHeight : scrolledArea().top() - m_vscroll->value();
}

TimelineCoordinates TimelineView::coordinates() const
{
    return m_viewport.coordinates(eventArea().width());
}

QRect TimelineView::rowRect(const LayoutRow& r) const
{
    return QRect(0, layerTop(r.layer) + r.y, width() - m_vscroll->width(), r.h);
}

const TimelineView::LayoutRow* TimelineView::rowAt(const QPoint& pos) const
{
    if (pinnedArea().contains(pos)) {
        for (const auto& r : m_pinned) {
            if (rowRect(r).contains(pos))
                return &r;
        }
        return nullptr;
    }
    if (!scrolledArea().contains(pos))
        return nullptr;
    const int y = pos.y() - layerTop(1);
    const auto it
        = std::upper_bound(m_scrolled.begin(), m_scrolled.end(), y, [](int v, const LayoutRow& r) { return v < r.y; });
    if (it == m_scrolled.begin())
        return nullptr;
    const LayoutRow& r = *std::prev(it);
    return y < r.y + r.h ? &r : nullptr;
}

void TimelineView::setDependenciesVisible(bool visible)
{
    if (visible == m_showDependencies)
        return;
    m_showDependencies = visible;
    update();
}

QRect TimelineView::laneRect(int lane) const
{
    const auto it = m_laneRow.constFind(lane);
    if (it == m_laneRow.constEnd())
        return {};
    const int layer = m_laneLayer.value(lane);
    const LayoutRow& r = layer == 0 ? m_pinned[it.value()] : m_scrolled[it.value()];
    const QRect rr = rowRect(r);
    const QRect area = layer == 0 ? pinnedArea() : scrolledArea();
    return QRect(m_labelWidth, rr.top(), eventArea().width(), rr.height()).intersected(area);
}

// ---- frames ---------------------------------------------------------------------------

int TimelineView::rowsEnd() const
{
    return scrolledArea().top() + (m_frame ? m_frame->layers[1].height() : 0);
}

bool TimelineView::plainBelowRows() const
{
    if (!m_snapshot || !m_snapshot->model || !m_snapshot->hasGpuActivity() || !m_selection->timeRange().isEmpty()
        || m_selection->selectedEvent().isValid() || (m_showDependencies && !m_snapshot->dependencies.empty()))
        return false;
    return std::none_of(m_snapshot->model->processes.begin(), m_snapshot->model->processes.end(),
        [](const ProcessInfo& p) { return !processExitNote(p).empty(); });
}

bool TimelineView::isFrameCurrent() const
{
    if (!m_frame || m_frame->snapshot != m_snapshot || m_frameLayoutGeneration != m_layoutGeneration)
        return false;
    if (!(m_frame->coords == coordinates()))
        return false;
    // The images cover exactly the pinned area and the visible part of the scrolling rows.
    return m_frame->layerTop[1] == m_vscroll->value() && m_frame->layerHeight[1] == scrolledArea().height()
        && m_frame->layerHeight[0] == m_pinnedHeight;
}

void TimelineView::requestFrame()
{
    if (m_snapshot)
        m_scheduler->request();
}

std::optional<FrameRequest> TimelineView::makeFrameRequest()
{
    if (!m_snapshot)
        return std::nullopt;
    FrameRequest req;
    req.snapshot = m_snapshot;
    req.coords = coordinates();
    // A pan's frame folds only what it newly shows (the previous frame is immutable: the worker
    // reads its draw lists while this thread paints it).
    if (m_frame && m_frame->snapshot == m_snapshot)
        req.previous = m_frame;
    req.style.background = m_colors.background.rgba();
    req.style.groupHeader = m_colors.groupHeader.rgba();
    req.style.grid = m_colors.grid.rgba();
    req.style.hatch = m_colors.hatch.rgba();
    req.style.mutedText = m_colors.mutedText.rgba();
    req.style.text = m_colors.text.rgba();
    req.style.font = font();
    req.labelWidth = m_labelWidth;
    // RasterBuffer writes rows only at one device pixel per pixel: elsewhere the frame's image
    // is drawn, and composed on the worker rather than on this thread.
    req.composeImages = devicePixelRatioF() != 1.0;
    const auto plain = [this](int index) { return ((index % 2) ? m_colors.rowAlternate : m_colors.background).rgb(); };
    const auto frameRow = [&](const LayoutRow& r, int index, int layer) {
        FrameRow f;
        f.group = r.row.kind == TimelineRowModel::Kind::Group;
        f.lane = f.group ? r.row.summaryLane : r.row.lane;
        f.counter = r.row.counter;
        f.y = r.y;
        f.height = r.h;
        f.layer = layer;
        f.gpu = r.row.gpu;
        f.background = f.group ? m_colors.groupHeader.rgb() : (r.row.gpu ? m_colors.gpuIdle.rgb() : plain(index));
        f.labelBackground = plain(index);
        f.label = layer == 0 && r.row.kind == TimelineRowModel::Kind::Group ? r.row.path : r.row.label;
        if (r.row.kind == TimelineRowModel::Kind::Counter && r.row.counter >= 0) {
            const CounterSeries& cs = m_snapshot->counters[static_cast<size_t>(r.row.counter)];
            f.label += QStringLiteral("\nmax %1").arg(cs.maxValue(), 0, 'g', 4);
        }
        f.depth = layer == 0 ? 0 : r.row.depth;
        f.expanded = r.row.expanded;
        return f;
    };
    req.layerTop[0] = 0;
    req.layerHeight[0] = m_pinnedHeight;
    for (size_t i = 0; i < m_pinned.size(); ++i) {
        const LayoutRow& r = m_pinned[i];
        req.rows.push_back(frameRow(r, static_cast<int>(i), 0));
    }
    const int top = m_vscroll->value();
    const int viewport = scrolledArea().height();
    req.layerTop[1] = top;
    req.layerHeight[1] = viewport;
    // The first row decides the fill below the last one; keep it the plain background.
    const auto first = std::lower_bound(
        m_scrolled.begin(), m_scrolled.end(), top, [](const LayoutRow& r, int v) { return r.y + r.h <= v; });
    for (auto it = first; it != m_scrolled.end() && it->y < top + viewport; ++it) {
        const int index = static_cast<int>(it - m_scrolled.begin());
        req.rows.push_back(frameRow(*it, index, 1));
    }
    m_buildLayoutGeneration = m_layoutGeneration;
    return req;
}

void TimelineView::onFrameBuilt(std::shared_ptr<TimelineFrame> f)
{
    // The scheduler asks for the next frame afterwards if this one is already stale.
    if (f && f->snapshot == m_snapshot) {
        m_frame = std::move(f);
        m_frameLayoutGeneration = m_buildLayoutGeneration;
        m_lastBuildMs = m_frame->buildMs;
        m_stalePaint.stop();
        // Below the rows nothing changes from frame to frame while no overlay reaches there:
        // repaint only what is above (the copy and the fill below cost the GUI thread alike).
        const int from = isFrameCurrent() && plainBelowRows() ? std::max(rowsEnd(), m_plainFrom) : height();
        if (from < height())
            update(QRect(0, 0, width(), from));
        else
            update();
        emit frameReady(m_lastBuildMs);
    }
}

// ---- view changes ---------------------------------------------------------------------

void TimelineView::zoomBy(double factor, double anchorX)
{
    m_viewport.zoomBy(factor, anchorX, eventArea().width());
}

void TimelineView::panBy(double fractionOfWidth)
{
    m_viewport.panBy(fractionOfWidth);
}

void TimelineView::fitAll()
{
    if (m_snapshot)
        m_viewport.fitAll();
}

void TimelineView::fitSelection()
{
    m_viewport.fitSelection();
}

void TimelineView::fitEvent(const EventSelection& e)
{
    if (e.isValid())
        m_viewport.fitSpan(e.start, e.end);
}

void TimelineView::revealEvent(const EventSelection& e)
{
    if (!e.isValid())
        return;
    m_viewport.reveal(e.start, e.end);
    scrollToLane(e.lane);
}

void TimelineView::scrollToLane(int lane)
{
    const auto it = m_laneRow.constFind(lane);
    if (it == m_laneRow.constEnd() || m_laneLayer.value(lane) == 0)
        return;
    const LayoutRow& r = m_scrolled[it.value()];
    const int viewport = scrolledArea().height();
    if (r.y < m_vscroll->value() || r.y + r.h > m_vscroll->value() + viewport)
        m_vscroll->setValue(std::max(0, r.y - viewport / 3));
}

// ---- hit testing and tooltips ---------------------------------------------------------

TimelineView::Hit TimelineView::hitTest(const QPoint& pos) const
{
    Hit hit;
    const LayoutRow* row = rowAt(pos);
    if (!row || !m_snapshot || pos.x() < m_labelWidth || !isFrameCurrent())
        return hit;
    hit.rowId = row->row.id;
    const int x = pos.x() - m_labelWidth;
    for (const FrameRowHits& fr : m_frame->rows) {
        if (fr.row.layer != row->layer || fr.row.y != row->y)
            continue;
        if (fr.row.lane >= 0) {
            // Rects are sorted by x0; a wide event may share its first column with the run
            // before it, so take the last rect starting at or before x that contains it.
            const auto it = std::upper_bound(
                fr.rects.begin(), fr.rects.end(), x, [](int v, const LodRect& r) { return v < r.x0; });
            for (auto r = it; r != fr.rects.begin();) {
                --r;
                if (x >= r->x0 && x < r->x1) {
                    hit.lane = fr.row.lane;
                    hit.first = r->first;
                    hit.count = r->count;
                    hit.widest = r->widest;
                    const int top = layerTop(row->layer) + row->y;
                    hit.rect = QRect(
                        m_labelWidth + std::max(r->x0, 0), top, std::max(r->x1 - std::max(r->x0, 0), 1), row->h);
                    return hit;
                }
                if (r->x1 <= x && r->x0 < x - 1)
                    break;
            }
        } else if (fr.row.counter >= 0) {
            const auto it = std::lower_bound(
                fr.columns.begin(), fr.columns.end(), x, [](const CounterColumn& c, int v) { return c.x < v; });
            if (it != fr.columns.end() && it->x == x) {
                hit.counter = fr.row.counter;
                hit.column = x;
                hit.value = it->last;
                hit.minValue = it->min;
                hit.maxValue = it->max;
                hit.rect = QRect(pos.x(), layerTop(row->layer) + row->y, 1, row->h);
            }
        }
        return hit;
    }
    return hit;
}

EventSelection TimelineView::selectionFor(int lane, quint32 index) const
{
    EventSelection e;
    if (!m_snapshot || lane < 0)
        return e;
    const TimelineLane& l = m_snapshot->model->lanes[static_cast<size_t>(lane)];
    e.lane = lane;
    e.index = index;
    e.ref = l.ref[index];
    e.start = l.start[index];
    e.end = l.endAt(index);
    e.name = m_snapshot->qstr(l.name[index]);
    return e;
}

QString TimelineView::tooltipFor(const Hit& hit) const
{
    const TimeNs origin = m_snapshot->begin();
    if (hit.isCounter()) {
        const CounterSeries& c = m_snapshot->counters[static_cast<size_t>(hit.counter)];
        const QString unit = QString::fromStdString(c.unit);
        const TimelineCoordinates coords = coordinates();
        QString s = QStringLiteral("<b>%1</b><br>at +%2<br>value %3 %4")
                        .arg(QString::fromStdString(c.name).toHtmlEscaped(),
                            formatDuration(coords.xToTime(hit.column) - origin))
                        .arg(hit.value, 0, 'g', 4)
                        .arg(unit.toHtmlEscaped());
        if (hit.minValue != hit.maxValue)
            s += QStringLiteral("<br>range in this pixel: %1 – %2 %3")
                     .arg(hit.minValue, 0, 'g', 4)
                     .arg(hit.maxValue, 0, 'g', 4)
                     .arg(unit.toHtmlEscaped());
        if (const CounterGap* g = c.gapAt(coords.xToTime(hit.column)))
            s += QStringLiteral("<br><b>no samples</b> for %1 (+%2 to +%3): %4")
                     .arg(formatDuration(g->end - g->start), formatDuration(g->start - origin),
                         formatDuration(g->end - origin), QString::fromUtf8(gpuMetricsGapReason(g->reason)));
        return s;
    }
    const TimelineLane& l = m_snapshot->model->lanes[static_cast<size_t>(hit.lane)];
    if (hit.count > 1) {
        const quint32 last = hit.first + hit.count - 1;
        return QStringLiteral("<b>%1 events</b> too small to draw apart at this zoom<br>"
                              "from +%2 to +%3 (%4)<br>longest: %5 (%6)<br>"
                              "<i>double-click or zoom in (W) to see them</i>")
            .arg(formatCount(hit.count), formatDuration(l.start[hit.first] - origin),
                formatDuration(l.endAt(last) - origin), formatDuration(l.endAt(last) - l.start[hit.first]),
                m_snapshot->qstr(l.name[hit.widest]).toHtmlEscaped(),
                formatDuration(l.endAt(hit.widest) - l.start[hit.widest]));
    }
    const quint32 i = hit.first;
    QString s = QStringLiteral("<b>%1</b><br><i>%2</i> on %3")
                    .arg(m_snapshot->qstr(l.name[i]).toHtmlEscaped(), eventKindLabel(l.ref[i].table()),
                        QString::fromStdString(l.label).toHtmlEscaped());
    s += QStringLiteral("<table>");
    const EventDetails* d = m_details ? m_details->cached(hit.lane, i) : nullptr;
    if (d) {
        for (const auto& [k, v] : d->fields)
            s += QStringLiteral("<tr><td>%1&nbsp;</td><td>%2</td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
    } else {
        s += QStringLiteral("<tr><td>Start&nbsp;</td><td>+%1</td></tr><tr><td>Duration&nbsp;</td><td>%2</td></tr>")
                 .arg(formatDuration(l.start[i] - origin), formatDuration(l.endAt(i) - l.start[i]));
    }
    s += QStringLiteral("</table>");
    // A launch of a profile or PC-sampling run was measured on behalf of a traced launch.
    if (l.ref[i].table() == EventTable::Kernel) {
        const int64_t traced = m_snapshot->tracedLaunchOf(l.ref[i].rowid());
        if (traced != l.ref[i].rowid())
            s += tr("<i>replayed for traced launch #%1: the panels show its metrics there</i><br>").arg(traced);
    }
    if (!d && m_snapshot->hasFile)
        s += QStringLiteral("<i>reading details…</i>");
    return s;
}

void TimelineView::showTooltip(const QPoint& pos, const QPoint& globalPos)
{
    m_hover = hitTest(pos);
    m_tooltipGlobal = globalPos;
    if (!m_hover.isEvent() && !m_hover.isCounter()) {
        // A row's label: its whole path, and what the row is where the label alone does not say.
        const LayoutRow* row = pos.x() < m_labelWidth ? rowAt(pos) : nullptr;
        if (row && !row->row.explanation.isEmpty())
            QToolTip::showText(globalPos,
                QStringLiteral("<b>%1</b><br>%2")
                    .arg(row->row.path.toHtmlEscaped(), row->row.explanation.toHtmlEscaped()),
                this);
        else
            QToolTip::hideText();
        return;
    }
    if (m_hover.isEvent() && m_hover.count == 1 && m_details && !m_details->cached(m_hover.lane, m_hover.first))
        m_details->request(EventDetailsSource::Hover, m_hover.lane, m_hover.first);
    QToolTip::showText(globalPos, tooltipFor(m_hover), this, m_hover.rect);
}

void TimelineView::onDetails(int channel, const EventDetails& d)
{
    if (channel == EventDetailsSource::Hover) {
        if (QToolTip::isVisible() && m_hover.isEvent() && m_hover.count == 1 && m_hover.lane == d.lane
            && m_hover.first == d.index)
            QToolTip::showText(m_tooltipGlobal, tooltipFor(m_hover), this, m_hover.rect);
        return;
    }
    const EventSelection sel = m_selection->selectedEvent();
    if (sel.lane == d.lane && sel.index == d.index) {
        m_selectedDetails = d;
        update();
    }
}

// ---- painting -------------------------------------------------------------------------

void TimelineView::changeEvent(QEvent* e)
{
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::StyleChange)
        m_colors = ColorScheme(palette());
    if (e->type() == QEvent::FontChange || e->type() == QEvent::PaletteChange)
        requestFrame(); // text and colours are drawn into the frame
    QWidget::changeEvent(e);
}

void TimelineView::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    relayout();
}

void TimelineView::paintEvent(QPaintEvent* event)
{
    QElapsedTimer timer;
    timer.start();
    const double cpu0 = threadCpuMs();
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    // A current frame covers the whole event area: paint only around it. Otherwise the rows'
    // backgrounds go under the stale (moved) frame.
    const bool current = isFrameCurrent();
    if (!current)
        p.fillRect(rect(), m_colors.background);
    else if (m_contentHeight - m_vscroll->value() < scrolledArea().height() || m_vscroll->width() > 0)
        p.fillRect(QRect(width() - m_vscroll->width(), 0, m_vscroll->width(), height()), m_colors.background);
    if (!m_snapshot) {
        p.setPen(m_colors.mutedText);
        p.drawText(rect().adjusted(40, 40, -40, -40), Qt::AlignCenter | Qt::TextWordWrap, m_emptyMessage);
        return;
    }
    const TimelinePaintContext ctx = paintContext();
    const QRect& pinned = ctx.pinnedArea;
    const QRect& scrolled = ctx.scrolledArea;

    const bool haveFrame = m_frame && m_frame->snapshot == m_snapshot;
    if (!haveFrame) {
        m_rowPainter.paintBackgrounds(p, ctx, m_pinned, 0, pinned);
        m_rowPainter.paintBackgrounds(p, ctx, m_scrolled, 1, scrolled);
    }
    if (haveFrame) {
        for (const int layer : {0, 1})
            m_directLayers += m_rowPainter.paintFrame(p, ctx, *m_frame, layer, layer == 0 ? pinned : scrolled) ? 1 : 0;
    }
    m_rowPainter.paintGroupNotes(p, ctx, m_pinned, 0, pinned);
    m_rowPainter.paintGroupNotes(p, ctx, m_scrolled, 1, scrolled);
    if (m_pinnedHeight > 0) {
        p.fillRect(QRect(0, pinned.bottom() - 1, pinned.width(), 2), m_colors.mutedText);
    }
    OverlayPainter::State overlay;
    overlay.range = m_selection->timeRange();
    if (m_hover.isEvent() && isFrameCurrent())
        overlay.hover = m_hover.rect;
    overlay.selected = m_selection->selectedEvent();
    overlay.selectedDetails = &m_selectedDetails;
    if (m_showDependencies)
        m_dependencies.paint(
            p, ctx, [this](int lane) { return laneRect(lane); }, overlay.selected);
    m_overlays.paint(p, ctx, overlay, [this](int lane) { return laneRect(lane); });
    m_ruler.paint(p, ctx, overlay.range);
    m_overlays.paintNoGpuNotice(p, ctx);
    notePlainBelow(event->region(), current);
    m_lastPaintMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    m_lastPaintCpuMs = threadCpuMs() - cpu0;
    m_worstPaintMs = std::max(m_worstPaintMs, m_lastPaintMs);
    emit framePainted(m_lastPaintMs);
}

void TimelineView::notePlainBelow(const QRegion& painted, bool current)
{
    const int plainFrom = m_plainFrom;
    if (!current || !plainBelowRows()) {
        // Something other than the background may have been painted there.
        if (plainFrom < height() && painted.intersects(QRect(0, plainFrom, width(), height() - plainFrom)))
            m_plainFrom = std::numeric_limits<int>::max();
        return;
    }
    // This paint left the background at and below rowsEnd() wherever it painted; where it did
    // not, the pixels are plain from the earlier m_plainFrom on.
    const int end = rowsEnd();
    if (plainFrom <= end || (QRegion(0, end, width(), std::min(plainFrom, height()) - end) - painted).isEmpty())
        m_plainFrom = end;
}

TimelinePaintContext TimelineView::paintContext() const
{
    TimelinePaintContext ctx;
    ctx.snapshot = m_snapshot.get();
    ctx.colors = &m_colors;
    ctx.font = font();
    ctx.coords = coordinates();
    ctx.width = width();
    ctx.height = height();
    ctx.rulerHeight = kRulerHeight;
    ctx.labelWidth = m_labelWidth;
    ctx.scrollbarWidth = m_vscroll->width();
    ctx.scrollValue = m_vscroll->value();
    ctx.pinnedHeight = m_pinnedHeight;
    ctx.pinnedArea = pinnedArea();
    ctx.scrolledArea = scrolledArea();
    ctx.eventArea = eventArea();
    ctx.pointer = underMouse() ? m_mousePos : QPoint(-1, -1);
    return ctx;
}

// ---- input ----------------------------------------------------------------------------

bool TimelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto* he = static_cast<QHelpEvent*>(e);
        if (m_snapshot && m_drag == Drag::None)
            showTooltip(he->pos(), he->globalPos());
        return true;
    }
    return QWidget::event(e);
}

void TimelineView::mousePressEvent(QMouseEvent* e)
{
    setFocus();
    if (!m_snapshot || e->button() != Qt::LeftButton)
        return;
    m_pressPos = e->position().toPoint();
    m_pressView = m_selection->viewRange();
    m_pressCoords = coordinates();
    m_moved = false;
    const TimelineCoordinates& c = m_pressCoords;
    m_pressTime = c.xToTime(m_pressPos.x() - m_labelWidth);
    if (m_pressPos.y() < kRulerHeight && m_pressPos.x() >= m_labelWidth)
        m_drag = Drag::Ruler;
    else if (m_pressPos.x() >= m_labelWidth && (e->modifiers() & Qt::ShiftModifier))
        m_drag = Drag::Range;
    else if (m_pressPos.x() >= m_labelWidth)
        m_drag = Drag::Pan;
    else
        m_drag = Drag::None;
}

bool TimelineView::pointerOverTimeline() const
{
    return underMouse();
}

void TimelineView::leaveEvent(QEvent* e)
{
    // Labels shown only near the pointer go when it leaves.
    update();
    QWidget::leaveEvent(e);
}

void TimelineView::mouseMoveEvent(QMouseEvent* e)
{
    const QPoint pos = e->position().toPoint();
    m_mousePos = pos;
    if (m_drag == Drag::None) {
        // The selected event's launch label shows while the pointer is near it: repaint the
        // overlay (the frame image is reused) as the pointer moves.
        if (m_selection->selectedEvent().isValid())
            update();
        if (m_hover.isEvent() || m_hover.isCounter()) {
            const Hit h = hitTest(pos);
            if (h.lane != m_hover.lane || h.first != m_hover.first || h.counter != m_hover.counter
                || h.column != m_hover.column) {
                m_hover = {};
                update();
                if (QToolTip::isVisible())
                    showTooltip(pos, e->globalPosition().toPoint());
            }
        }
        return;
    }
    if ((pos - m_pressPos).manhattanLength() > 3)
        m_moved = true;
    if (!m_moved)
        return;
    const TimelineCoordinates c = m_pressCoords;
    if (m_drag == Drag::Pan) {
        QToolTip::hideText();
        // Whole pixels on the grid of the view the drag started from.
        m_viewport.showPanned(c.shiftedByPixels(m_pressPos.x() - pos.x()), m_pressView.duration());
    } else {
        const TimeNs t = c.xToTime(pos.x() - m_labelWidth);
        m_selection->setTimeRange({std::min(t, m_pressTime), std::max(t, m_pressTime)});
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e)
{
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (!m_snapshot || e->button() != Qt::LeftButton)
        return;
    const QPoint pos = e->position().toPoint();
    if (drag == Drag::None && !m_moved) {
        // Label column: a click on a group opens or closes it.
        if (const LayoutRow* row = rowAt(pos); row && row->row.kind == TimelineRowModel::Kind::Group)
            m_rows->setExpanded(m_rows->indexForId(row->row.id), !row->row.expanded);
        return;
    }
    if (m_moved || drag != Drag::Pan)
        return;
    const Hit hit = hitTest(pos);
    if (hit.isEvent()) {
        // A folded run selects its longest member; double-click opens the run.
        m_selection->setSelectedEvent(selectionFor(hit.lane, hit.count == 1 ? hit.first : hit.widest));
    } else if (const LayoutRow* row = rowAt(pos); row && row->row.kind == TimelineRowModel::Kind::Group) {
        m_rows->setExpanded(m_rows->indexForId(row->row.id), !row->row.expanded);
    } else {
        m_selection->clearSelectedEvent();
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (!m_snapshot || e->button() != Qt::LeftButton)
        return;
    const Hit hit = hitTest(e->position().toPoint());
    if (!hit.isEvent())
        return;
    const TimelineLane& l = m_snapshot->model->lanes[static_cast<size_t>(hit.lane)];
    if (hit.count == 1) {
        const EventSelection sel = selectionFor(hit.lane, hit.first);
        m_selection->setSelectedEvent(sel);
        fitEvent(sel);
    } else {
        const quint32 last = hit.first + hit.count - 1;
        EventSelection run;
        run.lane = hit.lane;
        run.start = l.start[hit.first];
        run.end = l.endAt(last);
        fitEvent(run);
    }
}

void TimelineView::wheelEvent(QWheelEvent* e)
{
    if (!m_snapshot)
        return;
    const QPoint delta = e->angleDelta();
    const double x = e->position().x() - m_labelWidth;
    if (e->modifiers() & Qt::ControlModifier) {
        zoomBy(std::pow(kZoomStep, delta.y() / 120.0), x);
    } else if ((e->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        panBy(-d / 120.0 * kPanStep);
    } else {
        m_vscroll->setValue(m_vscroll->value() - delta.y() / 120 * 3 * kLaneHeight);
    }
    e->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* e)
{
    if (!m_snapshot) {
        QWidget::keyPressEvent(e);
        return;
    }
    // Zoom about the pointer while it is over the events, else about the centre (the last
    // position seen is stale once the pointer has left).
    const double anchor
        = pointerOverTimeline() && eventArea().contains(m_mousePos) ? m_mousePos.x() - m_labelWidth : -1;
    switch (e->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(kZoomStep, anchor);
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomBy(1.0 / kZoomStep, anchor);
        break;
    case Qt::Key_A:
    case Qt::Key_Left:
        panBy(-kPanStep);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        panBy(kPanStep);
        break;
    case Qt::Key_Up:
        m_vscroll->setValue(m_vscroll->value() - kLaneHeight);
        break;
    case Qt::Key_Down:
        m_vscroll->setValue(m_vscroll->value() + kLaneHeight);
        break;
    case Qt::Key_PageUp:
        m_vscroll->setValue(m_vscroll->value() - m_vscroll->pageStep());
        break;
    case Qt::Key_PageDown:
        m_vscroll->setValue(m_vscroll->value() + m_vscroll->pageStep());
        break;
    case Qt::Key_Home:
        fitAll();
        break;
    case Qt::Key_F:
        fitSelection();
        break;
    case Qt::Key_Escape:
        m_selection->clearTimeRange();
        m_selection->clearSelectedEvent();
        break;
    case Qt::Key_N:
        if (e->modifiers() & Qt::ShiftModifier)
            emit previousOccurrenceRequested();
        else
            emit nextOccurrenceRequested();
        break;
    default:
        QWidget::keyPressEvent(e);
        return;
    }
    e->accept();
}

void TimelineView::addWarpBlockChooser(QMenu& menu, const QModelIndex& group)
{
    // A kernel's warp roles show one block at a time: step through them or pick one (the
    // list is thinned to about 64 entries for large grids; stepping reaches every block).
    const QList<int> blocks = m_rows->warpBlocks(group);
    if (blocks.isEmpty())
        return;
    const int current = m_rows->warpBlock(group);
    const auto at = blocks.indexOf(current);
    menu.addAction(
            tr("Previous block"), this, [this, group, b = blocks.value(at - 1, -1)] { m_rows->setWarpBlock(group, b); })
        ->setEnabled(at > 0);
    menu.addAction(
            tr("Next block"), this, [this, group, b = blocks.value(at + 1, -1)] { m_rows->setWarpBlock(group, b); })
        ->setEnabled(at + 1 < blocks.size());
    QMenu* choose = menu.addMenu(tr("Block"));
    const auto stride = std::max<qsizetype>(1, blocks.size() / 64);
    for (qsizetype i = 0; i < blocks.size(); i += stride) {
        QAction* a = choose->addAction(
            tr("block %1").arg(blocks[i]), this, [this, group, b = blocks[i]] { m_rows->setWarpBlock(group, b); });
        a->setCheckable(true);
        a->setChecked(blocks[i] == current);
    }
}

qint64 TimelineView::kernelAt(const QPoint& pos) const
{
    if (!m_snapshot || !eventArea().contains(pos))
        return -1;
    const Hit hit = hitTest(pos);
    if (!hit.isEvent())
        return -1;
    const TimelineLane& lane = m_snapshot->model->lanes[static_cast<size_t>(hit.lane)];
    // A LOD bucket may hold many events: the widest one is what the tooltip names.
    const EventRef ref = lane.ref[hit.count > 1 ? hit.widest : hit.first];
    return ref.table() == EventTable::Kernel ? ref.rowid() : -1;
}

void TimelineView::addKernelActions(QMenu& menu, qint64 kernelId)
{
    if (!m_kernelActions || kernelId < 0)
        return;
    // A profiled launch is collected again for the traced launch it was measured for.
    const qint64 traced = m_snapshot ? m_snapshot->tracedLaunchOf(kernelId) : kernelId;
    m_kernelActions->addTo(&menu, traced);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e)
{
    QMenu menu(this);
    fillContextMenu(menu, e->pos());
    menu.exec(e->globalPos());
}

void TimelineView::fillContextMenu(QMenu& menu, const QPoint& pos)
{
    if (const qint64 kernel = kernelAt(pos); kernel >= 0 && m_kernelActions) {
        addKernelActions(menu, kernel);
        menu.addSeparator();
    }
    const LayoutRow* row = rowAt(pos);
    if (row) {
        const QModelIndex index = m_rows->indexForId(row->row.id);
        const QString name = row->row.label;
        if (row->row.kind == TimelineRowModel::Kind::Group) {
            menu.addAction(row->row.expanded ? tr("Collapse \"%1\"").arg(name) : tr("Expand \"%1\"").arg(name), this,
                [this, index, expanded = row->row.expanded] { m_rows->setExpanded(index, !expanded); });
            addWarpBlockChooser(menu, index);
        } else {
            menu.addAction(row->row.pinned ? tr("Unpin \"%1\"").arg(name) : tr("Pin \"%1\" to the top").arg(name), this,
                [this, index, pinned = row->row.pinned] { m_rows->setPinned(index, !pinned); });
        }
        menu.addAction(tr("Hide \"%1\"").arg(name), this, [this, index] { m_rows->setVisible(index, false); });
        menu.addAction(tr("Move up"), this, [this, index] { m_rows->moveUp(index); })->setEnabled(index.row() > 0);
        menu.addAction(tr("Move down"), this, [this, index] { m_rows->moveDown(index); })
            ->setEnabled(index.row() + 1 < m_rows->rowCount(index.parent()));
        menu.addSeparator();
    }
    menu.addAction(tr("Show all hidden rows"), m_rows, &TimelineRowModel::showAll);
    menu.addAction(tr("Expand all"), this, [this] { m_rows->expandAll(true); });
    menu.addAction(tr("Collapse all"), this, [this] { m_rows->expandAll(false); });
}

void TimelineView::setKernelActions(KernelActions* actions)
{
    m_kernelActions = actions;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/compare/comparetimeline.h"

#include "core/ranking/compactname.h"
#include "ui/panels/panelformat.h"
#include "ui/style/timeformat.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ws {

namespace {

constexpr int kLaneHeight = 22;
constexpr int kNvtxHeight = 16;
constexpr int kSideGap = 10;
constexpr int kMaxNvtxDepth = 3;

} // namespace

CompareTimeline::CompareTimeline(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("compareTimeline"));
    setMouseTracking(true);
    setMinimumHeight(160);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

TimeNs CompareTimeline::origin(int side) const
{
    if (!m_comparison)
        return 0;
    return side == 0 ? m_comparison->iterationsA.origin : m_comparison->iterationsB.origin;
}

void CompareTimeline::setComparison(
    const compare::CompareSession* a, const compare::CompareSession* b, const compare::Comparison* comparison)
{
    m_a = a;
    m_b = b;
    m_comparison = comparison;
    m_pairOfA.assign(a ? a->keys.size() : 0, -1);
    m_pairOfB.assign(b ? b->keys.size() : 0, -1);
    if (comparison) {
        for (size_t i = 0; i < comparison->matching.pairs.size(); ++i) {
            const auto& p = comparison->matching.pairs[i];
            if (p.keyA < m_pairOfA.size())
                m_pairOfA[p.keyA] = static_cast<int>(i);
            if (p.keyB < m_pairOfB.size())
                m_pairOfB[p.keyB] = static_cast<int>(i);
        }
    }
    for (int i = 0; i < 2; ++i) {
        m_sides[i].longest = 0;
        if (const auto* s = session(i)) {
            for (const auto& l : s->launches)
                m_sides[i].longest = std::max(m_sides[i].longest, l.duration());
        }
    }
    layoutLanes();
    fitAll();
}

void CompareTimeline::layoutLanes()
{
    m_lanes.clear();
    int y = m_rulerHeight + 4;
    for (int side = 0; side < 2; ++side) {
        const auto* s = session(side);
        if (!s)
            continue;
        const QString tag = side == 0 ? QStringLiteral("A") : QStringLiteral("B");
        // NVTX rows: the deepest path a launch has, up to kMaxNvtxDepth.
        uint32_t depth = 0;
        for (const auto& l : s->launches)
            depth = std::max(depth, l.rangeCount);
        depth = std::min<uint32_t>(depth, kMaxNvtxDepth);
        for (uint32_t d = 0; d < depth; ++d) {
            Lane lane;
            lane.side = side;
            lane.nvtx = true;
            lane.depth = static_cast<int>(d);
            lane.label = d == 0 ? tr("%1 NVTX").arg(tag) : QString();
            lane.top = y;
            lane.height = kNvtxHeight;
            y += kNvtxHeight;
            m_lanes.push_back(lane);
        }
        std::set<std::pair<uint32_t, uint32_t>> streams;
        for (const auto& l : s->launches)
            streams.insert({l.deviceId, l.streamId});
        for (const auto& [device, stream] : streams) {
            Lane lane;
            lane.side = side;
            lane.device = device;
            lane.stream = stream;
            lane.label = tr("%1 GPU %2 stream %3").arg(tag).arg(device).arg(stream);
            lane.top = y;
            lane.height = kLaneHeight;
            y += kLaneHeight + 2;
            m_lanes.push_back(lane);
        }
        y += kSideGap;
    }
    setMinimumHeight(y + 4);
    updateGeometry();
    update();
}

double CompareTimeline::xOf(double t) const
{
    const double w = std::max(1, width() - m_labelWidth);
    return m_labelWidth + (t - m_begin) / (m_end - m_begin) * w;
}

double CompareTimeline::tOf(double x) const
{
    const double w = std::max(1, width() - m_labelWidth);
    return m_begin + (x - m_labelWidth) / w * (m_end - m_begin);
}

void CompareTimeline::setRange(double begin, double end)
{
    if (!(end > begin))
        end = begin + 1;
    if (begin == m_begin && end == m_end)
        return;
    m_begin = begin;
    m_end = end;
    update();
    emit rangeChanged(begin, end);
}

void CompareTimeline::fitAll()
{
    double lo = 0, hi = 1;
    bool any = false;
    for (int side = 0; side < 2; ++side) {
        const auto* s = session(side);
        if (!s || s->launches.empty())
            continue;
        const double o = static_cast<double>(origin(side));
        double end = 0;
        for (const auto& l : s->launches)
            end = std::max(end, static_cast<double>(l.end));
        const double first = static_cast<double>(s->launches.front().start) - o;
        lo = any ? std::min(lo, first) : first;
        hi = any ? std::max(hi, end - o) : end - o;
        any = true;
    }
    const double pad = (hi - lo) * 0.02;
    setRange(lo - pad, hi + pad);
}

void CompareTimeline::zoomBy(double factor, double anchorFraction)
{
    const double anchor = m_begin + (m_end - m_begin) * anchorFraction;
    const double span = std::max(100.0, (m_end - m_begin) * factor);
    setRange(anchor - span * anchorFraction, anchor + span * (1 - anchorFraction));
}

QColor CompareTimeline::colorOf(int side, uint32_t key) const
{
    const auto& pairOf = side == 0 ? m_pairOfA : m_pairOfB;
    const int pair = key < pairOf.size() ? pairOf[key] : -1;
    if (pair < 0)
        return QColor(170, 170, 170);
    return panelformat::seriesColor(pair);
}

std::pair<int, int> CompareTimeline::launchAt(const QPoint& pos) const
{
    for (const Lane& lane : m_lanes) {
        if (lane.nvtx || pos.y() < lane.top || pos.y() >= lane.top + lane.height)
            continue;
        const auto* s = session(lane.side);
        const double t = tOf(pos.x()) + static_cast<double>(origin(lane.side));
        const double slack = (m_end - m_begin) / std::max(1, width() - m_labelWidth) * 2; // 2 px
        const auto first = std::lower_bound(s->launches.begin(), s->launches.end(),
            t - slack - static_cast<double>(sideInfo(lane.side).longest),
            [](const compare::CompareLaunch& l, double v) { return static_cast<double>(l.start) < v; });
        for (auto it = first; it != s->launches.end() && static_cast<double>(it->start) - slack <= t; ++it) {
            const auto& l = *it;
            if (l.streamId == lane.stream && l.deviceId == lane.device && t <= static_cast<double>(l.end) + slack)
                return {lane.side, static_cast<int>(it - s->launches.begin())};
        }
    }
    return {-1, -1};
}

void CompareTimeline::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_a || !m_b) {
        p.drawText(rect(), Qt::AlignCenter, tr("No comparison loaded"));
        return;
    }
    const QFontMetrics fm(font());
    const int plotLeft = m_labelWidth;
    const int plotWidth = std::max(1, width() - plotLeft);

    // Ruler: time since each session's origin.
    p.setPen(palette().text().color());
    const double span = m_end - m_begin;
    const double rough = span / std::max(2, plotWidth / 110);
    const double mag = std::pow(10.0, std::floor(std::log10(std::max(rough, 1.0))));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (mag * m >= rough) {
            step = mag * m;
            break;
        }
    }
    const auto stepNs = static_cast<TimeNs>(std::max(1.0, step));
    for (double t = std::ceil(m_begin / step) * step; t <= m_end; t += step) {
        const double x = xOf(t);
        p.setPen(QColor(200, 200, 200));
        p.drawLine(QPointF(x, m_rulerHeight), QPointF(x, height()));
        p.setPen(palette().text().color());
        const QString label
            = (t < 0 ? QStringLiteral("-") : QString()) + formatTick(static_cast<TimeNs>(std::fabs(t)), stepNs);
        p.drawText(QPointF(x + 3, m_rulerHeight - 6), label);
    }
    p.setPen(QPen(QColor(40, 40, 40), 1.5));
    p.drawLine(QPointF(xOf(0), 0), QPointF(xOf(0), height())); // the shared origin

    p.setClipRect(plotLeft, 0, plotWidth, height());
    for (const Lane& lane : m_lanes) {
        const auto* s = session(lane.side);
        const double o = static_cast<double>(origin(lane.side));
        if (lane.side == 1)
            p.fillRect(QRectF(plotLeft, lane.top, plotWidth, lane.height), QColor(246, 248, 252));
        if (lane.nvtx) {
            // Ranges at this depth that contain launches: those on the launches' paths.
            std::set<uint32_t> ranges;
            for (const auto& l : s->launches) {
                if (static_cast<int>(l.rangeCount) > lane.depth)
                    ranges.insert(s->rangePath[l.firstRange + static_cast<uint32_t>(lane.depth)]);
            }
            for (uint32_t r : ranges) {
                const auto& range = s->data.nvtxRanges[r];
                const double x0 = xOf(static_cast<double>(range.start) - o);
                const double x1 = xOf(static_cast<double>(range.end) - o);
                if (x1 < plotLeft || x0 > width())
                    continue;
                const QRectF box(x0, lane.top + 1, std::max(1.0, x1 - x0), lane.height - 2);
                p.fillRect(box, QColor(225, 215, 240));
                p.setPen(QColor(150, 130, 180));
                p.drawRect(box);
                if (box.width() > 30) {
                    p.setPen(QColor(60, 40, 90));
                    p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                        fm.elidedText(
                            QString::fromStdString(s->rangeName(range)), Qt::ElideRight, int(box.width()) - 5));
                }
            }
            continue;
        }
        const double tBegin = m_begin + o;
        const double tEnd = m_end + o;
        // Launches are sorted by start and none is longer than the longest: only the slice that
        // can overlap the window is visited.
        const TimeNs longest = sideInfo(lane.side).longest;
        const auto first
            = std::lower_bound(s->launches.begin(), s->launches.end(), tBegin - static_cast<double>(longest),
                [](const compare::CompareLaunch& l, double t) { return static_cast<double>(l.start) < t; });
        for (auto it = first; it != s->launches.end() && static_cast<double>(it->start) <= tEnd; ++it) {
            const auto& l = *it;
            if (l.streamId != lane.stream || l.deviceId != lane.device)
                continue;
            if (static_cast<double>(l.end) < tBegin)
                continue;
            const double x0 = xOf(static_cast<double>(l.start) - o);
            const double x1 = xOf(static_cast<double>(l.end) - o);
            const QRectF box(x0, lane.top + 2, std::max(1.0, x1 - x0), lane.height - 4);
            const QColor c = colorOf(lane.side, l.key);
            p.fillRect(box, c);
            const bool matched = c != QColor(170, 170, 170);
            if (!matched) {
                p.setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
                p.drawRect(box);
            }
            if (box.width() > 40) {
                p.setPen(c.lightness() > 140 ? Qt::black : Qt::white);
                p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                    fm.elidedText(QString::fromStdString(compactKernelName(s->keys[l.key].name, 40)), Qt::ElideRight,
                        int(box.width()) - 5));
            }
        }
    }
    p.setClipping(false);
    // Label column.
    p.fillRect(QRectF(0, 0, plotLeft, height()), palette().window());
    p.setPen(palette().text().color());
    p.drawText(QRectF(4, 0, plotLeft - 8, m_rulerHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("time from origin"));
    for (const Lane& lane : m_lanes) {
        if (lane.label.isEmpty())
            continue;
        QFont f = font();
        f.setBold(!lane.nvtx);
        p.setFont(f);
        p.drawText(QRectF(4, lane.top, plotLeft - 8, lane.height), Qt::AlignVCenter | Qt::AlignLeft,
            QFontMetrics(f).elidedText(lane.label, Qt::ElideRight, plotLeft - 8));
    }
}

void CompareTimeline::wheelEvent(QWheelEvent* e)
{
    const double frac = std::clamp((e->position().x() - m_labelWidth) / std::max(1, width() - m_labelWidth), 0.0, 1.0);
    zoomBy(e->angleDelta().y() > 0 ? 0.8 : 1.25, frac);
    e->accept();
}

void CompareTimeline::mousePressEvent(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragStart = e->pos();
        m_dragBegin = m_begin;
    }
}

void CompareTimeline::mouseMoveEvent(QMouseEvent* e)
{
    if (m_dragging) {
        const double perPx = (m_end - m_begin) / std::max(1, width() - m_labelWidth);
        const double shift = (e->pos().x() - m_dragStart.x()) * perPx;
        const double span = m_end - m_begin;
        setRange(m_dragBegin - shift, m_dragBegin - shift + span);
        return;
    }
    const auto [side, index] = launchAt(e->pos());
    if (side >= 0) {
        const auto* s = session(side);
        const auto& l = s->launches[static_cast<size_t>(index)];
        QToolTip::showText(e->globalPosition().toPoint(),
            tr("%1: %2\n%3\nduration %4")
                .arg(side == 0 ? QStringLiteral("A") : QStringLiteral("B"))
                .arg(QString::fromStdString(s->keys[l.key].name))
                .arg(QString::fromStdString(s->keys[l.key].path))
                .arg(formatDuration(l.duration())),
            this);
    } else {
        QToolTip::hideText();
    }
}

void CompareTimeline::mouseReleaseEvent(QMouseEvent* e)
{
    if (m_dragging && (e->pos() - m_dragStart).manhattanLength() < 3) {
        const auto [side, index] = launchAt(e->pos());
        if (side >= 0)
            emit launchClicked(side, static_cast<int>(session(side)->launches[static_cast<size_t>(index)].key));
    }
    m_dragging = false;
}

void CompareTimeline::mouseDoubleClickEvent(QMouseEvent*)
{
    fitAll();
}

} // namespace ws

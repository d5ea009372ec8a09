// SPDX-License-Identifier: MIT
#include "ui/fleet/fleetheatmap.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace ws {

namespace {

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
        static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
        static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QString rankLabel(const FleetRank& r)
{
    return r.rank >= 0 ? QStringLiteral("rank %1").arg(r.rank) : QStringLiteral("pid %1").arg(r.pid);
}

} // namespace

FleetHeatmap::FleetHeatmap(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(false);
}

void FleetHeatmap::setGrid(FleetStepGrid grid)
{
    m_grid = std::move(grid);
    const QFontMetrics fm(font());
    m_labelWidth = fm.horizontalAdvance(QStringLiteral("rank 00000")) + 12;
    m_headerHeight = fm.height() + 6;
    m_cell = std::max(fm.height() + 4, fm.horizontalAdvance(QStringLiteral("-000")) + 4);
    updateGeometry();
    update();
}

QRect FleetHeatmap::cellRect(int row, int col) const
{
    return {m_labelWidth + col * m_cell, m_headerHeight + row * m_cell, m_cell, m_cell};
}

QPoint FleetHeatmap::cellAt(const QPoint& pos) const
{
    if (m_cell <= 0 || pos.x() < m_labelWidth || pos.y() < m_headerHeight)
        return {-1, -1};
    const int col = (pos.x() - m_labelWidth) / m_cell;
    const int row = (pos.y() - m_headerHeight) / m_cell;
    if (row >= static_cast<int>(m_grid.ranks.size()) || col >= static_cast<int>(m_grid.steps.size()))
        return {-1, -1};
    return {row, col};
}

QColor FleetHeatmap::cellColor(int row, int col) const
{
    const double v = m_grid.at(static_cast<size_t>(row), static_cast<size_t>(col));
    const double median = m_grid.medianNs[static_cast<size_t>(col)];
    if (v < 0 || median <= 0)
        return QColor(0xd0, 0xd0, 0xd0); // the rank has no such step
    const double t = std::clamp((v / median - 1.0) / kSaturation, -1.0, 1.0);
    return t >= 0 ? mix(Qt::white, QColor(0xd6, 0x27, 0x28), t) : mix(Qt::white, QColor(0x1f, 0x77, 0xb4), -t);
}

QSize FleetHeatmap::sizeHint() const
{
    return {m_labelWidth + static_cast<int>(m_grid.steps.size()) * m_cell + 2,
        m_headerHeight + static_cast<int>(m_grid.ranks.size()) * m_cell + 2};
}

void FleetHeatmap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    for (size_t c = 0; c < m_grid.steps.size(); ++c) {
        const QRect r = cellRect(0, static_cast<int>(c));
        p.drawText(QRect(r.left(), 0, m_cell, m_headerHeight), Qt::AlignCenter, QString::number(m_grid.steps[c]));
    }
    for (size_t row = 0; row < m_grid.ranks.size(); ++row) {
        const FleetRank& rank = m_grid.ranks[row];
        const QRect r = cellRect(static_cast<int>(row), 0);
        p.setPen(rank.straggler ? QColor(0xd6, 0x27, 0x28) : palette().text().color());
        p.drawText(QRect(0, r.top(), m_labelWidth - 6, m_cell), Qt::AlignRight | Qt::AlignVCenter, rankLabel(rank));
        for (size_t c = 0; c < m_grid.steps.size(); ++c) {
            const QRect cell = cellRect(static_cast<int>(row), static_cast<int>(c));
            p.fillRect(cell.adjusted(0, 0, -1, -1), cellColor(static_cast<int>(row), static_cast<int>(c)));
            if (m_grid.flagged(row, c)) {
                p.setPen(QPen(Qt::black, 2));
                p.drawRect(cell.adjusted(1, 1, -2, -2));
            }
        }
    }
}

void FleetHeatmap::mousePressEvent(QMouseEvent* event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell.x() < 0)
        return QWidget::mousePressEvent(event);
    const auto row = static_cast<size_t>(cell.x());
    const auto col = static_cast<size_t>(cell.y());
    const FleetRank& rank = m_grid.ranks[row];
    const double ns = m_grid.at(row, col);
    if (ns < 0)
        return; // the rank has no such step
    const qint64 start = m_grid.stepStart[row * m_grid.steps.size() + col];
    emit stepActivated(
        QString::fromStdString(rank.session), rank.pid, m_grid.steps[col], start, start + static_cast<qint64>(ns));
}

} // namespace ws

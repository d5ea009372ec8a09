// SPDX-License-Identifier: MIT
#include "ui/fleet/fleetheatmap.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

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

QString columnLabel(const FleetStepGrid& g, int col)
{
    const auto c = static_cast<size_t>(col);
    switch (g.metric.columns) {
    case FleetColumns::Steps:
        return FleetHeatmap::tr("step %1").arg(g.steps[c]);
    case FleetColumns::Kernels:
    case FleetColumns::Value:
        break;
    }
    return QString::fromStdString(g.columnNames[c]);
}

} // namespace

QString formatFleetValue(const FleetMetric& metric, double value)
{
    if (value < 0 || !std::isfinite(value))
        return QStringLiteral("–");
    if (metric.unit == "ns")
        return QStringLiteral("%1 ms").arg(value / 1e6, 0, 'f', 3);
    if (metric.unit == "%")
        return QStringLiteral("%1 %").arg(value, 0, 'f', 1);
    return QStringLiteral("%1 %2").arg(value, 0, 'f', 0).arg(QString::fromStdString(metric.unit));
}

FleetHeatmap::FleetHeatmap(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(false);
}

void FleetHeatmap::setGrid(FleetStepGrid grid)
{
    m_grid = std::move(grid);
    m_current = {-1, -1};
    const QFontMetrics fm(font());
    m_labelWidth = fm.horizontalAdvance(QStringLiteral("rank 00000")) + 12;
    m_headerHeight = fm.height() + 6;
    m_cell = std::max(fm.height() + 4, fm.horizontalAdvance(QStringLiteral("-000")) + 4);
    // Kernel names and values are labelled by their (elided) names: wider columns.
    m_cellWidth = m_grid.metric.columns == FleetColumns::Steps ? m_cell : 4 * m_cell;
    updateGeometry();
    update();
}

QRect FleetHeatmap::cellRect(int row, int col) const
{
    return {m_labelWidth + col * m_cellWidth, m_headerHeight + row * m_cell, m_cellWidth, m_cell};
}

QPoint FleetHeatmap::cellAt(const QPoint& pos) const
{
    if (m_cell <= 0 || pos.x() < m_labelWidth || pos.y() < m_headerHeight)
        return {-1, -1};
    const int col = (pos.x() - m_labelWidth) / m_cellWidth;
    const int row = (pos.y() - m_headerHeight) / m_cell;
    if (row >= static_cast<int>(m_grid.ranks.size()) || col >= static_cast<int>(m_grid.steps.size()))
        return {-1, -1};
    return {row, col};
}

QColor FleetHeatmap::cellColor(int row, int col) const
{
    const double v = m_grid.at(static_cast<size_t>(row), static_cast<size_t>(col));
    const double median = m_grid.median[static_cast<size_t>(col)];
    if (v < 0)
        return QColor(0xd0, 0xd0, 0xd0); // the rank has no value here
    // How much worse than the median, relative to it; a median of 0 (no exposed communication
    // on most ranks) makes any value above it fully worse.
    double rel = 0;
    if (median > 0)
        rel = v / median - 1.0;
    else if (v > median)
        rel = 1.0;
    const double worse = m_grid.metric.higherIsWorse ? rel : -rel;
    const double t = std::clamp(worse / kSaturation, -1.0, 1.0);
    return t >= 0 ? mix(Qt::white, QColor(0xd6, 0x27, 0x28), t) : mix(Qt::white, QColor(0x1f, 0x77, 0xb4), -t);
}

QString FleetHeatmap::toolTipAt(int row, int col) const
{
    const auto r = static_cast<size_t>(row);
    const auto c = static_cast<size_t>(col);
    const double v = m_grid.at(r, c);
    const double median = m_grid.median[c];
    QString text = QStringLiteral("%1 · %2\n%3: %4")
                       .arg(rankLabel(m_grid.ranks[r]), columnLabel(m_grid, col),
                           QString::fromStdString(m_grid.metric.title), formatFleetValue(m_grid.metric, v));
    if (v >= 0 && median > 0)
        text += tr(" (%1 × the median over ranks, %2)")
                    .arg(v / median, 0, 'f', 3)
                    .arg(formatFleetValue(m_grid.metric, median));
    if (m_grid.flagged(r, c))
        text += tr("\noutlier: worse than the median by more than k × MAD");
    return text;
}

QSize FleetHeatmap::sizeHint() const
{
    return {m_labelWidth + static_cast<int>(m_grid.steps.size()) * m_cellWidth + 2,
        m_headerHeight + static_cast<int>(m_grid.ranks.size()) * m_cell + 2};
}

void FleetHeatmap::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    const QRect exposed = event->rect();
    p.fillRect(exposed, palette().base());
    p.setPen(palette().text().color());
    const QFontMetrics fm(font());
    for (size_t c = 0; c < m_grid.steps.size(); ++c) {
        const QRect r = cellRect(0, static_cast<int>(c));
        const QString label = m_grid.metric.columns == FleetColumns::Steps
            ? QString::number(m_grid.steps[c])
            : fm.elidedText(QString::fromStdString(m_grid.columnNames[c]), Qt::ElideRight, m_cellWidth - 4);
        p.drawText(QRect(r.left(), 0, m_cellWidth, m_headerHeight), Qt::AlignCenter, label);
    }
    // Only the rows in the exposed rectangle: a thousand ranks scroll at the cost of a screenful.
    const auto rows = static_cast<int>(m_grid.ranks.size());
    const int first = m_cell > 0 ? std::max(0, (exposed.top() - m_headerHeight) / m_cell) : 0;
    const int last = m_cell > 0 ? std::min(rows - 1, (exposed.bottom() - m_headerHeight) / m_cell) : rows - 1;
    for (int i = first; i <= last; ++i) {
        const auto row = static_cast<size_t>(i);
        const FleetRank& rank = m_grid.ranks[row];
        const QRect r = cellRect(i, 0);
        p.setPen(rank.straggler ? QColor(0xd6, 0x27, 0x28) : palette().text().color());
        p.drawText(QRect(0, r.top(), m_labelWidth - 6, m_cell), Qt::AlignRight | Qt::AlignVCenter, rankLabel(rank));
        for (size_t c = 0; c < m_grid.steps.size(); ++c) {
            const QRect cell = cellRect(i, static_cast<int>(c));
            p.fillRect(cell.adjusted(0, 0, -1, -1), cellColor(i, static_cast<int>(c)));
            if (m_grid.flagged(row, c)) {
                p.setPen(QPen(Qt::black, 2));
                p.drawRect(cell.adjusted(1, 1, -2, -2));
            }
        }
    }
    if (m_current.x() >= 0) { // the selected cell: a dashed outline inside any frame
        p.setPen(QPen(palette().highlight().color(), 2, Qt::DashLine));
        p.drawRect(cellRect(m_current.x(), m_current.y()).adjusted(3, 3, -4, -4));
    }
}

bool FleetHeatmap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint cell = cellAt(help->pos());
        if (cell.x() < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), toolTipAt(cell.x(), cell.y()), this, cellRect(cell.x(), cell.y()));
        return true;
    }
    return QWidget::event(event);
}

void FleetHeatmap::activate(int row, int col)
{
    const auto r = static_cast<size_t>(row);
    const auto c = static_cast<size_t>(col);
    const FleetRank& rank = m_grid.ranks[r];
    const QString session = QString::fromStdString(rank.session);
    if (m_grid.metric.columns != FleetColumns::Steps) {
        emit rankActivated(session, rank.pid);
        return;
    }
    const qint64 start = m_grid.stepStart[m_grid.cell(r, c)];
    emit stepActivated(session, rank.pid, m_grid.steps[c], start, start + static_cast<qint64>(m_grid.at(r, c)));
}

void FleetHeatmap::mousePressEvent(QMouseEvent* event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell.x() < 0 || event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    if (m_grid.at(static_cast<size_t>(cell.x()), static_cast<size_t>(cell.y())) < 0)
        return;              // the rank has no value here
    if (cell == m_current) { // the second click on a cell: compare it with the median rank
        emit compareRequested(cell.x(), cell.y());
        return;
    }
    m_current = cell;
    update();
    activate(cell.x(), cell.y());
}

QMenu* FleetHeatmap::cellMenu(int row, int col, QWidget* parent)
{
    auto* menu = new QMenu(parent);
    const FleetRank& rank = m_grid.ranks[static_cast<size_t>(row)];
    const bool steps = m_grid.metric.columns == FleetColumns::Steps;
    auto* open
        = menu->addAction(steps ? tr("Open %1 at %2 in the timeline").arg(rankLabel(rank), columnLabel(m_grid, col))
                                : tr("Open %1's session in the timeline").arg(rankLabel(rank)));
    open->setObjectName(QStringLiteral("openRank"));
    connect(open, &QAction::triggered, this, [this, row, col] {
        m_current = {row, col};
        update();
        activate(row, col);
    });
    const int median = fleetMedianRow(m_grid, static_cast<size_t>(row), static_cast<size_t>(col));
    auto* compare
        = menu->addAction(median >= 0 ? tr("Compare with the median rank (%1)%2")
                                            .arg(rankLabel(m_grid.ranks[static_cast<size_t>(median)]),
                                                steps ? tr(" at %1").arg(columnLabel(m_grid, col)) : QString())
                                      : tr("Compare with the median rank (no rank in another session file)"));
    compare->setObjectName(QStringLiteral("compareWithMedian"));
    compare->setEnabled(median >= 0);
    if (median < 0)
        compare->setToolTip(tr("The compare window compares two session files, and every other rank is in %1's "
                               "file (or has no value here)")
                                .arg(rankLabel(rank)));
    connect(compare, &QAction::triggered, this, [this, row, col] { emit compareRequested(row, col); });
    const bool anyValue = m_grid.at(static_cast<size_t>(row), static_cast<size_t>(col)) >= 0;
    open->setEnabled(anyValue);
    compare->setEnabled(compare->isEnabled() && anyValue);
    return menu;
}

void FleetHeatmap::contextMenuEvent(QContextMenuEvent* event)
{
    const QPoint cell = cellAt(event->pos());
    if (cell.x() < 0)
        return;
    QMenu* menu = cellMenu(cell.x(), cell.y(), this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(event->globalPos());
}

} // namespace ws

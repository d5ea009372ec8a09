// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/fleetgrid.h"

#include <QWidget>

class QMenu;

namespace ws {

// One per-rank metric of a fleet result (core/store/fleetgrid.h) drawn as a heatmap: one row per
// rank, one column per step (or kernel name, or the one value), each cell coloured by how much
// worse or better it is than the column's median over ranks (white at the median, red worse,
// blue better, saturated at ±kSaturation); outlier cells get a black frame, straggler ranks a
// red label. A click on a cell selects it and asks to open that rank's session (at that step:
// stepActivated; else rankActivated); a second click on the selected cell, or "Compare with
// the median rank" in its context menu, asks to compare it with the median rank
// (compareRequested).
class FleetHeatmap : public QWidget {
    Q_OBJECT
public:
    static constexpr double kSaturation = 0.3; // ±30 % from the median is full colour

    explicit FleetHeatmap(QWidget* parent = nullptr);

    void setGrid(FleetStepGrid grid);
    const FleetStepGrid& grid() const { return m_grid; }

    // Geometry, exposed for tests: the cell of (row, col), and the cell under a point
    // (row, col), or (-1, -1).
    QRect cellRect(int row, int col) const;
    QPoint cellAt(const QPoint& pos) const;
    // The fill of a cell (what paintEvent draws).
    QColor cellColor(int row, int col) const;
    // The selected cell (row, col), or (-1, -1).
    QPoint currentCell() const { return m_current; }
    // The cell's context menu (what a right click shows): open the rank, compare with the median
    // rank (disabled, saying why, when no rank of another session file has a value there).
    QMenu* cellMenu(int row, int col, QWidget* parent);
    QString toolTipAt(int row, int col) const;

    QSize sizeHint() const override;

signals:
    // `start`..`end`: the step range in the rank's session (ns, its clock).
    void stepActivated(const QString& session, qint64 pid, qint64 step, qint64 start, qint64 end);
    // A cell of a metric without steps: the rank's session as a whole.
    void rankActivated(const QString& session, qint64 pid);
    void compareRequested(int row, int col);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void activate(int row, int col);

    FleetStepGrid m_grid;
    int m_labelWidth = 0;
    int m_headerHeight = 0;
    int m_cell = 0;      // height, and width of step columns
    int m_cellWidth = 0; // width: wider for kernel names and values
    QPoint m_current {-1, -1};
};

// How a value of this metric reads: "12.345 ms", "41.2 %", "1,234 /s".
QString formatFleetValue(const FleetMetric& metric, double value);

} // namespace ws

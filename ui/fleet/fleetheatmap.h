// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/fleetresult.h"

#include <QWidget>

namespace ws {

// A fleet result's rank x step grid (core/store/fleetresult.h) drawn as a heatmap: one row per
// rank, one column per step, each cell coloured by its step time over the step's median over
// ranks (white at the median, red when slower, blue when faster, saturated at ±kSaturation);
// cells the recipe flagged as stragglers get a black frame, straggler ranks a red label.
// Clicking a cell emits stepActivated with the rank's session and the step, so the window
// that hosts it can open that session at that step.
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

    QSize sizeHint() const override;

signals:
    // `start`..`end`: the step range in the rank's session (ns, its clock).
    void stepActivated(const QString& session, qint64 pid, qint64 step, qint64 start, qint64 end);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    FleetStepGrid m_grid;
    int m_labelWidth = 0;
    int m_headerHeight = 0;
    int m_cell = 0;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/fleetgrid.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QTableWidget;

namespace ws {

class FleetHeatmap;

// A fleet result's per-rank metrics: a metric selector (step time, kernel time by name,
// communication overlap, GPU idle, … — whatever the result holds), the metric's heatmap, and a
// rank table sortable by any column (rank, pid, device, the rank's summary of the metric, its
// outlier cells, straggler). Selecting a rank in the table scrolls the heatmap to its row; the
// heatmap's requests are forwarded for the window to act on.
class FleetView : public QWidget {
    Q_OBJECT
public:
    explicit FleetView(QWidget* parent = nullptr);
    void setGrid(FleetStepGrid grid); // one metric
    void setGrids(std::vector<FleetStepGrid> grids);
    // Shows metric `index` of setGrids (the selector follows).
    void showMetric(int index);

    FleetHeatmap* heatmap() const { return m_heatmap; }
    QTableWidget* rankTable() const { return m_table; }
    QComboBox* metricChoice() const { return m_metric; }
    const std::vector<FleetStepGrid>& grids() const { return m_grids; }

signals:
    void stepActivated(const QString& session, qint64 pid, qint64 step, qint64 start, qint64 end);
    void rankActivated(const QString& session, qint64 pid);
    void compareRequested(int row, int col);
    void metricChanged(int index);

private:
    void fillTable(const FleetStepGrid& grid);

    FleetHeatmap* m_heatmap = nullptr;
    QTableWidget* m_table = nullptr;
    QComboBox* m_metric = nullptr;
    std::vector<FleetStepGrid> m_grids;
};

} // namespace ws

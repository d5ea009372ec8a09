// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/fleetresult.h"

#include <QWidget>

class QTableWidget;

namespace ws {

class FleetHeatmap;

// A fleet result's step_time: the rank x step heatmap above a sortable rank table (rank, pid,
// device, median step, straggler steps, straggler). Selecting a rank in the table scrolls the
// heatmap to its row; the heatmap's stepActivated is forwarded for the window to open the
// session at that step.
class FleetView : public QWidget {
    Q_OBJECT
public:
    explicit FleetView(QWidget* parent = nullptr);
    void setGrid(FleetStepGrid grid);

    FleetHeatmap* heatmap() const { return m_heatmap; }
    QTableWidget* rankTable() const { return m_table; }

signals:
    void stepActivated(const QString& session, qint64 pid, qint64 step, qint64 start, qint64 end);

private:
    FleetHeatmap* m_heatmap = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace ws

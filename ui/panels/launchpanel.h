// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/detailspanel.h"

namespace ws {

// Launch & Occupancy (seed 000's first two reading steps): the launch configuration (grid,
// block, cluster, registers, shared memory, waves per SM), the block limit each resource
// imposes, theoretical against achieved occupancy, and ncu's "impact of varying" curves
// (theoretical occupancy against registers per thread, block size and shared memory, from the
// occupancy calculator) with each kernel's own point marked. Works on trace sessions too: the
// launch configuration is in every kernel record; only achieved occupancy needs metrics.
class LaunchPanel : public DetailsPanel {
    Q_OBJECT
public:
    explicit LaunchPanel(KernelFocus* focus, QWidget* parent = nullptr);

    QCustomPlot* registersPlot() const { return m_regs; }
    QCustomPlot* blockSizePlot() const { return m_block; }
    QCustomPlot* sharedMemPlot() const { return m_smem; }
    QCustomPlot* occupancyPlot() const { return m_occupancy; }

protected:
    void rebuild() override;
    bool needsMetrics() const override { return false; }

private:
    QCustomPlot* m_regs;
    QCustomPlot* m_block;
    QCustomPlot* m_smem;
    QCustomPlot* m_occupancy;
};

} // namespace ws

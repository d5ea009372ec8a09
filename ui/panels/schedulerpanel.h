// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/detailspanel.h"

namespace ws {

// Scheduler and warp states (seed 000's last two steps): active, eligible and issued warps per
// scheduler per cycle against the theoretical and hardware maximum, the share of cycles with
// no eligible warp, and the stall reasons sorted, both in warp-cycles per issued instruction
// (ncu's unit) and as a share of all warp-cycles per issued instruction.
class SchedulerPanel : public DetailsPanel {
    Q_OBJECT
public:
    explicit SchedulerPanel(KernelFocus* focus, QWidget* parent = nullptr);

    QCustomPlot* warpsPlot() const { return m_warps; }
    QCustomPlot* issuePlot() const { return m_issue; }
    QCustomPlot* stallPlot() const { return m_stalls; }

    // Stall keys of the shown kernels, largest first (by the largest value over kernels).
    std::vector<std::string> stallOrder() const;

protected:
    void rebuild() override;

private:
    QCustomPlot* m_warps;
    QCustomPlot* m_issue;
    QCustomPlot* m_stalls;
};

} // namespace ws

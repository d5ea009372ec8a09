// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/detailspanel.h"

namespace ws {

// Throughput (seed 000's speed-of-light step, then the compute path): Compute (SM), Memory,
// DRAM, L1 and L2 throughput as % of each unit's own peak (different denominators: they
// neither add up nor share a scale), the breakdown into the units behind the compute and the
// memory figure, and pipe utilization in both of ncu's denominators, labelled: cycles the
// pipe was active over elapsed cycles, and instructions executed over the pipe's peak rate.
class ThroughputPanel : public DetailsPanel {
    Q_OBJECT
public:
    explicit ThroughputPanel(KernelFocus* focus, QWidget* parent = nullptr);

    QCustomPlot* speedOfLightPlot() const { return m_sol; }
    QCustomPlot* computeBreakdownPlot() const { return m_compute; }
    QCustomPlot* memoryBreakdownPlot() const { return m_memory; }
    QCustomPlot* pipeCyclesPlot() const { return m_pipeCycles; }
    QCustomPlot* pipeInstructionsPlot() const { return m_pipeInst; }

    // Which figure family a metric belongs to, e.g. the breakdown constituents of the compute
    // throughput (sm__* / smsp__* .avg.pct_of_peak_sustained_elapsed). `section` is the
    // metric_def section when the session has one (a profile session: breakdowns sit in
    // SpeedOfLight, pipes in ComputeWorkloadAnalysis); empty for imports, where the name decides.
    enum class Family { ComputeBreakdown, MemoryBreakdown, PipeCycles, PipeInstructions };
    static bool inFamily(const std::string& metric, Family family, const std::string& section = {});

protected:
    void rebuild() override;

private:
    QCustomPlot* m_sol;
    QCustomPlot* m_compute;
    QCustomPlot* m_memory;
    QCustomPlot* m_pipeCycles;
    QCustomPlot* m_pipeInst;
};

} // namespace ws

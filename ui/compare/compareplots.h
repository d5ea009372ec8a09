// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparison.h"

#include <QWidget>

class QCustomPlot;

namespace ws {

// Latency distributions of A and B overlaid: histograms on shared bins, the medians as
// vertical lines, and the verdict (ratio, bootstrap CI, Mann-Whitney p, threshold) as the title.
class DistributionPlot : public QWidget {
    Q_OBJECT
public:
    explicit DistributionPlot(QWidget* parent = nullptr);
    // Values in `unit`; `what` names the quantity ("GPU time per iteration").
    void setData(const std::vector<double>& a, const std::vector<double>& b, const QString& what, const QString& unit,
        const compare::Verdict& verdict);
    QCustomPlot* plot() const { return m_plot; }

private:
    QCustomPlot* m_plot;
};

// The roofline of the matched kernels with an arrow from each kernel's point in A to its
// point in B (DRAM level; medians of each pair's profiled launches; roofs from B's device).
class RooflineComparePlot : public QWidget {
    Q_OBJECT
public:
    explicit RooflineComparePlot(QWidget* parent = nullptr);
    void setComparison(
        const compare::CompareSession* a, const compare::CompareSession* b, const compare::Comparison* comparison);
    QCustomPlot* plot() const { return m_plot; }
    int arrowCount() const { return m_arrows; }

private:
    QCustomPlot* m_plot;
    int m_arrows = 0;
};

} // namespace ws

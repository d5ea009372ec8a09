// SPDX-License-Identifier: MIT
#pragma once

#include "ui/compare/attemptchain.h"

#include <QMainWindow>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSortFilterProxyModel;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace ws {

class CompareDocument;
class CompareKernelModel;
class CompareMetricModel;
class CompareTimeline;
class DistributionPlot;
class HypothesisModel;
class ReportTableModel;
class RooflineComparePlot;

// Before/after comparison of two sessions (docs/compare.md): the verdict with its rule at the
// top, both timelines stacked on a shared origin with linked zoom, the kernel table (A, B,
// difference, %; sortable; unmatched kernels listed; re-pairing), and tabs for the latency
// distributions, the selected pair's metrics, the roofline with A→B arrows and the hypothesis
// card. Opened from the main window by File > Compare With…, or on its own.
class CompareWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit CompareWindow(QWidget* parent = nullptr);
    ~CompareWindow() override;

    void open(const QString& pathA, const QString& pathB, const QStringList& extraBaselines = {});

    CompareDocument* document() const { return m_doc; }
    CompareKernelModel* kernelModel() const { return m_kernels; }
    QSortFilterProxyModel* kernelProxy() const { return m_kernelProxy; }
    CompareMetricModel* metricModel() const { return m_metrics; }
    HypothesisModel* hypothesisModel() const { return m_hypotheses; }
    CompareTimeline* timeline() const { return m_timeline; }
    DistributionPlot* distributionPlot() const { return m_distribution; }
    RooflineComparePlot* rooflinePlot() const { return m_roofline; }
    QLabel* verdictLabel() const { return m_verdict; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableView* kernelView() const { return m_kernelView; }
    QComboBox* distributionChoice() const { return m_distChoice; }
    QComboBox* rangeChoice() const { return m_range; }
    ReportTableModel* benchModel() const { return m_benchRuns; }

    // The attempts of B (Run again links each session to its predecessor) and which one is
    // shown as B (index into chain().attempts, newest = 0). The header says "attempt 3 of 3:
    // C ← B ← A"; previousPair() compares the attempt before (A vs B), nextPair() the one after.
    const AttemptChain& chain() const { return m_chain; }
    int chainIndex() const { return m_chainIndex; }
    QLabel* chainLabel() const { return m_chainLabel; }
    QPushButton* previousPairButton() const { return m_previousPair; }
    QPushButton* nextPairButton() const { return m_nextPair; }
    void previousPair();
    void nextPair();

    // Selects a row of the kernel table (source row) and shows its metrics.
    void selectKernelRow(int sourceRow);
    // Pairs the two selected unmatched rows (one only in A, one only in B); false when the
    // selection is not such a pair.
    bool pairSelected();

private:
    void rebuild();
    void showFailure(const QString& message);
    void updateDistribution();
    void updateMetrics();
    void chooseFile(int which); // 0 = A, 1 = B, 2 = extra baseline
    // Loads a pair; `stepping`: a pair of the current chain (the chain is kept), else the chain
    // is B's, read with the sessions.
    void openPair(const QString& pathA, const QString& pathB, const QStringList& extraBaselines, bool stepping);
    void stepTo(int index);
    void updateChain();

    CompareDocument* m_doc;
    CompareKernelModel* m_kernels;
    QSortFilterProxyModel* m_kernelProxy;
    CompareMetricModel* m_metrics;
    HypothesisModel* m_hypotheses;
    CompareTimeline* m_timeline;
    QScrollArea* m_timelineArea;
    QStackedWidget* m_tables; // kernels, or the benchmark runs of two bench sessions
    ReportTableModel* m_benchRuns;
    DistributionPlot* m_distribution;
    RooflineComparePlot* m_roofline;
    QLabel* m_verdict;
    QLabel* m_files;
    QLabel* m_notes;
    QLabel* m_metricTitle;
    QTabWidget* m_tabs;
    QTableView* m_kernelView;
    QTableView* m_metricView = nullptr;
    QWidget* m_pairButtons = nullptr; // pairing applies to kernels, not to benchmark runs
    QComboBox* m_distChoice;
    QComboBox* m_range;
    QDoubleSpinBox* m_threshold;
    int m_selectedRow = -1;
    QLabel* m_chainLabel;
    QPushButton* m_previousPair;
    QPushButton* m_nextPair;
    AttemptChain m_chain;
    int m_chainIndex = 0;
    bool m_adoptChain = false;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchresult.h"
#include "core/model/sessiondata.h"
#include "ui/session/sessiondocument.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QCustomPlot;
class QLabel;
class QTextBrowser;

namespace ws {

// Benchmark results of a session (bench_run / bench_sample): for one group of runs measured
// together, the per-round trend with the warm-up chunks before round 0 (drift and warm-up
// show there), the distribution of the samples as box plots, and a summary with the timer's
// name, the boundary in words, the statistics, and throughput with its formula. Several
// groups (other workloads, timers or cache policies) are chosen in a combo box.
class BenchPanel : public QWidget {
    Q_OBJECT
public:
    explicit BenchPanel(QWidget* parent = nullptr);

    // Reads the session's bench tables; a session without any shows a note instead.
    // A session whose bench tables cannot be read shows why.
    void setSession(const SessionData& session, const QString& source = {});
    // The bench tables the SessionDocument read for the session it opened. Emits loaded().
    void showOutcome(const ws::BenchOutcome& outcome);
    void setResult(bench::BenchResult result);
    void clear();

    int groupCount() const { return static_cast<int>(m_groups.size()); }
    int currentGroup() const { return m_current; }
    void showGroup(int index);

    QComboBox* groupSelector() const { return m_selector; }
    QCustomPlot* trendPlot() const { return m_trend; }
    QCustomPlot* distributionPlot() const { return m_distribution; }
    QTextBrowser* summaryView() const { return m_summary; }
    QLabel* noteLabel() const { return m_note; }

signals:
    void loaded(int groups);

private:
    void rebuildGroups();
    void plotTrend(const std::vector<size_t>& runs);
    void plotDistribution(const std::vector<size_t>& runs);
    QString summaryHtml(const std::vector<size_t>& runs) const;

    bench::BenchResult m_result;
    std::vector<std::vector<size_t>> m_groups; // indices into m_result.runs
    int m_current = -1;
    QComboBox* m_selector;
    QLabel* m_note;
    QCustomPlot* m_trend;
    QCustomPlot* m_distribution;
    QTextBrowser* m_summary;
    QWidget* m_content;
};

} // namespace ws

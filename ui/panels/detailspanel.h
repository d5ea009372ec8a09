// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/kernelfocus.h"
#include "ui/panels/metricbaselinemodel.h"
#include "ui/panels/metrictablemodel.h"

#include <QList>
#include <QWidget>

class QCustomPlot;
class QGridLayout;
class QLabel;
class QScrollArea;
class QTableView;
class QToolButton;

namespace ws {

// One kernel a details panel shows, with everything the panels read about it.
struct ShownKernel {
    qint64 kernelId = -1;
    bool pinned = false;
    bool current = false;
    QColor color;
    QString title;   // "#12 gemm" (column header, legend)
    QString tooltip; // full name, launch id, duration
    const KernelLaunchTable::Launch* launch = nullptr;
    const LaunchConfig* config = nullptr;
    const SessionMetrics::Kernel* profiled = nullptr; // nullptr: no metrics for this launch
    KernelFacts facts;
};

// Base of the Launch & Occupancy, Throughput, Scheduler and Memory panels: the kernels the
// focus shows (pinned ones side by side with the current one), a table with one column per
// kernel, plots below it, a banner when metrics were not collected, and CSV / plot export.
class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    DetailsPanel(KernelFocus* focus, const QString& objectName, QWidget* parent = nullptr);

    // One column per kernel; the view shows shownTable(): the same with Δ and Δ% columns
    // against the first pin.
    MetricTableModel* table() const { return m_table; }
    MetricBaselineModel* shownTable() const { return m_shownTable; }
    QTableView* tableView() const { return m_tableView; }
    QLabel* banner() const { return m_banner; }
    // How the shown metrics were measured (passes, cache control, clocks); hidden without metrics.
    QLabel* provenance() const { return m_provenance; }
    QLabel* kernelsLabel() const { return m_kernels; }
    const QList<QCustomPlot*>& plots() const { return m_plots; }
    // The scrolled page: the table, then the plots.
    QWidget* page() const { return m_page; }
    const QList<ShownKernel>& shown() const { return m_shown; }
    // Re-reads the focus (called on every focus or data change).
    void refresh();

    static QString notCollectedText();

protected:
    // Adds a plot to the grid below the table (row-major, `columns` per row).
    QCustomPlot* addPlot(const QString& objectName, int row, int column, int rowSpan = 1, int columnSpan = 1);
    // Builds the table rows and the plots for the shown kernels.
    virtual void rebuild() = 0;
    // Whether this panel needs collected metrics at all (Launch & Occupancy does not).
    virtual bool needsMetrics() const { return true; }

    // Helpers for subclasses: one value per shown kernel.
    MetricRow row(const QString& label, const QString& unit, const QString& tip,
        const std::function<std::optional<double>(const ShownKernel&)>& value, int digits = 4) const;
    MetricRow metricRow(const QString& metric, const QString& label, const QString& unit, int digits = 4) const;
    static MetricRow heading(const QString& label);
    std::vector<MetricTableModel::KernelColumn> kernelColumns() const;
    bool anyProfiled() const;
    // The first shown kernel with metrics (its run says how they were measured), or -1.
    qint64 firstProfiled() const;

    KernelFocus* m_focus;
    QList<ShownKernel> m_shown;

    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Column widths from the contents, then narrowed (the metric names first, elided with their
    // full text in the tooltip, then the units) until the value columns fit the panel: in a
    // narrow dock the values are what the table is for.
    void fitColumns();

    MetricTableModel* m_table;
    MetricBaselineModel* m_shownTable;
    QTableView* m_tableView;
    QLabel* m_kernels;
    QLabel* m_banner;
    QLabel* m_provenance;
    QToolButton* m_pin;
    QGridLayout* m_plotGrid;
    QWidget* m_page = nullptr;
    QScrollArea* m_scroll = nullptr; // the page's: its width is what the table may use
    QWidget* m_scrollViewport = nullptr;
    QList<QCustomPlot*> m_plots;
};

} // namespace ws

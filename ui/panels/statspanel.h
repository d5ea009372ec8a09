// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/kernelfocus.h"
#include "ui/panels/reporttablemodel.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QTableView;

namespace ws {

class BackgroundJob;
class RecordSource;

// The stats reports as tables, computed by the same core code as `warpscope-cli stats`
// (cuda_gpu_kern_sum, cuda_kern_exec_trace, cuda_api_sum, nvtx_sum) plus nvtx_gpu_proj_sum and
// gpu_idle_gaps, over the timeline's range selection (events overlapping it) or the whole
// session. Computed on a worker thread by PanelData::report (through the session document's
// file; the panel never opens it); sortable, filterable, and exported as CSV byte for byte as
// the CLI writes it. Timestamps read in the ruler's frame (ReportViewProxy); a row that names an
// event or an interval (a launch, a gap) shows it on the timeline on double-click, Enter or
// its context menu's "Show in timeline".
class StatsPanel : public QWidget {
    Q_OBJECT
public:
    explicit StatsPanel(KernelFocus* focus, QWidget* parent = nullptr);
    ~StatsPanel() override;

    struct ReportChoice {
        QString id;
        QString title;
        QString definition; // one paragraph: what the table measures
    };
    static const QList<ReportChoice>& reports();
    // The report for a record source, by id (the panel's ids, "gpu_idle_gaps" included).
    static ReportTable compute(const QString& id, const RecordSource& source);

    void showReport(const QString& id);
    QString currentReport() const;
    bool isComputing() const;
    // Rows beyond this many are not shown (export writes them all).
    static constexpr size_t kMaxRows = 200'000;

    ReportTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLabel* noteLabel() const { return m_note; }
    QComboBox* reportSelector() const { return m_selector; }
    // The full report as last computed (not cut to kMaxRows).
    const ReportTable* fullReport() const { return m_full.get(); }
    bool exportCsv(const QString& path, QString* error = nullptr) const;

    // Shows the row (`proxyIndex` in view()'s model) on the timeline: frames its interval in the
    // shared view range and, for a kernel launch, selects the launch. A cuda_gpu_kern_sum row
    // stands for its kernel's representative launch (as a ranking row does). False when the row
    // names no interval.
    bool showInTimeline(const QModelIndex& proxyIndex);
    // The context menu of a row: "Show in timeline" where the row names an interval.
    void fillContextMenu(QMenu& menu, const QModelIndex& proxyIndex);

signals:
    void reportReady(const QString& id);

private:
    void recompute();
    void updateNote();
    // The launch a cuda_gpu_kern_sum row stands for (its kernel's representative launch).
    const KernelLaunchTable::Launch* kernelOfSummaryRow(int sourceRow) const;

    KernelFocus* m_focus;
    ReportTableModel* m_model;
    ReportViewProxy* m_proxy;
    QTableView* m_view;
    QComboBox* m_selector;
    QLineEdit* m_filter;
    QLabel* m_note;
    std::shared_ptr<const ReportTable> m_full;
    QString m_error;
    BackgroundJob* m_job;
};

} // namespace ws

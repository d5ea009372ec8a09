// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/kernelfocus.h"
#include "ui/panels/kernelrankingmodel.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QTableView;

namespace ws {

class KernelActions;

// The kernel ranking panel: which kernels take the GPU time, in the timeline's range
// selection (or the whole session). Sortable by every column, filtered by a text or regular
// expression over the full kernel names; picking a row selects that kernel everywhere
// (timeline, details, roofline), and a kernel picked elsewhere is highlighted here.
class KernelRankingPanel : public QWidget {
    Q_OBJECT
public:
    explicit KernelRankingPanel(KernelFocus* focus, QWidget* parent = nullptr);

    KernelRankingModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QLabel* scopeLabel() const { return m_scope; }
    bool exportCsv(const QString& path, QString* error = nullptr) const;
    // Value columns left out because the panel is too narrow for them (the most useful stay:
    // Total, Avg, Calls, Share, then the profiled metrics, then Median, Max, Min). Widening the
    // panel brings them back; the header's tooltip names them.
    QList<int> columnsLeftOut() const { return m_leftOut; }

    // The collect actions a row's context menu offers for the kernel's representative launch
    // (owned by the main window; none when null, the default).
    void setKernelActions(KernelActions* actions);
    // The context menu of a row (`proxyIndex` in view()'s model): pin, show, copy, and the
    // KernelActions items.
    void fillContextMenu(QMenu& menu, const QModelIndex& proxyIndex);

signals:
    // Double-click: the user wants to see this launch on the timeline.
    void kernelActivated(qint64 kernelId);

private:
    void onData();
    void onTimeRange();
    void onFocus();
    void onRowActivated(const QModelIndex& proxyIndex);
    void updateScope();
    void showContextMenu(const QPoint& pos);
    void fitColumns();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    KernelFocus* m_focus;
    KernelRankingModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLineEdit* m_filter;
    QLabel* m_scope;
    bool m_syncing = false;
    bool m_fitting = false;
    QList<int> m_leftOut;
    QPointer<KernelActions> m_kernelActions;
};

} // namespace ws

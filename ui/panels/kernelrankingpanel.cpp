// SPDX-License-Identifier: MIT
#include "ui/panels/kernelrankingpanel.h"

#include "ui/panels/panelexport.h"
#include "ui/session/kernelactions.h"
#include "ui/style/timeformat.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ws {

KernelRankingPanel::KernelRankingPanel(KernelFocus* focus, QWidget* parent)
    : QWidget(parent)
    , m_focus(focus)
    , m_model(new KernelRankingModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_scope(new QLabel(this))
{
    setObjectName(QStringLiteral("kernelRankingPanel"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(panelexport::kRawRole);
    m_proxy->setFilterRole(panelexport::kRawRole);
    m_proxy->setFilterKeyColumn(KernelRankingModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(KernelRankingModel::Total, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    // Numbers size to their contents; the name column takes its contents' width within limits and
    // stays user-resizable: stretching it let a narrow dock squeeze names down to "nvj...NNT".
    for (int c = KernelRankingModel::Calls; c < KernelRankingModel::ColumnCount; ++c)
        m_view->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(KernelRankingModel::Name, QHeaderView::Interactive);
    connect(m_view->model(), &QAbstractItemModel::modelReset, this, &KernelRankingPanel::fitColumns);
    connect(m_view->model(), &QAbstractItemModel::layoutChanged, this, &KernelRankingPanel::fitColumns);
    m_view->installEventFilter(this);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);

    m_filter->setPlaceholderText(tr("Filter kernels (text or regular expression over the full name)"));
    m_filter->setClearButtonEnabled(true);
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("CSV…"));
    exportButton->setToolTip(tr("Export the ranking as CSV (exact values in the header's units)"));
    m_scope->setObjectName(QStringLiteral("rankingScope"));
    m_scope->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_filter, 1);
    top->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_scope);
    layout->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid())
            re = QRegularExpression(QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption);
        m_proxy->setFilterRegularExpression(re);
        updateScope();
    });
    connect(exportButton, &QToolButton::clicked, this,
        [this] { panelexport::exportModelDialog(this, m_proxy, QStringLiteral("kernel-ranking")); });
    connect(
        m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            if (!m_syncing)
                onRowActivated(current);
        });
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QModelIndex source = m_proxy->mapToSource(index);
        const int group = m_model->data(source, KernelRankingModel::kGroupRole).toInt();
        if (m_focus->data())
            if (const auto* l = m_focus->data()->representative(static_cast<uint32_t>(group)))
                emit kernelActivated(l->id);
    });
    connect(m_view, &QWidget::customContextMenuRequested, this, &KernelRankingPanel::showContextMenu);
    connect(m_focus, &KernelFocus::dataChanged, this, &KernelRankingPanel::onData);
    connect(m_focus, &KernelFocus::changed, this, &KernelRankingPanel::onFocus);
    connect(m_focus->selection(), &SelectionModel::timeRangeChanged, this, &KernelRankingPanel::onTimeRange);
    onData();
}

void KernelRankingPanel::onData()
{
    m_syncing = true;
    m_model->setPanelData(m_focus->data());
    m_syncing = false;
    onTimeRange();
}

void KernelRankingPanel::onTimeRange()
{
    const TimeRange r = m_focus->selection()->timeRange();
    m_syncing = true;
    m_model->setWindow(r.isEmpty() ? TimeWindow {} : TimeWindow {r.begin, r.end});
    m_syncing = false;
    // The metric columns only where something was profiled: a trace-only session keeps its
    // table as narrow as before.
    fitColumns();
    updateScope();
    onFocus();
}

bool KernelRankingPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view && (event->type() == QEvent::Resize || event->type() == QEvent::Show))
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

void KernelRankingPanel::fitColumns()
{
    if (m_fitting)
        return;
    m_fitting = true;
    QHeaderView* header = m_view->horizontalHeader();
    const int em = m_view->fontMetrics().horizontalAdvance(QLatin1Char('m'));
    // The metric columns only where something was profiled: a trace-only session keeps its
    // table as narrow as before.
    const auto hasData
        = [this](int c) { return c < KernelRankingModel::ReplayDuration || m_model->hasProfiledKernels(); };
    // The name takes its contents' width within limits (with the four metric columns shown it
    // gives up some room); it stays user-resizable. Stretching it let a narrow dock squeeze
    // names down to "nvj...NNT".
    m_view->resizeColumnToContents(KernelRankingModel::Name);
    const int widest = m_model->hasProfiledKernels() ? 24 * em : 34 * em;
    const int nameWanted = std::clamp(m_view->columnWidth(KernelRankingModel::Name), 14 * em, widest);
    const int nameLeast = 12 * em;
    // The value columns first (issue 24 item 3): in order of use, each that still fits beside
    // the shortest name; the rest are left out until the panel is wider.
    static constexpr int kOrder[] = {KernelRankingModel::Total, KernelRankingModel::Average, KernelRankingModel::Calls,
        KernelRankingModel::Share, KernelRankingModel::SmPct, KernelRankingModel::DramPct,
        KernelRankingModel::AchievedOccupancy, KernelRankingModel::ReplayDuration, KernelRankingModel::Median,
        KernelRankingModel::Max, KernelRankingModel::Min};
    const int room = m_view->viewport()->width();
    const bool measure = m_view->isVisible() && room > 4 * em;
    int used = nameLeast;
    QList<int> leftOut;
    QStringList leftOutNames;
    for (int c : kOrder) {
        if (!hasData(c)) {
            m_view->setColumnHidden(c, true);
            continue;
        }
        const int need
            = std::max(static_cast<QAbstractItemView*>(m_view)->sizeHintForColumn(c), header->sectionSizeHint(c));
        const bool fits = !measure || used + need <= room;
        m_view->setColumnHidden(c, !fits);
        if (fits) {
            used += need;
        } else {
            leftOut << c;
            leftOutNames << m_model->headerData(c, Qt::Horizontal).toString();
        }
    }
    std::sort(leftOut.begin(), leftOut.end());
    m_leftOut = leftOut;
    const int name = measure ? std::clamp(room - (used - nameLeast), nameLeast, nameWanted) : nameWanted;
    m_view->setColumnWidth(KernelRankingModel::Name, name);
    header->setToolTip(leftOut.isEmpty()
            ? QString()
            : tr("Left out for room (widen the panel to see them): %1").arg(leftOutNames.join(QStringLiteral(", "))));
    m_fitting = false;
}

void KernelRankingPanel::onFocus()
{
    const int row = m_model->rowOfGroup(m_focus->currentGroup());
    m_syncing = true;
    if (row < 0) {
        m_view->selectionModel()->clearSelection();
    } else {
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        if (index.isValid()) {
            m_view->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_view->scrollTo(index);
        }
    }
    m_syncing = false;
}

void KernelRankingPanel::onRowActivated(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid())
        return;
    const QModelIndex source = m_proxy->mapToSource(proxyIndex);
    const int group = m_model->data(source, KernelRankingModel::kGroupRole).toInt();
    if (group != m_focus->currentGroup())
        m_focus->selectGroup(group);
    // A row the user picks brings its launch into the timeline's view (scrolls only when the
    // launch is off-screen; double-click still zooms to it).
    if (m_focus->data())
        if (const auto* l = m_focus->data()->representative(static_cast<uint32_t>(group)))
            m_focus->revealSpan(l->start, l->end);
}

void KernelRankingPanel::updateScope()
{
    const auto& session = m_focus->data();
    if (!session) {
        m_scope->setText(m_focus->emptyText());
        return;
    }
    if (session->launches.empty()) {
        m_scope->setText(tr("This session recorded no kernel launches."));
        return;
    }
    const TimeWindow w = m_model->window();
    const TimeNs origin = session->origin;
    QString scope = w.isEmpty()
        ? tr("whole session")
        : tr("range selection +%1 … +%2 (%3)")
              .arg(formatDuration(w.begin - origin), formatDuration(w.end - origin), formatDuration(w.end - w.begin));
    QString text = tr("%1 kernels, %2 launches, %3 of GPU kernel time in the %4")
                       .arg(formatCount(m_model->rowCount()), formatCount(m_model->launchesInWindow()),
                           formatDuration(m_model->totalNs()), scope);
    if (m_proxy->rowCount() != m_model->rowCount())
        text += tr("; %1 shown by the filter").arg(formatCount(m_proxy->rowCount()));
    m_scope->setText(text);
}

void KernelRankingPanel::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    fillContextMenu(menu, m_view->indexAt(pos));
    if (!menu.isEmpty())
        menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void KernelRankingPanel::fillContextMenu(QMenu& menu, const QModelIndex& index)
{
    if (!index.isValid() || !m_focus->data())
        return;
    const QModelIndex source = m_proxy->mapToSource(index);
    const int group = m_model->data(source, KernelRankingModel::kGroupRole).toInt();
    // The representative launch: the longest profiled one, else the longest (a traced launch).
    const auto* l = m_focus->data()->representative(static_cast<uint32_t>(group));
    if (l) {
        const qint64 id = l->id;
        menu.addAction(m_focus->isPinned(id) ? tr("Unpin from the details") : tr("Pin to the details (compare)"), this,
            [this, id] { m_focus->isPinned(id) ? m_focus->unpin(id) : m_focus->pin(id); });
        menu.addAction(tr("Show on the timeline"), this, [this, id] {
            m_focus->selectKernel(id);
            emit kernelActivated(id);
        });
    }
    menu.addAction(tr("Copy full name"), this, [this, source] {
        QApplication::clipboard()->setText(
            m_model->data(m_model->index(source.row(), KernelRankingModel::Name), panelexport::kRawRole).toString());
    });
    if (l && m_kernelActions)
        m_kernelActions->addTo(&menu, l->id);
}

bool KernelRankingPanel::exportCsv(const QString& path, QString* error) const
{
    return panelexport::saveModelCsv(m_proxy, path, error);
}

void KernelRankingPanel::setKernelActions(KernelActions* actions)
{
    m_kernelActions = actions;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/fleet/fleetview.h"

#include "ui/fleet/fleetheatmap.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ws {

namespace {

class NumberItem : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem& other) const override
    {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

QTableWidgetItem* sortable(double value, const QString& text)
{
    auto* item = new NumberItem(text);
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

// The summary column's text: times in ms (the header says so), the rest with their unit's precision.
QString summaryText(const FleetMetric& m, double v)
{
    if (m.unit == "ns")
        return QString::number(v / 1e6, 'f', 3);
    return QString::number(v, 'f', m.unit == "%" ? 1 : 0);
}

QString summaryHeader(const FleetMetric& m)
{
    const QString title = QString::fromStdString(fleetSummaryTitle(m));
    if (m.unit == "ns")
        return QStringLiteral("%1 (ms)").arg(title);
    return QStringLiteral("%1 (%2)").arg(title, QString::fromStdString(m.unit));
}

QString flaggedHeader(const FleetMetric& m)
{
    switch (m.columns) {
    case FleetColumns::Steps:
        return FleetView::tr("Straggler steps");
    case FleetColumns::Kernels:
        return FleetView::tr("Outlier kernels");
    case FleetColumns::Value:
        break;
    }
    return FleetView::tr("Outlier");
}

} // namespace

FleetView::FleetView(QWidget* parent)
    : QWidget(parent)
    , m_heatmap(new FleetHeatmap)
    , m_table(new QTableWidget)
    , m_metric(new QComboBox)
{
    m_metric->setObjectName(QStringLiteral("fleetMetric"));
    m_metric->setToolTip(tr("The per-rank metric the heatmap and the rank table show"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Metric:")));
    bar->addWidget(m_metric);
    bar->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_heatmap);
    scroll->setWidgetResizable(false);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(scroll);
    split->addWidget(m_table);
    // The heatmap is the view; the table below it is the index into it.
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({3000, 2000});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(split);
    m_table->setColumnCount(6);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    connect(m_heatmap, &FleetHeatmap::stepActivated, this, &FleetView::stepActivated);
    connect(m_heatmap, &FleetHeatmap::rankActivated, this, &FleetView::rankActivated);
    connect(m_heatmap, &FleetHeatmap::compareRequested, this, &FleetView::compareRequested);
    connect(m_metric, &QComboBox::activated, this, &FleetView::showMetric);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this, scroll](int row) {
        if (row < 0)
            return;
        const int gridRow = m_table->item(row, 0)->data(Qt::UserRole + 1).toInt();
        scroll->ensureVisible(0, m_heatmap->cellRect(gridRow, 0).center().y());
    });
}

void FleetView::setGrid(FleetStepGrid grid)
{
    std::vector<FleetStepGrid> one;
    one.push_back(std::move(grid));
    setGrids(std::move(one));
}

void FleetView::setGrids(std::vector<FleetStepGrid> grids)
{
    m_grids = std::move(grids);
    m_metric->clear();
    for (const FleetStepGrid& g : m_grids)
        m_metric->addItem(QString::fromStdString(g.metric.title));
    m_metric->setEnabled(m_grids.size() > 1);
    if (!m_grids.empty())
        showMetric(0);
}

void FleetView::showMetric(int index)
{
    if (index < 0 || index >= static_cast<int>(m_grids.size()))
        return;
    m_metric->setCurrentIndex(index);
    const FleetStepGrid& grid = m_grids[static_cast<size_t>(index)];
    fillTable(grid);
    m_heatmap->setGrid(grid);
    m_heatmap->resize(m_heatmap->sizeHint());
    emit metricChanged(index);
}

void FleetView::fillTable(const FleetStepGrid& grid)
{
    m_table->setSortingEnabled(false);
    m_table->setHorizontalHeaderLabels(
        {tr("Rank"), tr("PID"), tr("Device"), summaryHeader(grid.metric), flaggedHeader(grid.metric), tr("Straggler")});
    m_table->setRowCount(static_cast<int>(grid.ranks.size()));
    for (size_t r = 0; r < grid.ranks.size(); ++r) {
        const FleetRank& rank = grid.ranks[r];
        int flagged = 0;
        for (size_t c = 0; c < grid.steps.size(); ++c)
            flagged += grid.flagged(r, c) ? 1 : 0;
        const int row = static_cast<int>(r);
        auto* first = sortable(static_cast<double>(rank.rank), rank.rank >= 0 ? QString::number(rank.rank) : tr("-"));
        first->setData(Qt::UserRole + 1, row); // the heatmap row, whatever the sort
        if (rank.straggler)
            first->setForeground(QColor(0xd6, 0x27, 0x28));
        first->setToolTip(QString::fromStdString(rank.session));
        m_table->setItem(row, 0, first);
        m_table->setItem(row, 1, sortable(static_cast<double>(rank.pid), QString::number(rank.pid)));
        m_table->setItem(row, 2, sortable(static_cast<double>(rank.deviceId), QString::number(rank.deviceId)));
        m_table->setItem(row, 3, sortable(rank.summary, summaryText(grid.metric, rank.summary)));
        m_table->setItem(row, 4, sortable(flagged, QString::number(flagged)));
        m_table->setItem(row, 5, sortable(rank.straggler ? 1 : 0, rank.straggler ? tr("yes") : QString()));
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
}

} // namespace ws

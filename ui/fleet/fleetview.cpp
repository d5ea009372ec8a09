// SPDX-License-Identifier: MIT
#include "ui/fleet/fleetview.h"

#include "ui/fleet/fleetheatmap.h"

#include <QHeaderView>
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

} // namespace

FleetView::FleetView(QWidget* parent)
    : QWidget(parent)
    , m_heatmap(new FleetHeatmap)
    , m_table(new QTableWidget)
{
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_heatmap);
    scroll->setWidgetResizable(false);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(scroll);
    split->addWidget(m_table);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    m_table->setColumnCount(6);
    m_table->setHorizontalHeaderLabels(
        {tr("Rank"), tr("PID"), tr("Device"), tr("Median step (ms)"), tr("Straggler steps"), tr("Straggler")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    connect(m_heatmap, &FleetHeatmap::stepActivated, this, &FleetView::stepActivated);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this, scroll](int row) {
        if (row < 0)
            return;
        const int gridRow = m_table->item(row, 0)->data(Qt::UserRole + 1).toInt();
        scroll->ensureVisible(0, m_heatmap->cellRect(gridRow, 0).center().y());
    });
}

void FleetView::setGrid(FleetStepGrid grid)
{
    m_table->setSortingEnabled(false);
    m_table->setRowCount(static_cast<int>(grid.ranks.size()));
    for (size_t r = 0; r < grid.ranks.size(); ++r) {
        const FleetRank& rank = grid.ranks[r];
        int flagged = 0;
        for (size_t c = 0; c < grid.steps.size(); ++c)
            flagged += grid.flagged(r, c) ? 1 : 0;
        const int row = static_cast<int>(r);
        auto* first = sortable(static_cast<double>(rank.rank), rank.rank >= 0 ? QString::number(rank.rank) : tr("-"));
        first->setData(Qt::UserRole + 1, row); // the heatmap row, whatever the sort
        m_table->setItem(row, 0, first);
        m_table->setItem(row, 1, sortable(static_cast<double>(rank.pid), QString::number(rank.pid)));
        m_table->setItem(row, 2, sortable(static_cast<double>(rank.deviceId), QString::number(rank.deviceId)));
        m_table->setItem(row, 3, sortable(rank.medianStepNs, QString::number(rank.medianStepNs / 1e6, 'f', 3)));
        m_table->setItem(row, 4, sortable(flagged, QString::number(flagged)));
        m_table->setItem(row, 5, sortable(rank.straggler ? 1 : 0, rank.straggler ? tr("yes") : QString()));
    }
    m_table->setSortingEnabled(true);
    m_heatmap->setGrid(std::move(grid));
    m_heatmap->resize(m_heatmap->sizeHint());
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/metrictablemodel.h"

#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"

#include <QFont>
#include <QPixmap>

namespace ws {

MetricTableModel::MetricTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void MetricTableModel::set(std::vector<KernelColumn> columns, std::vector<MetricRow> rows)
{
    beginResetModel();
    m_columns = std::move(columns);
    m_rows = std::move(rows);
    endResetModel();
}

int MetricTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MetricTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 2 + static_cast<int>(m_columns.size());
}

QVariant MetricTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const MetricRow& row = m_rows[static_cast<size_t>(index.row())];
    const int col = index.column();
    if (role == Qt::FontRole && row.heading) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole)
        return row.tip.isEmpty() ? QVariant() : QVariant(row.tip);
    if (row.heading) {
        if (col == 0 && (role == Qt::DisplayRole || role == panelexport::kRawRole))
            return row.label;
        return {};
    }
    if (col == 0)
        return role == Qt::DisplayRole || role == panelexport::kRawRole ? QVariant(row.label) : QVariant();
    if (col == 1)
        return role == Qt::DisplayRole || role == panelexport::kRawRole ? QVariant(row.unit) : QVariant();
    const size_t k = static_cast<size_t>(col - 2);
    if (role == Qt::TextAlignmentRole)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    // A plain flag and value rather than a copied optional: GCC's -Wmaybe-uninitialized
    // misfires on optional<double> copies here.
    const bool has = k < row.values.size() && row.values[k].has_value();
    const double value = has ? *row.values[k] : 0.0;
    const QString text = k < row.texts.size() ? row.texts[k] : QString();
    if (role == Qt::DisplayRole) {
        if (!text.isEmpty())
            return text;
        return has ? panelformat::number(value, row.digits) : tr("n/c");
    }
    if (role == panelexport::kRawRole) {
        if (has)
            return value;
        return text;
    }
    if (role == Qt::ForegroundRole && !has && text.isEmpty())
        return QColor(Qt::gray);
    return {};
}

QVariant MetricTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < 2) {
        if (role == Qt::DisplayRole)
            return section == 0 ? tr("Metric") : tr("Unit");
        if (role == Qt::ToolTipRole)
            return section == 0 ? tr("Hover a metric for what it measures; n/c = not collected") : QVariant();
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    const KernelColumn& c = m_columns[static_cast<size_t>(section - 2)];
    switch (role) {
    case Qt::DisplayRole:
        return c.title;
    case Qt::ToolTipRole:
        return c.tooltip;
    case Qt::DecorationRole: {
        QPixmap swatch(10, 10);
        swatch.fill(c.color);
        return swatch;
    }
    default:
        return QAbstractTableModel::headerData(section, orientation, role);
    }
}

int MetricTableModel::rowOf(const QString& label) const
{
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].label == label)
            return static_cast<int>(i);
    }
    return -1;
}

} // namespace ws

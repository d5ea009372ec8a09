// SPDX-License-Identifier: MIT
#include "ui/panels/metrictablemodel.h"

#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"

#include <QFont>
#include <QPixmap>

#include <algorithm>

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
    const size_t column = col >= 2 ? static_cast<size_t>(col - 2) : 0;
    const QString note = col >= 2 && column < row.notes.size() ? row.notes[column] : QString();
    if (role == Qt::ToolTipRole) {
        if (!note.isEmpty())
            return row.tip.isEmpty() ? note : note + QStringLiteral("\n\n") + row.tip;
        return row.tip.isEmpty() ? QVariant() : QVariant(row.tip);
    }
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
        if (text.isEmpty() && !has)
            return tr("n/c");
        // The mark is part of the text so it reads next to the value in any style; CSV export
        // takes kRawRole, the bare number.
        const QString shown = text.isEmpty() ? panelformat::number(value, row.digits) : text;
        return note.isEmpty() ? shown : differenceMark() + QLatin1Char(' ') + shown;
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

bool MetricTableModel::hasNotes() const
{
    return std::any_of(m_rows.begin(), m_rows.end(), [](const MetricRow& r) {
        return std::any_of(r.notes.begin(), r.notes.end(), [](const QString& n) { return !n.isEmpty(); });
    });
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

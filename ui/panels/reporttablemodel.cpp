// SPDX-License-Identifier: MIT
#include "ui/panels/reporttablemodel.h"

#include "core/report/reportformat.h"
#include "ui/panels/panelexport.h"

namespace ws {

ReportTableModel::ReportTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ReportTableModel::setReport(ReportTable report, size_t maxRows)
{
    beginResetModel();
    m_rowsTotal = report.rows.size();
    if (maxRows > 0 && report.rows.size() > maxRows)
        report.rows.resize(maxRows);
    m_report = std::move(report);
    endResetModel();
}

int ReportTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_report.rows.size());
}

int ReportTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_report.columns.size());
}

QVariant ReportTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const ReportCell& cell = m_report.rows[static_cast<size_t>(index.row())][static_cast<size_t>(index.column())];
    const ReportColumn& column = m_report.columns[static_cast<size_t>(index.column())];
    switch (role) {
    case Qt::DisplayRole:
        return QString::fromStdString(formatCell(cell, column.kind != ColumnKind::Id));
    case Qt::ToolTipRole:
        if (column.kind == ColumnKind::Text)
            return QString::fromStdString(formatCell(cell));
        return {};
    case Qt::TextAlignmentRole:
        return column.kind == ColumnKind::Text ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case panelexport::kRawRole:
        if (const auto* i = std::get_if<int64_t>(&cell))
            return static_cast<qlonglong>(*i);
        if (const auto* d = std::get_if<double>(&cell))
            return *d;
        if (const auto* s = std::get_if<std::string>(&cell))
            return QString::fromStdString(*s);
        return QVariant(); // NULL: sorts first, empty in CSV
    default:
        return {};
    }
}

QVariant ReportTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && section >= 0 && section < columnCount() && role == Qt::DisplayRole)
        return QString::fromStdString(m_report.columns[static_cast<size_t>(section)].header());
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace ws

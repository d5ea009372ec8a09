// SPDX-License-Identifier: MIT
#include "ui/panels/reporttablemodel.h"

#include "core/report/reportformat.h"
#include "ui/panels/panelexport.h"
#include "ui/style/timeformat.h"

#include <algorithm>

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

std::optional<ReportTableModel::Interval> ReportTableModel::intervalOf(int row) const
{
    if (row < 0 || row >= rowCount())
        return std::nullopt;
    const auto& cells = m_report.rows[static_cast<size_t>(row)];
    for (size_t c = m_report.columns.size(); c-- > 1;) {
        if (m_report.columns[c].kind != ColumnKind::Duration || m_report.columns[c - 1].kind != ColumnKind::Timestamp)
            continue;
        const auto* start = std::get_if<int64_t>(&cells[c - 1]);
        const auto* duration = std::get_if<int64_t>(&cells[c]);
        if (start && duration)
            return Interval {*start, *start + *duration};
    }
    return std::nullopt;
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

namespace ws {

ReportViewProxy::ReportViewProxy(ReportTableModel* source, QObject* parent)
    : QSortFilterProxyModel(parent)
    , m_source(source)
{
    setSourceModel(source);
}

void ReportViewProxy::setOrigin(std::optional<TimeNs> origin)
{
    if (origin == m_origin)
        return;
    m_origin = origin;
    if (columnCount() > 0)
        emit dataChanged(index(0, 0), index(std::max(0, rowCount() - 1), columnCount() - 1));
    emit headerDataChanged(Qt::Horizontal, 0, std::max(0, columnCount() - 1));
}

bool ReportViewProxy::isRelativeTime(int column) const
{
    const auto& columns = m_source->report().columns;
    return m_origin && column >= 0 && static_cast<size_t>(column) < columns.size()
        && columns[static_cast<size_t>(column)].kind == ColumnKind::Timestamp;
}

QVariant ReportViewProxy::data(const QModelIndex& index, int role) const
{
    if (index.isValid() && isRelativeTime(index.column()) && (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
        const QVariant raw = QSortFilterProxyModel::data(index, panelexport::kRawRole);
        if (raw.isNull())
            return {};
        const TimeNs rel = raw.toLongLong() - *m_origin;
        // In the ruler's frame, to the nanosecond.
        if (role == Qt::DisplayRole)
            return formatTick(rel, 1);
        return tr("%1 ns since the session start; %2 ns raw, as CSV export writes it")
            .arg(QString::fromStdString(formatCell(ReportCell {int64_t {rel}}, true)),
                QString::fromStdString(formatCell(ReportCell {raw.toLongLong()}, true)));
    }
    return QSortFilterProxyModel::data(index, role);
}

QVariant ReportViewProxy::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && isRelativeTime(section)) {
        const ReportColumn& column = m_source->report().columns[static_cast<size_t>(section)];
        // Each cell carries its unit ("1.234567 ms"); the header names the frame instead.
        if (role == Qt::DisplayRole)
            return tr("%1 (from start)").arg(QString::fromStdString(column.name));
        if (role == Qt::ToolTipRole)
            return tr("Time since the session start, as the timeline's ruler shows it; CSV export writes the raw "
                      "timestamp (%1)")
                .arg(QString::fromStdString(column.header()));
    }
    return QSortFilterProxyModel::headerData(section, orientation, role);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/compare/comparemetricmodel.h"

#include "ui/panels/panelexport.h"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <cmath>

namespace ws {

namespace {

QString value(double v)
{
    if (!std::isfinite(v))
        return {};
    const double a = std::fabs(v);
    if (a != 0 && (a >= 1e7 || a < 1e-3))
        return QString::number(v, 'e', 3);
    return QString::number(v, 'f', a >= 100 ? 1 : 3);
}

} // namespace

CompareMetricModel::CompareMetricModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CompareMetricModel::setRows(std::vector<compare::MetricRow> rows, double thresholdPct)
{
    const auto size
        = [](const compare::MetricRow& m) { return std::isfinite(m.diffPct) ? std::fabs(m.diffPct) : -1.0; };
    std::stable_sort(rows.begin(), rows.end(),
        [&](const compare::MetricRow& x, const compare::MetricRow& y) { return size(x) > size(y); });
    beginResetModel();
    m_rows = std::move(rows);
    m_threshold = thresholdPct;
    endResetModel();
}

int CompareMetricModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CompareMetricModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareMetricModel::data(const QModelIndex& index, int role) const
{
    if (index.row() < 0 || index.row() >= rowCount() || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const compare::MetricRow& m = m_rows[static_cast<size_t>(index.row())];
    const auto col = static_cast<Column>(index.column());
    if (role == Qt::DisplayRole || role == panelexport::kRawRole) {
        const bool raw = role == panelexport::kRawRole;
        switch (col) {
        case Metric:
            return QString::fromStdString(m.name);
        case Unit:
            return QString::fromStdString(m.unit);
        case Baseline:
            return raw ? QVariant(m.valueA) : QVariant(value(m.valueA));
        case Value:
            return raw ? QVariant(m.valueB) : QVariant(value(m.valueB));
        case Diff:
            return raw ? QVariant(m.diff) : QVariant((m.diff > 0 ? QStringLiteral("+") : QString()) + value(m.diff));
        case DiffPct:
            if (!std::isfinite(m.diffPct))
                return {};
            return raw ? QVariant(m.diffPct) : QVariant(QString::asprintf("%+.1f%%", m.diffPct));
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole)
        return m.section.empty()
            ? QString::fromStdString(m.name)
            : tr("%1\nsection %2").arg(QString::fromStdString(m.name), QString::fromStdString(m.section));
    if (role == Qt::TextAlignmentRole && col >= Baseline)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole && (col == Diff || col == DiffPct) && m.better != 0 && std::isfinite(m.diffPct)
        && std::fabs(m.diffPct) > m_threshold)
        return QBrush(m.better > 0 ? QColor(200, 235, 205) : QColor(245, 205, 205));
    return {};
}

QVariant CompareMetricModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Metric:
        return tr("Metric");
    case Unit:
        return tr("Unit");
    case Baseline:
        return tr("Baseline (A)");
    case Value:
        return tr("Value (B)");
    case Diff:
        return tr("Difference");
    case DiffPct:
        return tr("Difference (%)");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/metricbaselinemodel.h"

#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"

#include <QBrush>

#include <algorithm>
#include <cmath>

namespace ws {

MetricBaselineModel::MetricBaselineModel(MetricTableModel* source, QObject* parent)
    : QAbstractTableModel(parent)
    , m_source(source)
{
    // MetricTableModel changes by reset only (set()).
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this, [this] { beginResetModel(); });
    connect(source, &QAbstractItemModel::modelReset, this, [this] { endResetModel(); });
}

int MetricBaselineModel::kernelCount() const
{
    return m_source ? std::max(0, m_source->columnCount() - 2) : 0;
}

int MetricBaselineModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_source ? 0 : m_source->rowCount();
}

int MetricBaselineModel::columnCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_source)
        return 0;
    const int n = kernelCount();
    return 2 + n + (n >= 2 ? 2 * (n - 1) : 0);
}

MetricBaselineModel::Column MetricBaselineModel::column(int section) const
{
    if (section == 0)
        return {Kind::Label, -1};
    if (section == 1)
        return {Kind::Unit, -1};
    if (section == 2)
        return {Kind::Value, 0};
    // After the first kernel: value, Δ, Δ% per kernel.
    const int k = 1 + (section - 3) / 3;
    static constexpr Kind kinds[] = {Kind::Value, Kind::Delta, Kind::Percent};
    return {kinds[(section - 3) % 3], k};
}

int MetricBaselineModel::valueColumn(int kernel) const
{
    return kernel <= 0 ? 2 : 3 + 3 * (kernel - 1);
}

std::optional<double> MetricBaselineModel::delta(const MetricRow& row, int kernel) const
{
    const auto k = static_cast<size_t>(kernel);
    // A value shown as text ("(1024, 1, 1)") is not a number to subtract.
    const auto isNumber = [&row](size_t i) {
        return i < row.values.size() && row.values[i].has_value() && (i >= row.texts.size() || row.texts[i].isEmpty());
    };
    if (row.heading || !isNumber(0) || !isNumber(k))
        return std::nullopt;
    return *row.values[k] - *row.values[0];
}

QVariant MetricBaselineModel::data(const QModelIndex& index, int role) const
{
    if (!m_source || !index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const Column c = column(index.column());
    const int sourceColumn = c.kind == Kind::Label ? 0 : (c.kind == Kind::Unit ? 1 : 2 + c.kernel);
    if (c.kind == Kind::Label || c.kind == Kind::Unit || c.kind == Kind::Value)
        return m_source->data(m_source->index(index.row(), sourceColumn), role);

    const MetricRow& row = m_source->rows()[static_cast<size_t>(index.row())];
    if (row.heading)
        return role == Qt::FontRole ? m_source->data(m_source->index(index.row(), 0), role) : QVariant();
    const auto d = delta(row, c.kernel);
    const double base = d ? *row.values[0] : 0.0;
    // % of the baseline's magnitude; none against a zero baseline.
    const std::optional<double> pct
        = d && base != 0 ? std::optional<double>(100.0 * *d / std::fabs(base)) : std::nullopt;
    const std::optional<double> shown = c.kind == Kind::Delta ? d : pct;
    switch (role) {
    case Qt::DisplayRole: {
        if (!shown)
            return QString();
        const double v = *shown;
        const QString sign = v > 0 ? QStringLiteral("+") : QString();
        if (c.kind == Kind::Delta)
            return sign + panelformat::number(v, row.digits);
        // No "-0.0 %": a change that rounds away reads as none.
        if (std::fabs(v) < kShownPercent)
            return QStringLiteral("0.0 %");
        return sign + QString::number(v, 'f', 1) + QStringLiteral(" %");
    }
    case panelexport::kRawRole:
        return shown ? QVariant(*shown) : QVariant();
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole: {
        // Coloured where the shown % says there is a change, so "0.0 %" is never green or red.
        if (!d || *d == 0 || row.preference == 0 || (pct && std::fabs(*pct) < kShownPercent))
            return {};
        const bool better = (*d > 0) == (row.preference > 0);
        return QBrush(better ? betterColor() : worseColor());
    }
    case Qt::ToolTipRole: {
        const QString baseline = m_source->headerData(2, Qt::Horizontal).toString();
        const QString self = m_source->headerData(2 + c.kernel, Qt::Horizontal).toString();
        const QString direction = row.preference > 0
            ? tr("Higher is better.")
            : (row.preference < 0 ? tr("Lower is better.") : tr("Which way is better is not known: not coloured."));
        return tr("%1 against %2 (the baseline, first pin). %3").arg(self, baseline, direction);
    }
    default:
        return {};
    }
}

QVariant MetricBaselineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (!m_source || orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    const Column c = column(section);
    if (c.kind == Kind::Label || c.kind == Kind::Unit)
        return m_source->headerData(section, orientation, role);
    const int sourceColumn = 2 + c.kernel;
    if (c.kind == Kind::Value)
        return m_source->headerData(sourceColumn, orientation, role);
    // "#4" of "#4 relu_kernel": short enough for a narrow column, unique in a CSV header.
    const QString self = m_source->headerData(sourceColumn, orientation, Qt::DisplayRole).toString().section(' ', 0, 0);
    const QString base = m_source->headerData(2, orientation, Qt::DisplayRole).toString().section(' ', 0, 0);
    if (role == Qt::DisplayRole)
        return (c.kind == Kind::Delta ? QStringLiteral("Δ %1") : QStringLiteral("Δ% %1")).arg(self);
    if (role == Qt::ToolTipRole)
        return c.kind == Kind::Delta ? tr("%1 − %2 (the first pin, the baseline), in the row's unit").arg(self, base)
                                     : tr("(%1 − %2) / |%2|, in %").arg(self, base);
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace ws

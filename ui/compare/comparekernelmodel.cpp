// SPDX-License-Identifier: MIT
#include "ui/compare/comparekernelmodel.h"

#include "core/ranking/compactname.h"
#include "ui/panels/panelexport.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace ws {

namespace {

QVariant number(double v)
{
    return std::isfinite(v) ? QVariant(v) : QVariant();
}

QString micro(double ns)
{
    return std::isfinite(ns) ? QString::number(ns / 1000.0, 'f', 2) : QString();
}

} // namespace

CompareKernelModel::CompareKernelModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CompareKernelModel::setComparison(const compare::Comparison* comparison, double alpha, double thresholdPct)
{
    beginResetModel();
    m_rows = comparison ? comparison->kernels : std::vector<compare::KernelRow> {};
    m_alpha = alpha;
    m_threshold = thresholdPct;
    endResetModel();
}

const compare::KernelRow* CompareKernelModel::rowAt(int row) const
{
    return row >= 0 && row < static_cast<int>(m_rows.size()) ? &m_rows[static_cast<size_t>(row)] : nullptr;
}

int CompareKernelModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CompareKernelModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareKernelModel::data(const QModelIndex& index, int role) const
{
    const compare::KernelRow* r = rowAt(index.row());
    if (!r || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const auto col = static_cast<Column>(index.column());
    if (role == kKeyARole)
        return r->keyA;
    if (role == kKeyBRole)
        return r->keyB;
    const QString match = r->matched() ? QString::fromLatin1(compare::matchKindName(r->kind))
                                       : (r->keyA >= 0 ? tr("only A") : tr("only B"));
    if (role == panelexport::kRawRole) {
        switch (col) {
        case Kernel:
            return QString::fromStdString(r->name);
        case Path:
            return QString::fromStdString(r->path);
        case Match:
            return match;
        case CallsA:
            return qint64(r->countA);
        case CallsB:
            return qint64(r->countB);
        case MedianA:
            return number(r->medianA / 1000);
        case MedianB:
            return number(r->medianB / 1000);
        case Diff:
            return number(r->diffNs / 1000);
        case DiffPct:
            return number(r->diffPct);
        case PValue:
            return number(r->pValue);
        case ZScore:
            return number(r->zScore);
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Kernel:
            return QString::fromStdString(compactKernelName(r->name));
        case Path:
            return QString::fromStdString(r->path);
        case Match:
            return match;
        case CallsA:
            return qint64(r->countA);
        case CallsB:
            return qint64(r->countB);
        case MedianA:
            return micro(r->medianA);
        case MedianB:
            return micro(r->medianB);
        case Diff:
            return std::isfinite(r->diffNs) ? (r->diffNs > 0 ? QStringLiteral("+") : QString()) + micro(r->diffNs)
                                            : QString();
        case DiffPct:
            return std::isfinite(r->diffPct) ? QString::asprintf("%+.1f%%", r->diffPct) : QString();
        case PValue:
            return std::isfinite(r->pValue) ? QString::number(r->pValue, r->pValue < 1e-4 ? 'e' : 'f', 4) : QString();
        case ZScore:
            return std::isfinite(r->zScore) ? QString::number(r->zScore, 'f', 2) : QString();
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(r->name);
        if (!r->nameA.empty())
            tip += tr("\npaired with A's %1").arg(QString::fromStdString(r->nameA));
        if (!r->path.empty())
            tip += tr("\nNVTX path: %1").arg(QString::fromStdString(r->path));
        return tip;
    }
    if (role == Qt::TextAlignmentRole && col >= CallsA)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && (col == Diff || col == DiffPct) && r->matched()) {
        // Coloured only when the change is significant and beyond the threshold.
        const bool significant = std::isfinite(r->pValue) && r->pValue < m_alpha && std::isfinite(r->diffPct)
            && std::fabs(r->diffPct) > m_threshold;
        if (significant)
            return QBrush(r->diffPct > 0 ? QColor(190, 30, 30) : QColor(20, 130, 50));
    }
    if (role == Qt::ForegroundRole && !r->matched())
        return QBrush(QColor(110, 110, 110));
    return {};
}

QVariant CompareKernelModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Kernel:
        return tr("Kernel");
    case Path:
        return tr("NVTX path");
    case Match:
        return tr("Match");
    case CallsA:
        return tr("Calls A");
    case CallsB:
        return tr("Calls B");
    case MedianA:
        return tr("A med (µs)");
    case MedianB:
        return tr("B med (µs)");
    case Diff:
        return tr("Δ (µs)");
    case DiffPct:
        return tr("Δ (%)");
    case PValue:
        return tr("p");
    case ZScore:
        return tr("z");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace ws

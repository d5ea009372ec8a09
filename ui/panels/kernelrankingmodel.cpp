// SPDX-License-Identifier: MIT
#include "ui/panels/kernelrankingmodel.h"

#include "core/ranking/compactname.h"
#include "ui/panels/panelexport.h"
#include "ui/style/timeformat.h"

namespace ws {

namespace {

// Durations are shown in µs (3 decimals) and the total in ms: the units Proton prints, and
// one unit per column keeps a column comparable at a glance.
QString us(double ns)
{
    return QString::number(ns / 1e3, 'f', 3);
}

} // namespace

KernelRankingModel::KernelRankingModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void KernelRankingModel::setPanelData(std::shared_ptr<const PanelData> data)
{
    m_data = std::move(data);
    m_window = {};
    recompute();
}

void KernelRankingModel::setWindow(const TimeWindow& window)
{
    if (window == m_window)
        return;
    m_window = window;
    recompute();
}

void KernelRankingModel::recompute()
{
    beginResetModel();
    m_ranks = m_data ? rankKernels(m_data->launches, m_window) : std::vector<KernelRank> {};
    m_launches = 0;
    m_total = 0;
    for (const KernelRank& r : m_ranks) {
        m_launches += r.calls;
        m_total += r.totalNs;
    }
    endResetModel();
}

int KernelRankingModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_ranks.size());
}

int KernelRankingModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelRankingModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const KernelRank& r = m_ranks[static_cast<size_t>(index.row())];
    const KernelGroup& g = m_data->launches.groups()[r.group];
    const int col = index.column();
    if (role == kGroupRole)
        return static_cast<int>(r.group);
    if (role == Qt::TextAlignmentRole)
        return col == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (col == Name) {
            QString tip = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(g.name).toHtmlEscaped());
            if (!g.mangled.empty() && g.mangled != g.name)
                tip += QStringLiteral("<br><small>%1</small>").arg(QString::fromStdString(g.mangled).toHtmlEscaped());
            return tip;
        }
        return tr("%1 launches of %2 in the window: GPU time from kernel start to end. Share is this kernel's part "
                  "of the summed kernel time in the window (concurrent kernels add up), not of wall time.")
            .arg(formatCount(r.calls), QString::fromStdString(g.shortName));
    }
    if (role == panelexport::kRawRole) {
        switch (col) {
        case Name:
            return QString::fromStdString(g.name);
        case Calls:
            return static_cast<qlonglong>(r.calls);
        case Total:
            return static_cast<double>(r.totalNs) / 1e6;
        case Average:
            return r.avgNs / 1e3;
        case Median:
            return r.medianNs / 1e3;
        case Min:
            return static_cast<double>(r.minNs) / 1e3;
        case Max:
            return static_cast<double>(r.maxNs) / 1e3;
        case Share:
            return r.sharePct;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Name:
            return QString::fromStdString(compactKernelName(g.name));
        case Calls:
            return formatCount(r.calls);
        case Total:
            return QString::number(static_cast<double>(r.totalNs) / 1e6, 'f', 3);
        case Average:
            return us(r.avgNs);
        case Median:
            return us(r.medianNs);
        case Min:
            return us(static_cast<double>(r.minNs));
        case Max:
            return us(static_cast<double>(r.maxNs));
        case Share:
            return QString::number(r.sharePct, 'f', 1);
        }
    }
    return {};
}

QVariant KernelRankingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        static const char* const kHeaders[]
            = {QT_TR_NOOP("Kernel"), QT_TR_NOOP("Calls"), QT_TR_NOOP("Total (ms)"), QT_TR_NOOP("Avg (µs)"),
                QT_TR_NOOP("Median (µs)"), QT_TR_NOOP("Min (µs)"), QT_TR_NOOP("Max (µs)"), QT_TR_NOOP("Share (%)")};
        return tr(kHeaders[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char* const kTips[] = {
            QT_TR_NOOP("Kernel function name (hover a row for the full demangled name)"),
            QT_TR_NOOP("Launches overlapping the time window"),
            QT_TR_NOOP("Summed GPU execution time of those launches, ms"),
            QT_TR_NOOP("Mean GPU execution time per launch, µs"),
            QT_TR_NOOP("Median GPU execution time per launch, µs"),
            QT_TR_NOOP("Shortest launch, µs"),
            QT_TR_NOOP("Longest launch, µs"),
            QT_TR_NOOP("Share of the summed kernel time in the window (cuda_gpu_kern_sum's Time %)"),
        };
        return tr(kTips[section]);
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

int KernelRankingModel::rowOfGroup(int group) const
{
    for (size_t i = 0; i < m_ranks.size(); ++i) {
        if (static_cast<int>(m_ranks[i].group) == group)
            return static_cast<int>(i);
    }
    return -1;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/kernelrankingmodel.h"

#include "core/metrics/metricnames.h"
#include "core/ranking/compactname.h"
#include "ui/panels/panelexport.h"
#include "ui/style/timeformat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ws {

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

constexpr int kMetricColumns = KernelRankingModel::ColumnCount - KernelRankingModel::ReplayDuration;

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
    if (!m_data)
        m_ranks.clear();
    else
        m_ranks = m_window.isEmpty() ? m_data->ranking : rankKernels(m_data->launches, m_window);
    m_launches = 0;
    m_total = 0;
    for (const KernelRank& r : m_ranks) {
        m_launches += r.calls;
        m_total += r.totalNs;
    }
    m_profiled.clear();
    if (m_data) {
        // The profiled launches of each kernel name in the window, as the panels show them: on
        // the traced launch they were measured for.
        std::map<uint32_t, std::array<std::vector<double>, kMetricColumns>> samples;
        std::map<uint32_t, int> launches;
        for (const SessionMetrics::Kernel& k : m_data->metrics.kernels()) {
            const KernelLaunchTable::Launch* l = m_data->launches.find(k.launch.id);
            if (!l || !(m_window.isEmpty() || m_window.overlaps(l->start, l->end)))
                continue;
            ++launches[l->group];
            auto& columns = samples[l->group];
            for (int c = 0; c < kMetricColumns; ++c) {
                const char* name = metricOf(ReplayDuration + c);
                if (const auto v = k.metrics.get(name))
                    columns[static_cast<size_t>(c)].push_back(c == 0 ? toBaseUnit(*v, k.metrics.unit(name)) : *v);
            }
        }
        for (auto& [group, columns] : samples) {
            Profiled p;
            p.launches = launches[group];
            for (int c = 0; c < kMetricColumns; ++c)
                p.values[c] = median(std::move(columns[static_cast<size_t>(c)]));
            m_profiled.emplace(group, p);
        }
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
    if (col >= ReplayDuration) {
        const auto it = m_profiled.find(r.group);
        const double v = it == m_profiled.end() ? std::nan("") : it->second.values[col - ReplayDuration];
        if (role == Qt::ToolTipRole)
            return it == m_profiled.end()
                ? tr("%1 was not profiled: right-click → Collect metrics").arg(QString::fromStdString(g.shortName))
                : tr("%1: median over %n profiled launch(es) of %2 in the window", nullptr, it->second.launches)
                      .arg(QString::fromLatin1(metricOf(col)), QString::fromStdString(g.shortName));
        if (std::isnan(v))
            return {};
        if (role == panelexport::kRawRole)
            return col == ReplayDuration ? v / 1e3 : v;
        if (role == Qt::DisplayRole)
            return col == ReplayDuration ? us(v) : QString::number(v, 'f', 1);
        return {};
    }
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
                QT_TR_NOOP("Median (µs)"), QT_TR_NOOP("Min (µs)"), QT_TR_NOOP("Max (µs)"), QT_TR_NOOP("Share (%)"),
                QT_TR_NOOP("Replay (µs)"), QT_TR_NOOP("SM (%)"), QT_TR_NOOP("DRAM (%)"), QT_TR_NOOP("Occupancy (%)")};
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
            QT_TR_NOOP("gpu__time_duration.sum: GPU time of one launch under the profiler's kernel replay (cache "
                       "control as the profile run says), µs; median over the kernel's profiled launches in the "
                       "window. Empty: not profiled"),
            QT_TR_NOOP("sm__throughput.avg.pct_of_peak_sustained_elapsed: SM throughput, % of peak over the launch "
                       "(the busiest SM unit); median over the kernel's profiled launches. Empty: not profiled"),
            QT_TR_NOOP("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed: DRAM throughput, % of peak over "
                       "the launch; median over the kernel's profiled launches. Empty: not profiled"),
            QT_TR_NOOP("sm__warps_active.avg.pct_of_peak_sustained_active: achieved occupancy, active warps per "
                       "active cycle as % of the SM's maximum; median over the kernel's profiled launches. Empty: not "
                       "profiled"),
        };
        return tr(kTips[section]);
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

const char* KernelRankingModel::metricOf(int column)
{
    switch (column) {
    case ReplayDuration:
        return metric::kDuration;
    case SmPct:
        return metric::kSmThroughput;
    case DramPct:
        return metric::kDramThroughput;
    case AchievedOccupancy:
        return metric::kAchievedOccupancy;
    default:
        return "";
    }
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

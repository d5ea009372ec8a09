// SPDX-License-Identifier: MIT
#pragma once

#include "core/ranking/kernelranking.h"
#include "ui/panels/paneldata.h"

#include <QAbstractTableModel>

#include <map>
#include <memory>

namespace ws {

// The kernel ranking as a table (Proton's per-kernel view with the spread): one row per kernel
// name with calls, total, average, median, min, max and share, for a time window. Durations
// are GPU execution times (kernel end - start); the header names each column's unit. Display
// text is rounded, kRawRole gives the exact value in the header's unit for sorting and CSV.
class KernelRankingModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The last four are the key metrics of the kernel's profiled launches (a profile run's
    // launches linked to the traced ones), empty for a kernel that was not profiled.
    enum Column {
        Name,
        Calls,
        Total,
        Average,
        Median,
        Min,
        Max,
        Share,
        ReplayDuration,
        SmPct,
        DramPct,
        AchievedOccupancy,
        ColumnCount
    };
    static constexpr int kGroupRole = Qt::UserRole + 1; // index into KernelLaunchTable::groups()

    explicit KernelRankingModel(QObject* parent = nullptr);

    void setPanelData(std::shared_ptr<const PanelData> data);
    // Recomputes the ranking for the launches overlapping the window (empty = everything).
    void setWindow(const TimeWindow& window);
    const TimeWindow& window() const { return m_window; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The row of a kernel name, -1 when it has no launch in the window.
    int rowOfGroup(int group) const;
    int64_t launchesInWindow() const { return m_launches; }
    int64_t totalNs() const { return m_total; }
    const std::vector<KernelRank>& ranks() const { return m_ranks; }
    // Whether any kernel in the window has profiled launches (the metric columns have values).
    bool hasProfiledKernels() const { return !m_profiled.empty(); }

    // The metric each metric column shows (ncu's name), "" for the trace columns.
    static const char* metricOf(int column);

private:
    void recompute();

    std::shared_ptr<const PanelData> m_data;
    TimeWindow m_window;
    std::vector<KernelRank> m_ranks;
    int64_t m_launches = 0;
    int64_t m_total = 0;
    // Per group with profiled launches in the window: the median of each metric column over
    // them (NaN where the metric is absent), and how many launches that is.
    struct Profiled {
        double values[ColumnCount - ReplayDuration];
        int launches = 0;
    };
    std::map<uint32_t, Profiled> m_profiled;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/reporttable.h"

#include "core/model/records.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <optional>

namespace ws {

// A stats report (the same ReportTable `warpscope-cli stats` prints) as a table: headers with
// units as nsys prints them ("Total Time (ns)"), numbers digit-grouped for reading, kRawRole
// with the exact value for sorting and CSV. NULL cells (no queue time, ...) stay empty.

class ReportTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit ReportTableModel(QObject* parent = nullptr);

    // Rows past `maxRows` are left out (trace reports of a 10M-event session); rowsTotal()
    // keeps the full count so the panel can say so. 0 = no limit.
    void setReport(ReportTable report, size_t maxRows = 0);
    const ReportTable& report() const { return m_report; }
    size_t rowsTotal() const { return m_rowsTotal; }
    // The event or interval a row names: its last timestamp column followed by a duration
    // (a kernel's start and GPU time in cuda_kern_exec_trace, a gap in gpu_idle_gaps), in
    // session nanoseconds. nullopt for summary rows, which name no single interval.
    struct Interval {
        TimeNs start = 0;
        TimeNs end = 0;
        bool operator==(const Interval&) const = default;
    };
    std::optional<Interval> intervalOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ReportTable m_report;
    size_t m_rowsTotal = 0;
};

// The report as the Stats panel shows it: sortable and filterable, and with a session origin
// its timestamp columns read in the timeline ruler's frame (time since the session start,
// "1.234567 ms", header "Kernel Start (from start)"). The source model stays the CLI's table
// (nsys headers, raw values), and kRawRole passes through for sorting and CSV.
class ReportViewProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit ReportViewProxy(ReportTableModel* source, QObject* parent = nullptr);
    // The session's first timestamp; nullopt shows raw nanoseconds.
    void setOrigin(std::optional<TimeNs> origin);
    std::optional<TimeNs> origin() const { return m_origin; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool isRelativeTime(int column) const;

    ReportTableModel* m_source;
    std::optional<TimeNs> m_origin;
};

} // namespace ws

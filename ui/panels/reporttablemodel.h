// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/reporttable.h"

#include <QAbstractTableModel>

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

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ReportTable m_report;
    size_t m_rowsTotal = 0;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparison.h"

#include <QAbstractTableModel>

namespace ws {

// The metrics of one matched kernel pair: value in A (the baseline), value in B, difference
// and %, the difference coloured green when B moved the way that is better for the metric
// (shorter, fewer bytes, higher throughput), red when worse, uncoloured when unknown or within
// the threshold.
class CompareMetricModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Metric, Unit, Baseline, Value, Diff, DiffPct, ColumnCount };

    explicit CompareMetricModel(QObject* parent = nullptr);

    // Rows ordered by the size of the relative change, largest first; differences within
    // `thresholdPct` are left uncoloured (noise between two profiling runs).
    void setRows(std::vector<compare::MetricRow> rows, double thresholdPct = 2.0);
    const std::vector<compare::MetricRow>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<compare::MetricRow> m_rows;
    double m_threshold = 2.0;
};

} // namespace ws

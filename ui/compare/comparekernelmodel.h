// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparison.h"

#include <QAbstractTableModel>

namespace ws {

// The kernel table of a comparison: one row per matched pair (A, B, difference and %), then
// the kernels only A or only B has. Durations in microseconds; kRawRole (panelexport) gives
// the exact value for sorting and CSV, so a QSortFilterProxyModel sorts by difference.
class CompareKernelModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kernel, Path, Match, CallsA, CallsB, MedianA, MedianB, Diff, DiffPct, PValue, ZScore, ColumnCount };
    static constexpr int kKeyARole = Qt::UserRole + 1; // key index in A, -1 when only in B
    static constexpr int kKeyBRole = Qt::UserRole + 2;

    explicit CompareKernelModel(QObject* parent = nullptr);

    void setComparison(const compare::Comparison* comparison, double alpha, double thresholdPct);
    const compare::KernelRow* rowAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<compare::KernelRow> m_rows;
    double m_alpha = 0.05;
    double m_threshold = 2;
};

} // namespace ws

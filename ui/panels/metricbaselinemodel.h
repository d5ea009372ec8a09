// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/metrictablemodel.h"

#include <QAbstractTableModel>
#include <QPointer>

#include <optional>

namespace ws {

// A details table as the panel shows it: the MetricTableModel's Metric, Unit and kernel columns,
// and with two kernels or more, after each kernel but the first a Δ and a Δ% column against the
// first (the first pin: KernelFocus lists pins first), as ncu's baseline does. A difference is
// coloured green when the kernel moved the better way for the metric, red when worse
// (MetricRow::preference), uncoloured when the direction is not known. kRawRole gives the bare
// numbers, so CSV export writes them under their "Δ #4" / "Δ% #4" headers.
class MetricBaselineModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit MetricBaselineModel(MetricTableModel* source, QObject* parent = nullptr);

    enum class Kind { Label, Unit, Value, Delta, Percent };
    struct Column {
        Kind kind = Kind::Label;
        int kernel = -1; // kernel column of the source (Value, Delta, Percent)
    };
    Column column(int section) const;
    // The view column of the source's kernel column `kernel`.
    int valueColumn(int kernel) const;

    // The colours of a better and a worse difference (cell background).
    static QColor betterColor() { return {200, 235, 205}; }
    static QColor worseColor() { return {245, 205, 205}; }
    // The smallest |Δ%| the one-decimal column shows as a change; smaller ones read "0.0 %" and
    // are not coloured.
    static constexpr double kShownPercent = 0.05;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int kernelCount() const;
    // value(kernel) - value(0), when both are numbers.
    std::optional<double> delta(const MetricRow& row, int kernel) const;

    QPointer<MetricTableModel> m_source;
};

} // namespace ws

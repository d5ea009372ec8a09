// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <optional>
#include <vector>

namespace ws {

// One line of a details table: a figure with its unit and, per kernel column, its value.
struct MetricRow {
    QString label;
    QString unit;
    QString tip;                               // what it measures and where it comes from (ncu metric name)
    std::vector<std::optional<double>> values; // one per kernel column; empty = not collected
    std::vector<QString> texts;                // display overrides per column ("(1024, 1, 1)")
    // Per column, how far this value is known to differ from ncu's (KnownDifferences::note);
    // empty = no known difference. Marked next to the value, said in its tooltip.
    std::vector<QString> notes;
    int digits = 4;
    bool heading = false; // a group title row (label only, bold)
    // Which way is better when kernels are compared: +1 higher (throughput, % of peak), -1
    // lower (durations, bytes, stalls), 0 not known (the difference is left uncoloured).
    int preference = 0;
};

// The table of a details panel: Metric, Unit, then one column per shown kernel (pinned
// kernels side by side with the current one). kRawRole gives numbers for sorting and CSV.
class MetricTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The mark drawn next to a value with a known difference from ncu, and said in the legend.
    static QString differenceMark() { return QStringLiteral("\u2248"); }

    struct KernelColumn {
        QString title;   // "#12 gemm_kernel"
        QString tooltip; // full name, launch id, pinned/current
        QColor color;    // the kernel's series colour in the plots
    };

    explicit MetricTableModel(QObject* parent = nullptr);
    void set(std::vector<KernelColumn> columns, std::vector<MetricRow> rows);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const std::vector<MetricRow>& rows() const { return m_rows; }
    // The row with this label (first match), -1 when absent.
    int rowOf(const QString& label) const;
    // Whether any value shown carries a known-difference note.
    bool hasNotes() const;

private:
    std::vector<KernelColumn> m_columns;
    std::vector<MetricRow> m_rows;
};

} // namespace ws

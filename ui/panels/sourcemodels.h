// SPDX-License-Identifier: MIT
#pragma once

#include "core/source/sourceview.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <vector>

namespace ws {

// Roles shared by the SASS and source-line tables.
namespace sourceroles {
// QVariantList of qlonglong: samples per SourceView::reasons() entry (the stacked bar).
constexpr int kReasonSamples = Qt::UserRole + 1;
// qlonglong: the largest row total of the table, so bars share one scale.
constexpr int kScaleMax = Qt::UserRole + 2;
// qlonglong: the row's total samples (sorting, tests).
constexpr int kTotal = Qt::UserRole + 3;
// bool: the row belongs to the highlighted source line or has the chosen stall reason.
constexpr int kHighlighted = Qt::UserRole + 4;
// bool: the source line starts inside a /* … */ comment (syntax colouring).
constexpr int kInBlockComment = Qt::UserRole + 5;
} // namespace sourceroles

// Colours: one per stall reason position (most frequent first) and the heat scale of a share.
namespace sourcecolors {
QColor reason(int index);
// White to dark red by `share` in [0, 1]: the Samples column's background.
QColor heat(double share);
} // namespace sourcecolors

// SASS listing of a kernel: address, samples (heat), stall reasons (stacked bar), instructions
// executed, source line, instruction. Can show every instruction or only the hottest ones.
class SassTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Address, Samples, Reasons, Executed, Line, Instruction, ColumnCount };

    explicit SassTableModel(QObject* parent = nullptr);

    void setView(std::shared_ptr<const SourceView> view);
    const std::shared_ptr<const SourceView>& view() const { return m_view; }
    // 0 = every instruction; n = the n hottest, in address order.
    void setHottestOnly(size_t n);
    size_t hottestOnly() const { return m_hottest; }
    // Highlight the rows of one source line (file index, line); line 0 clears.
    void highlightLine(int fileIndex, int32_t line);
    // Highlight where a reason is the row's largest; -1 clears.
    void highlightReason(int reason);
    int highlightedReason() const { return m_reason; }

    // Index into SourceView::sassRows() of a table row, and back (-1 when filtered out).
    size_t sassRow(int row) const { return m_rows[static_cast<size_t>(row)]; }
    int rowOf(size_t sassRow) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuildRows();
    bool highlighted(const SourceView::SassRow& r) const;

    std::shared_ptr<const SourceView> m_view;
    std::vector<size_t> m_rows;
    size_t m_hottest = 0;
    int m_lineFile = -1;
    int32_t m_line = 0;
    int m_reason = -1;
};

// The CUDA source of one file beside the SASS: line number, samples (heat), stall reasons,
// text. Lines without instructions have no samples; the whole file shows when it was recorded.
class SourceLineModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { LineNumber, Samples, Reasons, Source, ColumnCount };

    explicit SourceLineModel(QObject* parent = nullptr);

    void setView(std::shared_ptr<const SourceView> view, int fileIndex);
    int fileIndex() const { return m_file; }
    // Highlight the line of a SASS row (0 clears) or every line where a reason dominates (-1 clears).
    void highlightLine(int32_t line);
    void highlightReason(int reason);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const SourceView::File* file() const;

    std::shared_ptr<const SourceView> m_view;
    std::vector<bool> m_inComment; // per line of the file: starts inside a block comment
    int m_file = -1;
    int32_t m_line = 0;
    int m_reason = -1;
};

} // namespace ws

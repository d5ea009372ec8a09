// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparison.h"

#include <QAbstractTableModel>

namespace ws {

// The hypothesis card as a table: one prediction per row (subject, kernel, direction, size),
// editable, with the outcome the comparison found for it. Edits that leave a valid prediction
// are emitted through hypothesesEdited() (the window recomputes and shows the outcome); an
// invalid edit is refused (setData returns false).
class HypothesisModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Subject, Kernel, Direction, Size, Outcome, Observed, ColumnCount };

    explicit HypothesisModel(QObject* parent = nullptr);

    void setHypotheses(
        const std::vector<compare::Hypothesis>& list, const std::vector<compare::HypothesisResult>& results);
    const std::vector<compare::Hypothesis>& hypotheses() const { return m_list; }
    // Appends a prediction ("latency:down" by default) and emits hypothesesEdited().
    void addHypothesis(const compare::Hypothesis& h);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

signals:
    void hypothesesEdited(const std::vector<ws::compare::Hypothesis>& list);

private:
    std::vector<compare::Hypothesis> m_list;
    std::vector<compare::HypothesisResult> m_results;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include <QStyledItemDelegate>

namespace ws {

// Paints a row's stall samples as one bar split by reason (sourceroles::kReasonSamples, colours
// from sourcecolors::reason), scaled to the table's largest row (sourceroles::kScaleMax), with the
// dominant reason's name after it; in a narrow column the bar alone fills the cell.
class StallBarDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit StallBarDelegate(QObject* parent = nullptr);
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

class QAbstractItemView;

namespace ws {

// Shows a cell's whole text as its tooltip when the view elides it ("Registers allocated
// per…"), ahead of the model's own tooltip: narrow docks elide the label column so that the
// value columns stay visible, and the label must still be readable. Cells shown whole keep the
// model's tooltip alone. Owned by the view it watches.
class ElidedCellToolTip : public QObject {
    Q_OBJECT
public:
    static void install(QAbstractItemView* view);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit ElidedCellToolTip(QAbstractItemView* view);
    QAbstractItemView* m_view;
};

} // namespace ws

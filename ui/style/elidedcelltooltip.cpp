// SPDX-License-Identifier: MIT
#include "ui/style/elidedcelltooltip.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QToolTip>

namespace ws {

void ElidedCellToolTip::install(QAbstractItemView* view)
{
    if (view && !view->findChild<ElidedCellToolTip*>(QString(), Qt::FindDirectChildrenOnly))
        view->viewport()->installEventFilter(new ElidedCellToolTip(view));
}

ElidedCellToolTip::ElidedCellToolTip(QAbstractItemView* view)
    : QObject(view)
    , m_view(view)
{
}

bool ElidedCellToolTip::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::ToolTip || watched != m_view->viewport())
        return false;
    const auto* help = static_cast<QHelpEvent*>(event);
    const QModelIndex index = m_view->indexAt(help->pos());
    if (!index.isValid())
        return false;
    const QString text = index.data(Qt::DisplayRole).toString();
    const QRect cell = m_view->visualRect(index);
    // The style's text margins: about 3 px each side, plus a decoration when there is one.
    const int margins = 8 + (index.data(Qt::DecorationRole).isValid() ? m_view->iconSize().width() + 4 : 0);
    if (text.isEmpty() || m_view->fontMetrics().horizontalAdvance(text) + margins <= cell.width())
        return false; // shown whole: the model's tooltip, if any, as usual
    const QString tip = index.data(Qt::ToolTipRole).toString();
    QToolTip::showText(help->globalPos(), tip.isEmpty() ? text : text + QStringLiteral("\n\n") + tip, m_view, cell);
    return true;
}

} // namespace ws

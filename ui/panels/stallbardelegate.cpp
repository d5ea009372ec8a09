// SPDX-License-Identifier: MIT
#include "ui/panels/stallbardelegate.h"

#include "ui/panels/sourcemodels.h"

#include <QApplication>
#include <QPainter>

#include <cmath>

namespace ws {

namespace {

constexpr int kBarWidth = 64; // pixels for the largest row; text follows the bar area

} // namespace

StallBarDelegate::StallBarDelegate(QObject* parent)
    : QStyledItemDelegate(parent)
{
}

void StallBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const QVariantList samples = index.data(sourceroles::kReasonSamples).toList();
    const double scale = index.data(sourceroles::kScaleMax).toDouble();
    const QRect r = option.rect.adjusted(3, 3, -3, -3);
    // A narrow column (the Source panel's) is all bar, scaled to the cell; the reason's name
    // follows a short bar where room is left (it is in the tooltip as well).
    const bool barOnly = r.width() < kBarWidth + 40;
    const int barArea = barOnly ? r.width() : std::min(kBarWidth, r.width() / 2);
    int barEnd = r.left();
    painter->save();
    if (scale > 0) {
        double x = r.left();
        for (int i = 0; i < samples.size(); ++i) {
            const double w = static_cast<double>(barArea) * samples[i].toDouble() / scale;
            if (w <= 0)
                continue;
            painter->fillRect(QRectF(x, r.top(), w, r.height()), sourcecolors::reason(i));
            x += w;
        }
        barEnd = static_cast<int>(std::ceil(x));
    }
    const int textLeft = (barOnly ? barEnd : r.left() + barArea) + 4;
    if (barOnly && r.right() - textLeft < 14) {
        painter->restore();
        return;
    }
    // The model's foreground (dark on the light highlight row), else the palette's.
    const QVariant fg = index.data(Qt::ForegroundRole);
    painter->setPen(opt.state & QStyle::State_Selected ? opt.palette.color(QPalette::HighlightedText)
            : fg.isValid()                             ? fg.value<QBrush>().color()
                                                       : opt.palette.color(QPalette::Text));
    const QRect textRect(textLeft, r.top(), r.right() - textLeft + 1, r.height());
    painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
        painter->fontMetrics().elidedText(text, Qt::ElideRight, textRect.width()));
    painter->restore();
}

QSize StallBarDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(s.width() + kBarWidth + 8);
    return s;
}

} // namespace ws

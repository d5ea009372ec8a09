// SPDX-License-Identifier: MIT
#include "ui/panels/stallbardelegate.h"

#include "ui/panels/sourcemodels.h"

#include <QApplication>
#include <QPainter>

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
    const int barArea = std::min(kBarWidth, r.width() / 2);
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
    }
    painter->setPen(opt.palette.color(opt.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
    const QRect textRect(r.left() + barArea + 4, r.top(), r.width() - barArea - 4, r.height());
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

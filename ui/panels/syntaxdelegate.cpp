// SPDX-License-Identifier: MIT
#include "ui/panels/syntaxdelegate.h"

#include "ui/panels/sourcemodels.h"
#include "ui/panels/sourcesyntax.h"

#include <QApplication>
#include <QPainter>

namespace ws {

SyntaxDelegate::SyntaxDelegate(Language language, QObject* parent)
    : QStyledItemDelegate(parent)
    , m_language(language)
{
}

void SyntaxDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    // Tabs as four spaces: QPainter draws a tab as nothing.
    const QString text = QString(opt.text).replace(QLatin1Char('\t'), QStringLiteral("    "));
    opt.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const bool selected = opt.state & QStyle::State_Selected;
    const QVariant bg = index.data(Qt::BackgroundRole);
    const bool ownBackground = bg.canConvert<QBrush>() && bg.value<QBrush>().style() != Qt::NoBrush;
    const QColor background = selected ? opt.palette.color(QPalette::Highlight)
        : ownBackground                ? bg.value<QBrush>().color()
                                       : opt.palette.color(QPalette::Base);
    // The model's highlight is light on either palette: its text is dark then.
    const QColor plain = selected       ? opt.palette.color(QPalette::HighlightedText)
        : !ownBackground                ? opt.palette.color(QPalette::Text)
        : background.lightnessF() < 0.5 ? QColor(0xe6, 0xe6, 0xe6)
                                        : QColor(0x1e, 0x1e, 0x1e);
    bool inComment = index.data(sourceroles::kInBlockComment).toBool();
    const QVector<SourceSyntax::Run> runs
        = m_language == Language::Cuda ? SourceSyntax::cudaLine(text, inComment) : SourceSyntax::sassInstruction(text);

    const QRect r = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget).adjusted(2, 0, -2, 0);
    painter->save();
    painter->setFont(opt.font);
    painter->setClipRect(r);
    const QFontMetrics fm(opt.font);
    const int baseline = r.top() + (r.height() - fm.height()) / 2 + fm.ascent();
    int x = r.left();
    for (const SourceSyntax::Run& run : runs) {
        if (x > r.right())
            break;
        const QString part = text.mid(run.start, run.length);
        // Selected rows keep one colour: the selection background is the palette's, not ours.
        painter->setPen(selected ? plain : SourceSyntax::color(run.kind, background, plain));
        painter->drawText(x, baseline, part);
        x += fm.horizontalAdvance(part);
    }
    painter->restore();
}

} // namespace ws

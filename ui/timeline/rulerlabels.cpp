// SPDX-License-Identifier: MIT
#include "ui/timeline/rulerlabels.h"

#include <QFontMetrics>
#include <QPainter>

namespace ws {

void RulerLabels::setStyle(const Style& style)
{
    if (m_valid && m_style == style && size() < 512)
        return;
    m_images[0].clear();
    m_images[1].clear();
    m_spans.clear();
    m_spacing = -1;
    m_style = style;
    m_valid = true;
}

QImage RulerLabels::render(const Style& style, const QString& text, bool bold, const QRect& rect)
{
    QFont f = style.font;
    f.setBold(bold);
    const int width = QFontMetrics(f).horizontalAdvance(text) + kOverhang + 1;
    QImage img(std::max(width, 1), std::max(style.rulerHeight - 1, 1), style.format);
    img.fill(style.background);
    QPainter p(&img);
    p.setFont(f);
    p.setPen(QColor::fromRgba(style.ink));
    p.drawText(rect, Qt::AlignLeft | Qt::AlignVCenter, text);
    return img;
}

const QImage& RulerLabels::image(const QString& text, bool bold)
{
    QHash<QString, QImage>& images = m_images[bold ? 1 : 0];
    auto it = images.constFind(text);
    if (it == images.cend()) // RulerPainter's own call, moved left by the tick's x + kTextOffset
        it = images.insert(text, render(m_style, text, bold, QRect(0, 2, 200, m_style.rulerHeight - 10)));
    return *it;
}

const QImage& RulerLabels::spanImage(const QString& text, int width)
{
    if (width != m_spanWidth) {
        m_spans.clear();
        m_spanWidth = width;
    }
    auto it = m_spans.constFind(text);
    if (it == m_spans.cend())
        it = m_spans.insert(text, render(m_style, text, false, QRect(0, 0, width, m_style.rulerHeight)));
    return *it;
}

int RulerLabels::spacingText()
{
    if (m_spacing < 0)
        m_spacing = QFontMetrics(m_style.font).horizontalAdvance(QStringLiteral("000.000 ms"));
    return m_spacing;
}

} // namespace ws

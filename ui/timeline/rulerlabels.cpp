// SPDX-License-Identifier: MIT
#include "ui/timeline/rulerlabels.h"

#include <QFontMetrics>
#include <QPainter>

namespace ws {

void RulerLabels::use(const Style& style)
{
    if (m_valid && m_style == style && m_images[0].size() + m_images[1].size() < 512)
        return;
    m_images[0].clear();
    m_images[1].clear();
    m_spacing = -1;
    m_style = style;
    m_valid = true;
}

QImage RulerLabels::render(const Style& style, const QString& text, bool bold)
{
    QFont f = style.font;
    f.setBold(bold);
    const int width = QFontMetrics(f).horizontalAdvance(text) + kOverhang + 1;
    QImage img(std::max(width, 1), std::max(style.rulerHeight - 1, 1), style.format);
    img.fill(style.background);
    QPainter p(&img);
    p.setFont(f);
    p.setPen(QColor::fromRgba(style.ink));
    // RulerPainter's own call, moved left by the tick's x + kTextOffset.
    p.drawText(QRect(0, 2, 200, style.rulerHeight - 10), Qt::AlignLeft | Qt::AlignVCenter, text);
    return img;
}

const QImage& RulerLabels::image(const Style& style, const QString& text, bool bold)
{
    use(style);
    QHash<QString, QImage>& images = m_images[bold ? 1 : 0];
    auto it = images.constFind(text);
    if (it == images.cend())
        it = images.insert(text, render(style, text, bold));
    return *it;
}

int RulerLabels::spacingText(const Style& style)
{
    use(style);
    if (m_spacing < 0)
        m_spacing = QFontMetrics(style.font).horizontalAdvance(QStringLiteral("000.000 ms"));
    return m_spacing;
}

} // namespace ws

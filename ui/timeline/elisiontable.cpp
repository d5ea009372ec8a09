// SPDX-License-Identifier: MIT
#include "ui/timeline/elisiontable.h"

namespace ws {

const ElisionTable::Elided& ElisionTable::at(const QString& text, int width, const QFontMetrics& fm)
{
    auto above = m_byWidth.lower_bound(width);
    if (above != m_byWidth.end() && above->first == width)
        return above->second;
    if (above != m_byWidth.end() && above != m_byWidth.begin()) {
        const auto below = std::prev(above);
        if (below->second.text == above->second.text)
            return m_byWidth.emplace_hint(above, width, above->second)->second;
    }
    Elided e;
    e.text = fm.elidedText(text, Qt::ElideRight, width);
    e.advance = fm.horizontalAdvance(e.text);
    return m_byWidth.emplace_hint(above, width, std::move(e))->second;
}

} // namespace ws

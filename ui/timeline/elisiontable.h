// SPDX-License-Identifier: MIT
#pragma once

#include <QFontMetrics>
#include <QString>

#include <map>

namespace ws {

// What QFontMetrics::elidedText(text, Qt::ElideRight, width) returns, per width, for one text,
// with fewer layouts: eliding on the right keeps a prefix that only grows with the width, so
// when the nearest widths known below and above elided to the same text, every width between
// them does too. A label elided at each new zoom step's width then mostly costs a map lookup,
// and its image can be keyed by the elided text rather than by the width.
class ElisionTable {
public:
    struct Elided {
        QString text;
        int advance = 0; // horizontalAdvance of text
    };
    const Elided& at(const QString& text, int width, const QFontMetrics& fm);
    int size() const { return static_cast<int>(m_byWidth.size()); }

private:
    std::map<int, Elided> m_byWidth;
};

} // namespace ws

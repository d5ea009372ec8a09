// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace ws {

// Walks a text line by line without copying: each line without its '\n' and a trailing '\r'
// (files written on Windows, ncu run under WSL), with its 1-based number. Text after the last
// '\n' is a line too; an empty text has none.
class TextLines {
public:
    explicit TextLines(std::string_view text)
        : m_text(text)
    {
    }

    // The next line; false after the last.
    bool next(std::string_view& line)
    {
        if (m_pos >= m_text.size())
            return false;
        size_t end = m_text.find('\n', m_pos);
        if (end == std::string_view::npos)
            end = m_text.size();
        line = m_text.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        ++m_number;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        return true;
    }
    int number() const { return m_number; }

private:
    std::string_view m_text;
    size_t m_pos = 0;
    int m_number = 0;
};

} // namespace ws

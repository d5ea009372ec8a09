// SPDX-License-Identifier: MIT
#include "ui/timeline/idlenotetexts.h"

#include "ui/style/timeformat.h"

namespace ws {

IdleNoteTexts::IdleNoteTexts(const QFont& font)
    : m_font(font)
    , m_metrics(font)
{
}

const IdleNoteTexts::Note& IdleNoteTexts::at(TimeNs gap)
{
    auto it = m_notes.constFind(gap);
    if (it != m_notes.cend())
        return *it;
    if (m_notes.size() >= kCapacity)
        m_notes.clear(); // a session's gaps are many; the ones on screen come back at once
    Note note;
    note.text = QStringLiteral("idle %1").arg(formatDuration(gap));
    note.advance = m_metrics.horizontalAdvance(note.text);
    return *m_notes.emplace(gap, std::move(note));
}

} // namespace ws

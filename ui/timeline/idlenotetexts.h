// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <QFont>
#include <QFontMetrics>
#include <QHash>
#include <QString>

namespace ws {

// The text of an idle note ("idle 1.234 ms") and its width in one font, per gap.
//
// Why: every frame measures the note of every idle gap it shows (is there room for the text?),
// and the same gaps come back frame after frame and at every zoom step. Formatting and laying
// out the text again each time was about 5% of the frame thread's time (2026-12-04 profile of
// bench_ui_timeline). A note is a function of (gap, font) alone, so a kept one is exactly what a
// fresh one would be. Confined to the thread that builds frames; bounded (emptied when full).
class IdleNoteTexts {
public:
    struct Note {
        QString text;    // QStringLiteral("idle %1").arg(formatDuration(gap))
        int advance = 0; // QFontMetrics(font).horizontalAdvance(text)
    };
    static constexpr qsizetype kCapacity = 4096;

    explicit IdleNoteTexts(const QFont& font);
    const QFont& font() const { return m_font; }
    const Note& at(TimeNs gap);
    qsizetype size() const { return m_notes.size(); }

private:
    QFont m_font;
    QFontMetrics m_metrics;
    QHash<TimeNs, Note> m_notes;
};

} // namespace ws

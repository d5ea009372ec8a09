// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace ws {

class MainWindow;

// What `warpscope --view/--range/--panel/--search` asks of the first session shown: applied once,
// when that session is loaded, and never again (issue 24 item 11: a --view given at start used to
// be re-applied to every file opened later, so File > Open showed the new session at the first
// one's span).
struct StartupOptions {
    QString view;   // "1.5ms:2ms" from the session's start; empty = fit
    QString range;  // the range selection, same form
    QString panel;  // a dock to raise ("source", "roofline")
    QString search; // select the first occurrence of this name

    bool isEmpty() const { return view.isEmpty() && range.isEmpty() && panel.isEmpty() && search.isEmpty(); }
    // Applies the options to the next session `window` loads, once.
    void applyToFirstSession(MainWindow* window) const;
    // Applies them to the session `window` shows now.
    void applyNow(MainWindow* window) const;
};

} // namespace ws

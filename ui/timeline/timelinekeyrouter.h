// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>

class QKeyEvent;
class QWidget;

namespace ws {

class TimelineView;

// Sends the timeline's keys (W/A/S/D, F, N / Shift+N, Esc, Home) to the timeline whatever widget
// of its window has the focus, as Perfetto and Tracy do: with the kernel ranking focused, S over
// the timeline zooms out instead of type-ahead-selecting a kernel in the table. The rules
// (issue 24 item 1):
//   - a text field being edited keeps every key but Esc, which leaves the field (the focus goes
//     to the timeline; a table's cell editor keeps Esc to cancel the edit);
//   - with the pointer over the timeline, every timeline key goes to the timeline;
//   - otherwise the letters and Esc go to the timeline, and Home too unless the focus is in a
//     list or table, where Home means "first row".
// Other windows (dialogs, the compare window) and menus are left alone. Installed on the
// application, since a key event goes to the focus widget and only climbs to the window when
// that widget ignores it (a table accepts letters for its type-ahead search).
class TimelineKeyRouter : public QObject {
    Q_OBJECT
public:
    // `window` is the timeline's window: only keys for widgets inside it (docks, floating
    // ones included) are routed.
    TimelineKeyRouter(TimelineView* view, QWidget* window);
    ~TimelineKeyRouter() override;

    // Whether the key goes to the timeline when `focus` (inside the window, not the timeline)
    // has the focus. Pure, so the rules can be tested key by key.
    static bool routesToTimeline(const QKeyEvent& e, const QWidget* focus, bool pointerOverTimeline);
    // A widget where typed letters are text: a line edit, text edit, spin box, editable combo.
    static bool isTextEntry(const QWidget* w);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool inWindow(const QWidget* w) const;
    // A cell editor of a table or list.
    static bool inItemView(const QWidget* w);

    QPointer<TimelineView> m_view;
    QPointer<QWidget> m_window;
};

} // namespace ws

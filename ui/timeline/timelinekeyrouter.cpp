// SPDX-License-Identifier: MIT
#include "ui/timeline/timelinekeyrouter.h"

#include "ui/timeline/timelineview.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QKeyEvent>
#include <QKeySequenceEdit>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>

namespace ws {

TimelineKeyRouter::TimelineKeyRouter(TimelineView* view, QWidget* window)
    : QObject(window)
    , m_view(view)
    , m_window(window)
{
    qApp->installEventFilter(this);
}

TimelineKeyRouter::~TimelineKeyRouter()
{
    if (qApp)
        qApp->removeEventFilter(this);
}

bool TimelineKeyRouter::isTextEntry(const QWidget* w)
{
    if (const auto* e = qobject_cast<const QLineEdit*>(w))
        return !e->isReadOnly();
    if (const auto* e = qobject_cast<const QTextEdit*>(w))
        return !e->isReadOnly();
    if (const auto* e = qobject_cast<const QPlainTextEdit*>(w))
        return !e->isReadOnly();
    if (const auto* c = qobject_cast<const QComboBox*>(w))
        return c->isEditable();
    return qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QKeySequenceEdit*>(w);
}

bool TimelineKeyRouter::routesToTimeline(const QKeyEvent& e, const QWidget* focus, bool pointerOverTimeline)
{
    const Qt::KeyboardModifiers mods = e.modifiers() & ~Qt::KeypadModifier;
    bool timelineKey = false;
    switch (e.key()) {
    case Qt::Key_W:
    case Qt::Key_A:
    case Qt::Key_S:
    case Qt::Key_D:
    case Qt::Key_F:
    case Qt::Key_Escape:
    case Qt::Key_Home:
        timelineKey = mods == Qt::NoModifier;
        break;
    case Qt::Key_N:
        timelineKey = mods == Qt::NoModifier || mods == Qt::ShiftModifier;
        break;
    default:
        break;
    }
    if (!timelineKey || isTextEntry(focus))
        return false;
    if (pointerOverTimeline)
        return true;
    // Home is a list's "first row" while the user works in it away from the timeline.
    return e.key() != Qt::Key_Home || !qobject_cast<const QAbstractItemView*>(focus);
}

bool TimelineKeyRouter::inWindow(const QWidget* w) const
{
    // Up the parent chain to the window; a floating dock is a window of its own but still part
    // of this one, a dialog or the compare window is not.
    for (; w; w = w->parentWidget()) {
        if (w == m_window)
            return true;
        if (w->isWindow() && !qobject_cast<const QDockWidget*>(w))
            return false;
    }
    return false;
}

bool TimelineKeyRouter::inItemView(const QWidget* w)
{
    for (w = w ? w->parentWidget() : nullptr; w && !w->isWindow(); w = w->parentWidget()) {
        if (qobject_cast<const QAbstractItemView*>(w))
            return true;
    }
    return false;
}

bool TimelineKeyRouter::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::KeyPress || !m_view || !m_window || !watched->isWidgetType())
        return false;
    auto* target = static_cast<QWidget*>(watched);
    // A key event goes to the focus widget first (then climbs to its parents if ignored): act
    // on that first delivery only.
    QWidget* focus = QApplication::focusWidget();
    if (focus ? target != focus : !target->isWindow())
        return false;
    if (target == m_view || m_view->isAncestorOf(target) || !inWindow(target))
        return false;
    auto* key = static_cast<QKeyEvent*>(event);
    // Esc always leaves a text field, for the timeline (a cell editor keeps it: Esc cancels the
    // edit there).
    if (key->key() == Qt::Key_Escape && (key->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier
        && isTextEntry(target) && !inItemView(target)) {
        m_view->setFocus(Qt::ShortcutFocusReason);
        return true;
    }
    if (!routesToTimeline(*key, target, m_view->pointerOverTimeline()))
        return false;
    QKeyEvent copy(QEvent::KeyPress, key->key(), key->modifiers(), key->text(), key->isAutoRepeat(), key->count());
    QApplication::sendEvent(m_view, &copy);
    return true;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/style/focusframe.h"

#include <QApplication>
#include <QEvent>
#include <QPainter>

#include <algorithm>

namespace ws {

FocusFrame::FocusFrame(QWidget* window)
    : QWidget(window)
    , m_window(window)
{
    setObjectName(QStringLiteral("focusFrame"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::NoFocus);
    hide();
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) { follow(now); });
}

void FocusFrame::addRegion(QWidget* region)
{
    m_regions.emplace_back(region);
    // The window's focus widget, even while the window is inactive (it gets the focus back).
    QWidget* focus = m_window ? m_window->focusWidget() : nullptr;
    if (focus && (region == focus || region->isAncestorOf(focus)))
        follow(focus);
}

QColor FocusFrame::color() const
{
    return palette().color(QPalette::Active, QPalette::Highlight);
}

void FocusFrame::follow(QWidget* focus)
{
    // The innermost region on the focus widget's parent chain (a dock's content may itself sit
    // in a region only through its dock).
    for (QWidget* w = focus; w; w = w->parentWidget()) {
        const bool isRegion
            = std::any_of(m_regions.begin(), m_regions.end(), [w](const QPointer<QWidget>& r) { return r == w; });
        if (isRegion) {
            frame(w);
            return;
        }
        if (w == m_window)
            break;
    }
    // The focus went to a menu or another window: the last region keeps its frame while this
    // window is inactive (focus returns there), but not when focus moved to an unframed part
    // of this window.
    if (focus && focus->window() == m_window)
        frame(nullptr);
}

void FocusFrame::frame(QWidget* region)
{
    if (region == m_region)
        return;
    if (m_region)
        m_region->removeEventFilter(this);
    m_region = region;
    if (!region) {
        hide();
        return;
    }
    setParent(region);
    region->installEventFilter(this);
    setGeometry(region->rect());
    raise();
    show();
    update();
}

bool FocusFrame::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_region && event->type() == QEvent::Resize) {
        setGeometry(m_region->rect());
        raise();
    } else if (watched == m_region && event->type() == QEvent::ChildAdded) {
        raise();
    }
    return false;
}

void FocusFrame::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setPen(Qt::NoPen);
    p.setBrush(color());
    const QRect r = rect();
    p.drawRect(0, 0, r.width(), kWidth);
    p.drawRect(0, r.height() - kWidth, r.width(), kWidth);
    p.drawRect(0, 0, kWidth, r.height());
    p.drawRect(r.width() - kWidth, 0, kWidth, r.height());
}

} // namespace ws

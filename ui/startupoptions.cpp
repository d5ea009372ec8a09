// SPDX-License-Identifier: MIT
#include "ui/startupoptions.h"

#include "core/util/durationtext.h"
#include "ui/mainwindow.h"
#include "ui/timeline/eventsearch.h"

#include <QDockWidget>
#include <QLineEdit>

namespace ws {

namespace {

bool parseRange(const QString& text, TimeNs* a, TimeNs* b)
{
    const auto span = parseDurationSpan(text.toStdString());
    if (!span)
        return false;
    *a = span->first;
    *b = span->second;
    return true;
}

} // namespace

void StartupOptions::applyToFirstSession(MainWindow* window) const
{
    QObject::connect(
        window, &MainWindow::sessionLoaded, window, [window, options = *this] { options.applyNow(window); },
        Qt::SingleShotConnection);
}

void StartupOptions::applyNow(MainWindow* window) const
{
    const auto s = window->snapshot();
    if (!s)
        return;
    TimeNs a = 0;
    TimeNs b = 0;
    if (!view.isEmpty() && parseRange(view, &a, &b))
        window->selection()->setViewRange({s->begin() + a, s->begin() + b});
    if (!range.isEmpty() && parseRange(range, &a, &b))
        window->selection()->setTimeRange({s->begin() + a, s->begin() + b});
    if (!panel.isEmpty()) {
        // Docks are named "<panel>Dock" (AnalysisPanels::addDocks).
        const QString want = panel.toLower();
        for (QDockWidget* d : window->findChildren<QDockWidget*>()) {
            if (!d->objectName().toLower().startsWith(want))
                continue;
            d->show();
            d->raise();
            window->resizeDocks({d}, {window->height() * 2 / 3}, Qt::Vertical);
            window->resizeDocks({d}, {window->width() * 3 / 4}, Qt::Horizontal);
            break;
        }
    }
    if (!search.isEmpty()) {
        // Select the first occurrence; with --view the view stays where it was asked to be.
        const TimeRange asked = window->selection()->viewRange();
        const bool keepView = !view.isEmpty();
        QObject::connect(
            window->search(), &EventSearch::queryCounted, window, [window] { window->findNext(); },
            Qt::SingleShotConnection);
        QObject::connect(
            window->search(), &EventSearch::found, window,
            [window, asked, keepView] {
                if (keepView)
                    window->selection()->setViewRange(asked);
            },
            Qt::SingleShotConnection);
        window->searchBox()->setText(search);
    }
}

} // namespace ws

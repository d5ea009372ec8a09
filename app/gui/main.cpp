// SPDX-License-Identifier: MIT
// warpscope: the desktop viewer. Without a file it opens the session embedded in the binary.
#include "app/gui/startupclock.h"
#include "core/util/durationtext.h"
#include "ui/mainwindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/startupoptions.h"
#include "ui/style/colorscheme.h"
#include "ui/style/timeformat.h"
#include "ui/timeline/eventsearch.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QLineEdit>
#include <QPalette>
#include <QScreen>
#include <QStyleFactory>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    StartupClock startup;
    QApplication app(argc, argv);
    startup.mark("QApplication constructed");
    QApplication::setOrganizationName(QStringLiteral("Warpscope"));
    QApplication::setApplicationName(QStringLiteral("warpscope"));
    QApplication::setApplicationVersion(QStringLiteral(WS_VERSION));
    // Installed (cmake/WarpscopeInstall.cmake): the desktop entry warpscope.desktop and the icon
    // "warpscope" in the hicolor theme; the entry's name ties the window to it on Wayland. A
    // prefix outside the icon theme's search path still has the icon beside the binary.
    QGuiApplication::setDesktopFileName(QStringLiteral("warpscope"));
    const QString besideIcon = QDir(QApplication::applicationDirPath())
                                   .filePath(QStringLiteral("../share/icons/hicolor/256x256/apps/warpscope.png"));
    QApplication::setWindowIcon(
        QIcon::fromTheme(QStringLiteral("warpscope"), QFileInfo::exists(besideIcon) ? QIcon(besideIcon) : QIcon()));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("Warpscope: timeline and kernel analysis of CUDA sessions"));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("session"),
        QStringLiteral("Session file (.wscope) to open; "
                       "without one the embedded demo opens"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Save the window as PNG once the session is drawn, then quit"), QStringLiteral("file.png"));
    const QCommandLineOption quitAfter(
        QStringLiteral("quit-after"), QStringLiteral("Quit after this many milliseconds"), QStringLiteral("ms"));
    const QCommandLineOption view(QStringLiteral("view"),
        QStringLiteral("Show this time span (e.g. 1.5ms:2ms from the start)"), QStringLiteral("from:to"));
    const QCommandLineOption range(
        QStringLiteral("range"), QStringLiteral("Select this time range (from:to)"), QStringLiteral("from:to"));
    const QCommandLineOption search(QStringLiteral("search"),
        QStringLiteral("Search for a name and select its first occurrence"), QStringLiteral("text"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size"), QStringLiteral("WxH"));
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Dark palette"));
    const QCommandLineOption panel(QStringLiteral("panel"),
        QStringLiteral("Raise this analysis panel (dock name, e.g. source, scheduler, roofline) and give the panels "
                       "most of the window's height"),
        QStringLiteral("name"));
    const QCommandLineOption pin(QStringLiteral("pin"),
        QStringLiteral("Pin these launches to the details panels (comma-separated launch ids; the first is the "
                       "baseline of the Δ columns) and select the last"),
        QStringLiteral("ids"));
    cli.addOptions({screenshot, quitAfter, view, range, search, size, dark, panel, pin});
    cli.process(app);

    if (cli.isSet(dark)) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(ws::ColorScheme::darkPalette());
    }

    startup.mark("command line parsed");
    ws::MainWindow window;
    startup.mark("MainWindow constructed (docks, panels, settings)");
    if (cli.isSet(size)) {
        const auto wh = cli.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    } else if (cli.isSet(screenshot)) {
        window.resize(1920, 1080);
    }
    if (cli.isSet(screenshot) || cli.isSet(size))
        window.move(0, 0); // no window manager under Xvfb: put it where `import` looks

    int exitCode = 0;
    const QString shotPath = cli.value(screenshot);
    const auto takeShot = [&] {
        const QImage img = window.grab().toImage();
        if (!img.save(shotPath)) {
            std::fprintf(stderr, "warpscope: could not write %s\n", qPrintable(shotPath));
            exitCode = 1;
        } else {
            std::fprintf(stderr, "warpscope: wrote %s (%dx%d)\n", qPrintable(shotPath), img.width(), img.height());
        }
        QApplication::quit();
    };

    if (cli.isSet(pin)) {
        // The panels' data arrives after the timeline's: pin once it is there.
        QObject::connect(
            window.analysisPanels(), &ws::AnalysisPanels::dataReady, &window,
            [&window, ids = cli.value(pin).split(QLatin1Char(','))] {
                ws::KernelFocus* focus = window.analysisPanels()->focus();
                for (const QString& id : ids)
                    focus->pin(id.toLongLong());
                if (!ids.isEmpty())
                    focus->selectKernel(ids.back().toLongLong());
            },
            Qt::SingleShotConnection);
    }
    // --view, --range, --panel and --search are for the first session shown, not for every file
    // opened after it; so are the screenshot and the start-up clock (one shot each).
    ws::StartupOptions options;
    options.view = cli.value(view);
    options.range = cli.value(range);
    options.panel = cli.value(panel);
    options.search = cli.value(search);
    options.applyToFirstSession(&window);
    // WS_STARTUP_TIMES: the figures end when the timeline of the loaded session is painted and the
    // kernel panels have their data (ranking, details, roofline); then quit.
    bool timelineDrawn = false;
    bool panelsFilled = false;
    const auto quitWhenBoth = [&] {
        if (timelineDrawn && panelsFilled)
            QTimer::singleShot(0, &app, &QApplication::quit);
    };
    if (startup.enabled()) {
        QObject::connect(window.analysisPanels(), &ws::AnalysisPanels::dataReady, &window, [&] {
            if (panelsFilled)
                return;
            panelsFilled = true;
            startup.mark("kernel panels filled");
            quitWhenBoth();
        });
    }
    QObject::connect(
        &window, &ws::MainWindow::sessionLoaded, &window,
        [&] {
            startup.mark("session loaded (snapshot handed to the window)");
            if (startup.enabled()) {
                QObject::connect(window.timelineView(), &ws::TimelineView::framePainted, &window, [&] {
                    if (timelineDrawn || !window.timelineView()->isFrameCurrent())
                        return;
                    timelineDrawn = true;
                    startup.mark("timeline drawn");
                    if (const auto drawn = window.snapshot())
                        startup.markMemory(drawn->eventCount(), static_cast<long long>(drawn->residentBytes()));
                    quitWhenBoth();
                });
            }
            if (!shotPath.isEmpty()) {
                // Wait until a frame for the final view is painted and details queries settled.
                auto* poll = new QTimer(&window);
                poll->setInterval(100);
                auto* waited = new int(0);
                QObject::connect(poll, &QTimer::timeout, &window, [&, poll, waited] {
                    *waited += 100;
                    if ((window.timelineView()->isFrameCurrent() && *waited >= 1500) || *waited > 20000) {
                        poll->stop();
                        delete waited;
                        takeShot();
                    }
                });
                poll->start();
            }
        },
        Qt::SingleShotConnection);
    QObject::connect(&window, &ws::MainWindow::sessionFailed, &window, [&](const QString& path, const QString& reason) {
        std::fprintf(stderr, "warpscope: %s: %s\n", qPrintable(path), qPrintable(reason));
        if (!shotPath.isEmpty())
            QTimer::singleShot(500, &window, takeShot);
    });
    if (cli.isSet(quitAfter))
        QTimer::singleShot(cli.value(quitAfter).toInt(), &app, &QApplication::quit);

    // The loader starts before the window is shown: showing (polish, layout, the first paint of
    // every dock) takes 30-60 ms of the GUI thread, which now overlaps the read on its worker.
    const QStringList files = cli.positionalArguments();
    if (!files.isEmpty()) {
        startup.mark("loader starts");
        window.openFile(files.front());
    } else if (!window.openDemo() && !shotPath.isEmpty()) {
        QTimer::singleShot(800, &window, takeShot);
    }
    window.show();
    startup.mark("window shown");
    const int rc = QApplication::exec();
    return exitCode ? exitCode : rc;
}

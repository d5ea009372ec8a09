// SPDX-License-Identifier: MIT
// How long the panels take to fill after "collect metrics for this kernel" appended its run:
// SessionDocument::reload() of the H200 loop session (trace + collected GEMM launch + PC
// sampling, tests/fixtures/loop/loop.wscope) until panelDataReady, which is when the kernel
// panels, roofline and diagnosis have the launch's metrics. The CLI part (re-running the program
// under the profiler) is measured on the H200 by scripts/device/jobs/loop.sh; the two add up to
// the time from the menu item to filled panels.
#include "ui/session/paneldata.h"
#include "ui/session/sessiondocument.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace ws;

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    const QString source = QStringLiteral(WS_RESOURCES_DIR "/../tests/fixtures/loop/loop.wscope");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("loop.wscope"));
    if (!QFile::copy(source, path)) {
        std::fprintf(stderr, "bench_ui_reload: cannot copy %s\n", qPrintable(source));
        return 1;
    }
    SessionDocument doc;
    std::shared_ptr<const PanelData> latest;
    bool failed = false;
    QEventLoop loop;
    QObject::connect(&doc, &SessionDocument::panelDataReady, &loop,
        [&](std::shared_ptr<const PanelData> data, std::shared_ptr<const SessionSnapshot>) {
            latest = std::move(data);
            loop.quit();
        });
    QObject::connect(&doc, &SessionDocument::failed, &loop, [&] {
        failed = true;
        loop.quit();
    });
    // Runs the event loop until the panel data arrives (or 60 s pass).
    const auto wait = [&] {
        latest.reset();
        QTimer::singleShot(60000, &loop, &QEventLoop::quit);
        loop.exec();
        return latest != nullptr && !failed;
    };
    doc.open(path);
    if (!wait()) {
        std::fprintf(stderr, "bench_ui_reload: open failed\n");
        return 1;
    }
    std::vector<double> ms;
    constexpr int kRounds = 15;
    for (int i = 0; i < kRounds; ++i) {
        QElapsedTimer t;
        t.start();
        doc.reload();
        if (!wait()) {
            std::fprintf(stderr, "bench_ui_reload: reload %d failed\n", i);
            return 1;
        }
        ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        if (!latest->profiled(9)) {
            std::fprintf(stderr, "bench_ui_reload: the reloaded panel data has no metrics for launch #9\n");
            return 1;
        }
    }
    std::sort(ms.begin(), ms.end());
    std::printf("bench_ui_reload: reload of %s until the panels have launch #9's metrics: median %.1f ms, min %.1f, "
                "max %.1f over %d reloads (%d CPU(s))\n",
        qPrintable(source), ms[ms.size() / 2], ms.front(), ms.back(), kRounds, QThread::idealThreadCount());
    return 0;
}

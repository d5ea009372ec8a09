// SPDX-License-Identifier: MIT
// The fleet window at scale: how long a fleet result takes to read (readFleetGrids, on the
// window's worker thread), to fill the view (metric selector, rank table, heatmap: GUI thread),
// to paint the whole heatmap, and to switch metrics. Default input: the committed step_time
// result of 8 synthetic ranks; give the 512-rank results of python/benchmarks/fleet_scale.py
// --results DIR to measure at scale. --png OUT --metric N saves the window (1200 x 800) showing
// metric N with the first straggler rank's first outlier cell selected and the rank table sorted
// worst first (the heatmap scrolled to that rank).
//
//   bench_ui_fleet [RESULT.wsfleet ...] [--png OUT.png] [--metric N]
#include "core/store/fleetresult.h"
#include "ui/fleet/fleetheatmap.h"
#include "ui/fleet/fleetview.h"
#include "ui/fleet/fleetwindow.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QMouseEvent>
#include <QTableWidget>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace ws;

namespace {

// Median wall time of `runs` calls, in ms.
double medianMs(int runs, const std::function<void()>& f)
{
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        f();
        ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

int measure(const QString& path)
{
    std::vector<FleetStepGrid> grids;
    double readMs = 0;
    try {
        readMs = medianMs(5, [&] { grids = readFleetGrids(path.toStdString()); });
    } catch (const std::exception& e) {
        std::printf("%s: %s\n", qPrintable(path), e.what());
        return 1;
    }
    const FleetStepGrid& first = grids.front();
    FleetView view;
    const double fillMs = medianMs(5, [&] { view.setGrids(grids); });
    FleetHeatmap* map = view.heatmap();
    QImage image;
    const double paintMs = medianMs(5, [&] { image = map->grab().toImage(); });
    // What a scroll repaints: one screenful (800 px) of the heatmap.
    const QRect screen(0, 0, map->width(), std::min(map->height(), 800));
    const double screenMs = medianMs(5, [&] { map->grab(screen); });
    double switchMs = 0;
    for (int i = 0; i < static_cast<int>(grids.size()); ++i)
        switchMs = std::max(switchMs, medianMs(3, [&] { view.showMetric(i); }));
    std::printf("%s\n  recipe %s, %zu metric(s), %zu ranks x %zu columns (first metric: %s)\n"
                "  read (readFleetGrids, all metrics): %.2f ms\n  fill the view (table + heatmap): %.2f ms\n"
                "  paint the whole heatmap (%d x %d px): %.2f ms\n  paint one screenful (%d x %d px): %.2f ms\n"
                "  switch metric (slowest): %.2f ms\n",
        qPrintable(path), first.recipe.c_str(), grids.size(), first.ranks.size(), first.steps.size(),
        first.metric.title.c_str(), readMs, fillMs, image.width(), image.height(), paintMs, screen.width(),
        screen.height(), screenMs, switchMs);
    return 0;
}

int screenshot(const QString& path, const QString& png, int metric)
{
    FleetWindow w(path);
    w.setAttribute(Qt::WA_DeleteOnClose, false);
    w.resize(1200, 800);
    QEventLoop loop;
    QObject::connect(&w, &FleetWindow::loaded, &loop, &QEventLoop::quit);
    QObject::connect(&w, &FleetWindow::failed, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    w.show();
    loop.exec();
    if (!w.errorText().isEmpty()) {
        std::printf("%s\n", qPrintable(w.errorText()));
        return 1;
    }
    w.view()->showMetric(metric);
    const FleetStepGrid& g = w.view()->heatmap()->grid();
    for (size_t r = 0; r < g.ranks.size(); ++r) {
        if (!g.ranks[r].straggler)
            continue;
        for (size_t c = 0; c < g.steps.size(); ++c) {
            if (!g.flagged(r, c))
                continue;
            // Select it as a click would (the open request goes nowhere here).
            const QPointF at = w.view()->heatmap()->cellRect(static_cast<int>(r), static_cast<int>(c)).center();
            QMouseEvent press(QEvent::MouseButtonPress, at, at, Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(w.view()->heatmap(), &press);
            r = g.ranks.size() - 1;
            break;
        }
    }
    // The rank table sorted worst first, its top row current: the heatmap scrolls to that rank.
    QTableWidget* table = w.view()->rankTable();
    table->sortItems(3, g.metric.higherIsWorse ? Qt::DescendingOrder : Qt::AscendingOrder);
    table->setCurrentCell(0, 0);
    QApplication::processEvents();
    if (!w.grab().save(png)) {
        std::printf("cannot write %s\n", qPrintable(png));
        return 1;
    }
    std::printf("wrote %s\n", qPrintable(png));
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QStringList inputs;
    QString png;
    int metric = 0;
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--png") && i + 1 < args.size())
            png = args[++i];
        else if (args[i] == QLatin1String("--metric") && i + 1 < args.size())
            metric = args[++i].toInt();
        else
            inputs << args[i];
    }
    if (inputs.isEmpty())
        inputs << QStringLiteral(WS_RESOURCES_DIR "/../tests/fixtures/fleet/synth8-step_time.wsfleet");
    int rc = 0;
    for (const QString& path : inputs)
        rc |= measure(path);
    if (!png.isEmpty())
        rc |= screenshot(inputs.front(), png, metric);
    return rc;
}

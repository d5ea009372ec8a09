// SPDX-License-Identifier: MIT
// Timeline benchmark (offscreen, TimelineView at 1920x1080): replays a scripted zoom/pan
// session (wheel zooms around the cursor, drags, Home, jumps to narrow windows, deep zoom on
// single kernels) over synthetic sessions of 1M, 10M and 100M events and prints frame times
// (request -> frame built off the GUI thread -> painted), resident bytes per event, and for
// 10M events: the longest GUI-thread stall while opening, time for Cancel to be honoured,
// and reopening the saved session until its timeline is drawn.
//
// 1M and 10M are real session files written by the synthetic generator (core/synth) and
// opened through SessionDocument like the app does. 100M events are built as lanes directly in
// memory: writing a 100M-event session takes minutes and 7.47 GB of disk
// (docs/evidence/2026-12-02-bench-store), and its load path is the one measured at 10M.
//
// Usage: bench_ui_timeline [--sizes 1M,10M,100M] [--dir DIR] [--keep] [--repeat N] [--frames FILE]
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"
#include "ui/session/selectionmodel.h"
#include "ui/session/sessiondocument.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QMouseEvent>
#include <QPainter>
#include <QStandardPaths>
#include <QThread>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <malloc.h>
#include <random>
#include <unistd.h>

using namespace ws;

namespace {

double nowMs(const QElapsedTimer& t)
{
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

size_t residentBytes()
{
    QFile f(QStringLiteral("/proc/self/statm"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const auto parts = f.readAll().split(' ');
    return parts.size() > 1 ? static_cast<size_t>(parts[1].toLongLong()) * static_cast<size_t>(sysconf(_SC_PAGESIZE))
                            : 0;
}

void trimHeap()
{
    // Freed lanes may still be on their way out on a worker; then give the pages back so the
    // next RSS reading counts only what is live.
    QThread::msleep(300);
    malloc_trim(0);
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    return v[i];
}

bool waitUntil(const std::function<bool()>& cond, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!cond()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        if (!cond())
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 1);
    }
    return true;
}

// Lanes like a training job's trace (GPU streams of short kernels in bursts with idle gaps,
// CUDA API rows with runtime + nested driver calls, NVTX ranges), built straight into memory.
std::shared_ptr<const SessionSnapshot> inMemorySession(int64_t events, uint64_t seed)
{
    auto m = std::make_shared<TimelineModel>();
    constexpr int kStreams = 16;
    constexpr int kThreads = 8;
    std::vector<StringId> kernels;
    for (const char* k :
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "relu_kernel", "flash_attn_fwd_kernel", "layernorm_fwd",
            "[CUDA memcpy Host-to-Device]", "elementwise_add", "softmax_warp_fwd", "ampere_sgemm_128x64_nn"})
        kernels.push_back(m->strings.intern(k));
    const StringId apiNames[] = {m->strings.intern("cudaLaunchKernel_v7000"),
        m->strings.intern("cudaMemcpyAsync_v3020"), m->strings.intern("cudaStreamSynchronize_v3020")};
    const StringId driverLaunch = m->strings.intern("cuLaunchKernel");
    const StringId nvtx[]
        = {m->strings.intern("train_step"), m->strings.intern("forward"), m->strings.intern("backward")};
    m->processes.push_back({1, "python3", "python3 train.py", 0, 0, 0, 0, 0});
    for (int d = 0; d < 2; ++d) {
        DeviceInfo dev;
        dev.id = static_cast<uint32_t>(d);
        dev.pid = 1;
        dev.name = "NVIDIA H200";
        m->devices.push_back(dev);
    }
    std::mt19937_64 rng(seed);
    // Event budget: 55% GPU, 35% API (two depths), 10% NVTX.
    const int64_t gpuPerLane = events * 55 / 100 / kStreams;
    const int64_t apiPerThread = events * 35 / 100 / kThreads;
    const int64_t nvtxPerThread = events * 10 / 100 / kThreads;
    std::lognormal_distribution<double> kdur(std::log(8000.0), 1.1);
    std::uniform_int_distribution<int> small(200, 3000);
    const auto finish = [&m](TimelineLane& l) {
        l.start.shrink_to_fit();
        l.durations.shrinkToFit();
        l.name.shrink_to_fit();
        l.ref.shrink_to_fit();
        m->lanes.push_back(std::move(l));
    };
    int64_t row = 1;
    for (int t = 0; t < kThreads; ++t) {
        TimelineLane rt, drv, nv;
        rt.kind = drv.kind = LaneKind::CudaApi;
        nv.kind = LaneKind::Nvtx;
        rt.pid = drv.pid = nv.pid = 1;
        rt.tid = drv.tid = nv.tid = 100 + t;
        drv.depth = 1;
        rt.label = "CUDA API";
        drv.label = "CUDA API (depth 1)";
        nv.label = "NVTX";
        for (auto* l : {&rt, &drv, &nv}) {
            const size_t n = static_cast<size_t>(l == &nv ? nvtxPerThread : apiPerThread / 2 + 1);
            l->start.reserve(n);
            l->durations.reserve(n);
            l->name.reserve(n);
            l->ref.reserve(n);
        }
        TimeNs clock = 0;
        for (int64_t i = 0; i < apiPerThread / 2; ++i) {
            clock += small(rng);
            const TimeNs d = 2000 + small(rng);
            const StringId n = apiNames[static_cast<size_t>(i % 11 == 10 ? 2 : (i % 7 == 6 ? 1 : 0))];
            rt.start.push_back(clock);
            rt.appendEnd(clock + d);
            rt.name.push_back(n);
            rt.ref.push_back(EventRef::make(EventTable::ApiCall, row++));
            drv.start.push_back(clock + 300);
            drv.appendEnd(clock + d - 200);
            drv.name.push_back(driverLaunch);
            drv.ref.push_back(EventRef::make(EventTable::ApiCall, row++));
            clock += d;
        }
        const TimeNs span = std::max<TimeNs>(clock, 1);
        const TimeNs step = std::max<TimeNs>(span / std::max<int64_t>(nvtxPerThread, 1), 2);
        for (int64_t i = 0; i < nvtxPerThread; ++i) {
            nv.start.push_back(i * step);
            nv.appendEnd(i * step + step * 9 / 10);
            nv.name.push_back(nvtx[static_cast<size_t>(i % 3)]);
            nv.ref.push_back(EventRef::make(EventTable::NvtxRange, row++));
        }
        finish(rt);
        finish(drv);
        finish(nv);
    }
    for (int s = 0; s < kStreams; ++s) {
        TimelineLane l;
        l.kind = LaneKind::GpuStream;
        l.pid = 1;
        l.deviceId = static_cast<uint32_t>(s / (kStreams / 2));
        l.streamId = static_cast<uint32_t>(7 + s);
        l.label = "stream " + std::to_string(l.streamId);
        l.start.reserve(static_cast<size_t>(gpuPerLane));
        l.durations.reserve(static_cast<size_t>(gpuPerLane));
        l.name.reserve(static_cast<size_t>(gpuPerLane));
        l.ref.reserve(static_cast<size_t>(gpuPerLane));
        TimeNs clock = s * 1000;
        for (int64_t i = 0; i < gpuPerLane; ++i) {
            // Bursts of back-to-back kernels, an idle gap every 500 launches.
            clock += (i % 500 == 499) ? 400'000 + small(rng) * 100 : small(rng) / 4;
            const TimeNs d = static_cast<TimeNs>(std::min(kdur(rng), 2e6));
            l.start.push_back(clock);
            l.appendEnd(clock + d);
            l.name.push_back(kernels[static_cast<size_t>((i * 7 + s) % kernels.size())]);
            l.ref.push_back(EventRef::make(EventTable::Kernel, row++ & ((1 << 29) - 1)));
            clock += d;
        }
        finish(l);
    }
    TimeNs end = 0;
    for (const auto& l : m->lanes)
        end = std::max(end, l.size() ? l.ends().back() : 0);
    m->begin = 0;
    m->end = end;
    m->eventCount = 0;
    for (const auto& l : m->lanes)
        m->eventCount += static_cast<int64_t>(l.size());
    return SessionSnapshot::build(m, {}, {});
}

struct FrameStats {
    std::vector<double> total;     // wall clock: view change -> frame built -> painted
    std::vector<double> build;     // worker wall clock
    std::vector<double> paint;     // GUI thread wall clock
    std::vector<double> cpu;       // CPU time: build (worker) + paint (GUI)
    std::vector<double> paintCpu;  // CPU time on the GUI thread
    std::vector<double> buildCpu;  // CPU time of the worker's build
    std::vector<const char*> step; // what the script did for each frame (--frames FILE)
};

// The navigation script, relative to the session so it fits every size.
FrameStats replay(TimelineView& view, SelectionModel& selection, const SessionSnapshot& s, int repeat)
{
    FrameStats st;
    const TimeNs span = s.end() - s.begin();
    // A frame is done when the view has painted with a frame built for the new view: the
    // view asks for a repaint itself when the frame arrives, as in the app.
    bool paintedCurrent = false;
    const auto conn = QObject::connect(&view, &TimelineView::framePainted, [&] {
        if (view.isFrameCurrent())
            paintedCurrent = true;
    });
    const char* step = "first Home";
    const auto frame = [&](const std::function<void()>& change) {
        QElapsedTimer t;
        t.start();
        paintedCurrent = false;
        const TimeRange before = selection.viewRange();
        change();
        // A step that leaves the view as it is (Home on the view the session opened with) builds
        // nothing: there is no frame to wait for. It used to be timed by whichever paint came
        // next, if one came, and waited a minute otherwise.
        if (selection.viewRange() == before && view.isFrameCurrent())
            return;
        if (!waitUntil([&] { return paintedCurrent; }, 60000)) {
            std::fprintf(stderr, "frame timed out\n");
            return;
        }
        st.total.push_back(nowMs(t));
        st.build.push_back(view.lastBuildMs());
        st.paint.push_back(view.lastPaintMs());
        st.cpu.push_back(view.lastBuildCpuMs() + view.lastPaintCpuMs());
        st.paintCpu.push_back(view.lastPaintCpuMs());
        st.buildCpu.push_back(view.lastBuildCpuMs());
        st.step.push_back(step);
    };
    const double w = view.eventArea().width();
    // A drag of the events by `fraction` of the view's width (positive: to later times), sent
    // as the mouse sends it: press, one move of whole pixels, release.
    const auto drag = [&](double fraction) {
        const QRect area = view.eventArea();
        const auto dx = static_cast<int>(std::lround(fraction * area.width()));
        const QPoint from(area.left() + area.width() / 2 + dx / 2, area.top() + area.height() / 3);
        const QPoint to = from - QPoint(dx, 0);
        const auto send = [&](QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons held) {
            QMouseEvent e(type, QPointF(at), view.mapToGlobal(QPointF(at)), button, held, Qt::NoModifier);
            QCoreApplication::sendEvent(&view, &e);
        };
        send(QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
        send(QEvent::MouseMove, to, Qt::NoButton, Qt::LeftButton);
        send(QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
    };
    for (int pass = 0; pass < repeat; ++pass) {
        if (pass == 0) // later passes start where the last one ended: the whole session
            frame([&] { view.fitAll(); });
        step = "zoom in at 0.37";
        for (int i = 0; i < 12; ++i)
            frame([&] { view.zoomBy(0.8, 0.37 * w); }); // wheel zoom at the cursor
        step = "pan 0.05";
        for (int i = 0; i < 10; ++i)
            frame([&] { drag(0.05); });
        step = "zoom in at 0.6";
        for (int i = 0; i < 15; ++i)
            frame([&] { view.zoomBy(0.8, 0.6 * w); });
        step = "pan -0.07";
        for (int i = 0; i < 8; ++i)
            frame([&] { drag(-0.07); });
        step = "zoom out (20)";
        for (int i = 0; i < 20; ++i)
            frame([&] { view.zoomBy(1.25, 0.5 * w); });
        step = "Home";
        frame([&] { view.fitAll(); }); // Home
        // Jumps (search hits, double-clicks) to narrow windows and panning there.
        for (const double at : {0.25, 0.5, 0.75}) {
            for (const TimeNs window : {span / 1000, span / 100000, TimeNs(50'000)}) {
                const TimeNs b = s.begin() + static_cast<TimeNs>(at * static_cast<double>(span));
                step = "jump";
                frame([&] { selection.setViewRange({b, b + std::max<TimeNs>(window, 100)}); });
                step = "pan 0.1 after jump";
                for (int i = 0; i < 4; ++i)
                    frame([&] { drag(0.1); });
            }
        }
        step = "zoom out (30)";
        for (int i = 0; i < 30; ++i)
            frame([&] { view.zoomBy(1.25, 0.5 * w); });
        step = "Home";
        frame([&] { view.fitAll(); });
    }
    QObject::disconnect(conn);
    return st;
}

struct OpenResult {
    std::shared_ptr<const SessionSnapshot> snapshot;
    double drawnMs = 0;
    double longestStallMs = 0;
};

// Opens like the app: loader on a worker, snapshot handed to the view, first frame painted.
// A 1 ms timer on the GUI thread measures the longest time the event loop was not serving.
OpenResult openAndDraw(const QString& path, TimelineView& view, TimelineRowModel& rows, SelectionModel& selection)
{
    OpenResult r;
    SessionDocument loader;
    loader.setReadsPanels(false); // the timeline alone, as measured before the document
    std::shared_ptr<const SessionSnapshot> got;
    QString error;
    QObject::connect(&loader, &SessionDocument::loaded, [&](std::shared_ptr<const SessionSnapshot> s) {
        QElapsedTimer h;
        h.start();
        got = std::move(s);
        rows.setSnapshot(got);
        const double a = nowMs(h);
        const auto full = TimeRangeClamp::apply(got->begin(), got->end(), got->begin(), got->end());
        selection.reset({full[0], full[1]});
        const double b = nowMs(h);
        view.setSnapshot(got);
        if (qEnvironmentVariableIsSet("WS_PAINT_DEBUG"))
            std::fprintf(stderr, "loaded handler: rows %.1f reset %.1f setSnapshot %.1f ms\n", a, b - a, nowMs(h) - b);
    });
    QObject::connect(&loader, &SessionDocument::failed,
        [&](const QString&, const QString& reason, bool) { error = reason.isEmpty() ? "failed" : reason; });
    QElapsedTimer since;
    QElapsedTimer tick;
    QTimer timer;
    timer.setInterval(1);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        const double gap = nowMs(tick);
        if (gap > 10 && qEnvironmentVariableIsSet("WS_PAINT_DEBUG"))
            std::fprintf(stderr, "stall %.1f ms at %.1f ms\n", gap, nowMs(since));
        r.longestStallMs = std::max(r.longestStallMs, gap);
        tick.restart();
    });
    since.start();
    tick.start();
    timer.start();
    loader.open(path);
    waitUntil([&] { return !error.isEmpty() || (got && view.isFrameCurrent()); }, 600000);
    if (got) {
        view.repaint();
        r.drawnMs = nowMs(since);
    }
    timer.stop();
    if (!error.isEmpty())
        std::fprintf(stderr, "open %s failed: %s\n", qPrintable(path), qPrintable(error));
    r.snapshot = got;
    return r;
}

std::vector<double> measureCancel(const QString& path)
{
    std::vector<double> out;
    for (const int after : {50, 200, 500, 1000}) {
        SessionDocument loader;
        loader.setReadsPanels(false);
        bool done = false;
        bool cancelled = false;
        QObject::connect(&loader, &SessionDocument::failed, [&](const QString&, const QString&, bool c) {
            done = true;
            cancelled = c;
        });
        QObject::connect(&loader, &SessionDocument::loaded, [&](std::shared_ptr<const SessionSnapshot> s) {
            done = true;
            SessionDocument::releaseLater(std::move(s));
        });
        loader.open(path);
        QElapsedTimer t;
        t.start();
        waitUntil([&] { return done || t.elapsed() >= after; }, after + 1000);
        if (done)
            continue; // finished before the cancel: nothing to measure
        QElapsedTimer c;
        c.start();
        loader.cancel();
        waitUntil([&] { return done; }, 60000);
        out.push_back(nowMs(c));
        std::printf("    cancel after %4d ms: honoured in %.1f ms%s\n", after, out.back(),
            cancelled ? "" : " (not as a cancel!)");
    }
    return out;
}

QString ensureSynthetic(const QString& dir, int64_t events)
{
    const QString path = QDir(dir).filePath(QStringLiteral("synth-%1.wscope").arg(events));
    if (QFile::exists(path))
        return path;
    QElapsedTimer t;
    t.start();
    SynthOptions o;
    o.events = events;
    o.seed = 42;
    SessionWriter w(path.toStdString());
    attachLaneCache(w);
    writeSyntheticSession(o, w);
    w.commit();
    std::printf("  wrote %s (%.1f s, %.0f MB)\n", qPrintable(path), nowMs(t) / 1000.0,
        static_cast<double>(QFileInfo(path).size()) / 1e6);
    return path;
}

void printLoadTimes(const SessionSnapshot& s)
{
    const auto& t = s.loadTimes;
    std::printf("    of which on the loader thread: open+validate %.0f ms, lanes %.0f ms, counters %.0f ms, "
                "LOD index+colours %.0f ms\n",
        t.reader, t.lanes, t.counters, t.index);
}

void printFrames(const char* label, const FrameStats& st)
{
    const auto line = [](const char* what, const std::vector<double>& v) {
        std::printf("    %-44s p50 %6.2f  p95 %6.2f  max %6.2f ms\n", what, percentile(v, 0.5), percentile(v, 0.95),
            v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()));
    };
    std::printf("  %s: %zu frames\n", label, st.total.size());
    line("frame CPU (worker build + GUI paint)", st.cpu);
    line("worker build CPU", st.buildCpu);
    line("GUI-thread paint CPU", st.paintCpu);
    line("latency, view change -> painted (wall)", st.total);
    line("build on the worker (wall)", st.build);
    line("paint on the GUI thread (wall)", st.paint);
}

// The least a frame that changes every pixel of the view's images costs on this machine: the
// worker's part writes every pixel of images as large as the view's last frame (one scanline
// per 16 lines, copied down, as rows are drawn), the GUI's part blits them into a widget's
// backing store (CompositionMode_Source, as RowPainter does) and nothing else. A software
// rasteriser behind a QWidget cannot do less per frame; the script's frames are compared with it.
class FloorWidget : public QWidget {
public:
    QImage images[2];
    int tops[2] = {0, 0};
    double paintCpuMs = 0;

protected:
    void paintEvent(QPaintEvent*) override
    {
        const double t0 = threadCpuMs();
        QPainter p(this);
        p.setCompositionMode(QPainter::CompositionMode_Source);
        for (int layer = 0; layer < 2; ++layer) {
            if (!images[layer].isNull())
                p.drawImage(QPoint(0, tops[layer]), images[layer]);
        }
        p.end();
        paintCpuMs = threadCpuMs() - t0;
    }
};

FrameStats pixelFloor(const TimelineView& view, const QSize (&sizes)[2], int frames)
{
    FrameStats st;
    FloorWidget w;
    w.resize(view.size());
    w.show();
    QCoreApplication::processEvents();
    // Two sets, alternating, so that writing one never waits for (or copies) the one shown.
    QImage sets[2][2];
    for (auto& set : sets) {
        for (int layer = 0; layer < 2; ++layer) {
            if (!sizes[layer].isEmpty())
                set[layer] = QImage(sizes[layer], QImage::Format_RGB32);
        }
    }
    w.tops[0] = TimelineView::kRulerHeight;
    w.tops[1] = TimelineView::kRulerHeight + std::max(0, sizes[0].height());
    for (int i = 0; i < frames; ++i) {
        for (QImage& img : w.images)
            img = QImage();
        const double t0 = threadCpuMs();
        for (QImage& img : sets[i & 1]) {
            for (int y = 0; y < img.height(); y += 16) {
                auto* line = reinterpret_cast<quint32*>(img.scanLine(y));
                for (int x = 0; x < img.width(); ++x)
                    line[x] = 0xff000000u | static_cast<quint32>(((x >> 3) * 977 + i) & 0xffffff);
                for (int k = 1; k < 16 && y + k < img.height(); ++k)
                    std::memcpy(img.scanLine(y + k), line, static_cast<size_t>(img.bytesPerLine()));
            }
        }
        const double build = threadCpuMs() - t0;
        for (int layer = 0; layer < 2; ++layer)
            w.images[layer] = sets[i & 1][layer];
        w.repaint();
        st.buildCpu.push_back(build);
        st.paintCpu.push_back(w.paintCpuMs);
        st.cpu.push_back(build + w.paintCpuMs);
    }
    return st;
}

// One line per frame: which step of the script, worker build CPU, GUI paint CPU (ms).
void writeFrames(const QString& path, const FrameStats& st)
{
    FILE* f = std::fopen(qPrintable(path), "w");
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
        return;
    }
    std::fprintf(f, "frame\tstep\tbuild_cpu_ms\tpaint_cpu_ms\tcpu_ms\n");
    for (size_t i = 0; i < st.cpu.size(); ++i)
        std::fprintf(f, "%zu\t%s\t%.3f\t%.3f\t%.3f\n", i, st.step[i], st.buildCpu[i], st.paintCpu[i], st.cpu[i]);
    std::fclose(f);
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStringList sizes {QStringLiteral("1M"), QStringLiteral("10M"), QStringLiteral("100M")};
    QString dir = QDir(QStandardPaths::writableLocation(QStandardPaths::TempLocation))
                      .filePath(QStringLiteral("warpscope-bench"));
    bool keep = false;
    int repeat = 1;     // more passes of the script: steadier percentiles, and long enough to profile
    QString framesPath; // every frame's step and CPU times, tab-separated, per size (SIZE is appended)
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--sizes") && i + 1 < args.size())
            sizes = args[++i].split(QLatin1Char(','));
        else if (args[i] == QLatin1String("--dir") && i + 1 < args.size())
            dir = args[++i];
        else if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--keep"))
            keep = true;
        else if (args[i] == QLatin1String("--frames") && i + 1 < args.size())
            framesPath = args[++i];
    }
    QDir().mkpath(dir);
    std::printf("bench_ui_timeline: TimelineView %dx%d offscreen, %d CPU(s), Qt %s\n", 1920, 1080,
        QThread::idealThreadCount(), qVersion());

    SelectionModel selection;
    TimelineRowModel rows;
    TimelineView view(&selection, &rows);
    view.resize(1920, 1080);
    view.show();
    QCoreApplication::processEvents();

    std::vector<QString> written;
    for (const QString& size : sizes) {
        const int64_t events
            = size.endsWith(QLatin1Char('M')) ? size.chopped(1).toLongLong() * 1'000'000 : size.toLongLong();
        std::printf("\n== %s events\n", qPrintable(size));
        trimHeap();
        const size_t rssBefore = residentBytes();
        std::shared_ptr<const SessionSnapshot> s;
        if (events >= 50'000'000) {
            QElapsedTimer t;
            t.start();
            s = inMemorySession(events, 7);
            rows.setSnapshot(s);
            const auto full = TimeRangeClamp::apply(s->begin(), s->end(), s->begin(), s->end());
            selection.reset({full[0], full[1]});
            view.setSnapshot(s);
            waitUntil([&] { return view.isFrameCurrent(); }, 600000);
            view.repaint();
            std::printf("  lanes built in memory (no SQLite file) in %.1f s\n", nowMs(t) / 1000.0);
        } else {
            const QString path = ensureSynthetic(dir, events);
            written.push_back(path);
            const OpenResult first = openAndDraw(path, view, rows, selection);
            s = first.snapshot;
            if (!s)
                return 1;
            std::printf("  open until drawn: %.3f s (lanes from %s), longest GUI-thread stall %.1f ms\n",
                first.drawnMs / 1000.0, s->model->fromLaneCache ? "lane cache" : "row scans", first.longestStallMs);
            printLoadTimes(*s);
        }
        const size_t rssAfter = residentBytes();
        const int64_t n = s->eventCount();
        std::printf("  %lld events in %zu lanes; resident %.1f B/event (RSS growth), %.1f B/event (data structures)\n",
            static_cast<long long>(n), s->model->lanes.size(),
            static_cast<double>(rssAfter - rssBefore) / static_cast<double>(n),
            static_cast<double>(s->residentBytes()) / static_cast<double>(n));

        const FrameStats st = replay(view, selection, *s, repeat);
        printFrames("zoom/pan script", st);
        std::printf("  row layers written straight into the backing store: %d\n", view.rowLayersWrittenDirectly());
        if (!framesPath.isEmpty())
            writeFrames(framesPath + QLatin1Char('.') + size, st);
        if (const auto f = view.frame()) {
            // The view's images as the script left them (this session's rows collapsed to their
            // groups fill part of the view), then rows filling the whole view below the ruler.
            const QSize same[2] = {f->layers[0].size(), f->layers[1].size()};
            const QSize full[2]
                = {QSize(0, 0), QSize(f->layers[1].width(), view.height() - TimelineView::kRulerHeight)};
            for (const auto* floorSizes : {&same, &full}) {
                const FrameStats floor = pixelFloor(view, *floorSizes, static_cast<int>(st.cpu.size()));
                std::printf("  pixel floor: images of %dx%d + %dx%d written once, then blitted (%zu frames):\n",
                    (*floorSizes)[0].width(), (*floorSizes)[0].height(), (*floorSizes)[1].width(),
                    (*floorSizes)[1].height(), floor.cpu.size());
                const auto line = [](const char* what, const std::vector<double>& v) {
                    std::printf("    %-44s p50 %6.2f  p95 %6.2f  max %6.2f ms\n", what, percentile(v, 0.50),
                        percentile(v, 0.95), percentile(v, 1.0));
                };
                line("frame CPU (write + blit)", floor.cpu);
                line("write (worker's part)", floor.buildCpu);
                line("blit (GUI thread's part)", floor.paintCpu);
            }
        }

        if (events == 10'000'000) {
            // Reopen the saved session (the file is in the page cache now, as on a second open).
            view.setSnapshot(nullptr);
            rows.setSnapshot(nullptr);
            SessionDocument::releaseLater(std::move(s));
            const OpenResult again = openAndDraw(written.back(), view, rows, selection);
            std::printf("  reopen until drawn: %.3f s, longest GUI-thread stall %.1f ms\n", again.drawnMs / 1000.0,
                again.longestStallMs);
            s = again.snapshot;
            if (s)
                printLoadTimes(*s);
            std::printf("  cancel while opening:\n");
            const auto cancels = measureCancel(written.back());
            if (!cancels.empty())
                std::printf("  cancel honoured within %.1f ms (worst of %zu)\n",
                    *std::max_element(cancels.begin(), cancels.end()), cancels.size());
        }
        view.setSnapshot(nullptr);
        rows.setSnapshot(nullptr);
        s.reset();
        QThreadPool::globalInstance()->waitForDone();
    }
    std::printf(
        "\nGoals (frame CPU): 10M p95 <= 4 ms, then <= 2 ms; 100M p95 <= 8 ms; <= 40 B/event; no GUI stall > 50 ms; "
        "cancel <= 200 ms; reopen 10M <= 1.0 s\n");
    if (!keep) {
        for (const QString& f : written)
            QFile::remove(f);
    }
    return 0;
}

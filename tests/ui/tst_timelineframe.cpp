// SPDX-License-Identifier: MIT
// The frame builder's caches and raster shortcuts against what they replace: folded runs'
// labels whose count changes (the count drawn from glyphs, CountPrefix) equal labels built on
// a fresh thread, row label cells cached across frames equal fresh ones, and the rows' pixels
// (scanlines, one-pixel gaps, the hatch of folded runs taken from a pre-hatched line) equal a
// brute-force raster of the frame's own draw lists, and a layer composed a rectangle at a time
// equals the whole.
#include "ui/timeline/countprefix.h"
#include "ui/timeline/elisiontable.h"
#include "ui/timeline/hatchedscanlines.h"
#include "ui/timeline/layerpixels.h"
#include "ui/timeline/timelineframe.h"
#include "uifixtures.h"

#include <QApplication>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QtTest>

#include <algorithm>
#include <random>
#include <thread>

using namespace ws;

namespace {

// One lane row per lane plus a group header, the label column on: what the view asks for.
FrameRequest requestFor(const std::shared_ptr<const SessionSnapshot>& s, const TimelineCoordinates& coords,
    int rowHeight = 22, int labelWidth = 160, bool expanded = true)
{
    FrameRequest req;
    req.snapshot = s;
    req.coords = coords;
    req.style.font = QApplication::font();
    req.labelWidth = labelWidth;
    FrameRow group;
    group.y = 0;
    group.height = rowHeight;
    group.group = true;
    group.expanded = expanded;
    group.label = QStringLiteral("process 1 (bench)");
    req.rows.push_back(group);
    for (int lane = 0; lane < int(s->model->lanes.size()); ++lane) {
        FrameRow row;
        row.lane = lane;
        row.y = (lane + 1) * rowHeight;
        row.height = rowHeight;
        row.depth = 1;
        row.background = 0xffffffffu;
        row.labelBackground = 0xfff4f4f4u;
        row.label = QString::fromStdString(s->model->lanes[size_t(lane)].label);
        req.rows.push_back(row);
    }
    req.layerHeight[1] = int(req.rows.size()) * rowHeight;
    return req;
}

std::shared_ptr<TimelineFrame> buildOnFreshThread(const FrameRequest& req)
{
    std::shared_ptr<TimelineFrame> fresh;
    std::thread([&] { fresh = buildTimelineFrame(req); }).join();
    return fresh;
}

// Clumps of 3-202 back-to-back events (100 ns, 20 ns apart) 20 us apart, on two lanes (a
// long kernel name and a short one): between ~40 and ~200 ns per pixel each clump is one
// folded run labelled "N × name", its name elided to what the count leaves.
std::shared_ptr<SessionSnapshot> clumpSession()
{
    auto m = std::make_shared<TimelineModel>();
    m->processes.push_back({1, "bench", "bench", 0, 0, 0, 0, 0});
    const StringId names[]
        = {m->strings.intern("void flash_attn_fwd_kernel<128, true, false>"), m->strings.intern("k")};
    TimeNs end = 0;
    for (int lane = 0; lane < 2; ++lane) {
        TimelineLane l;
        l.kind = LaneKind::GpuStream;
        l.pid = 1;
        l.streamId = uint32_t(7 + lane);
        l.label = "stream " + std::to_string(l.streamId);
        TimeNs t = lane * 3'000;
        int64_t row = 1 + lane * 1'000'000;
        for (int clump = 0; clump < 400; ++clump) {
            const int k = 3 + (clump * 37 + lane * 11) % 200;
            for (int i = 0; i < k; ++i) {
                l.start.push_back(t);
                l.appendEnd(t + 100);
                l.name.push_back(names[lane]);
                l.ref.push_back(EventRef::make(EventTable::Kernel, row++));
                t += 120;
            }
            t += 20'000;
        }
        end = std::max(end, t);
        m->lanes.push_back(std::move(l));
    }
    m->begin = 0;
    m->end = end;
    m->eventCount = int64_t(m->lanes[0].size() + m->lanes[1].size());
    return SessionSnapshot::build(m, {}, {});
}

// The session of the reuse tests' data rows: 0, a dense lane; 1, labelled clumps.
std::shared_ptr<const SessionSnapshot> sessionFor(int session, quint64 seed)
{
    return session == 0 ? std::shared_ptr<const SessionSnapshot>(test::denseSession(120'000, seed))
                        : std::shared_ptr<const SessionSnapshot>(clumpSession());
}

// requestFor with the GPU rows marked, so idle shades and "idle" notes in long gaps are drawn too.
FrameRequest gpuRowsRequest(const std::shared_ptr<const SessionSnapshot>& s, const TimelineCoordinates& c)
{
    FrameRequest req = requestFor(s, c, 22, 120);
    for (FrameRow& row : req.rows)
        row.gpu = row.lane >= 0 && s->model->lanes[size_t(row.lane)].kind == LaneKind::GpuStream;
    return req;
}

// Builds `req` from the frame `shown` and from nothing on a fresh thread and compares the two:
// pixels, draw lists and counts (`at` names the step in a failure). Returns the former; on a
// mismatch the test has failed (QTest::currentTestFailed()).
std::shared_ptr<const TimelineFrame> buildFromPreviousAsFresh(
    FrameRequest req, const std::shared_ptr<const TimelineFrame>& shown, const QString& at)
{
    req.previous = shown;
    std::shared_ptr<const TimelineFrame> viaPrevious = buildTimelineFrame(req);
    req.previous.reset();
    const auto fresh = buildOnFreshThread(req);
    const auto check = [&] {
        QVERIFY(viaPrevious && fresh);
        QVERIFY2(viaPrevious->image(1) == fresh->image(1), qPrintable(at + QStringLiteral(": pixels differ")));
        QCOMPARE(viaPrevious->rows.size(), fresh->rows.size());
        for (size_t r = 0; r < fresh->rows.size(); ++r)
            QVERIFY2(
                viaPrevious->rows[r].rects == fresh->rows[r].rects, qPrintable(at + QStringLiteral(": row %1").arg(r)));
        QCOMPARE(viaPrevious->rectCount, fresh->rectCount);
        QCOMPARE(viaPrevious->eventsCovered, fresh->eventsCovered);
        QCOMPARE(viaPrevious->labelCount, fresh->labelCount);
        QCOMPARE(fresh->rectsReused, qint64(0));
    };
    check();
    return viaPrevious;
}

// Folded runs wide enough for a label ("abc…" and more).
int foldedLabels(const TimelineFrame& f)
{
    int n = 0;
    for (const FrameRowHits& r : f.rows) {
        for (const LodRect& rect : r.rects)
            n += rect.count > 1 && rect.x1 - rect.x0 >= 40 ? 1 : 0;
    }
    return n;
}

} // namespace

class TestTimelineFrame : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(QFontDatabase::families().size() > 0); }

    void countPrefixIsTheCachedComposition()
    {
        CountPrefix prefixes(QApplication::font());
        const QFontMetricsF fm(QApplication::font());
        for (int pass = 0; pass < 2; ++pass) { // the second pass reads the cache
            for (const quint32 n : {2u, 9u, 10u, 999u, 1000u, 1234u, 98765u, 1234567u, 4294967295u}) {
                const QImage& cached = prefixes.image(n, 0xff336699u, 0xffffffffu);
                QCOMPARE(cached, prefixes.compose(n, 0xff336699u, 0xffffffffu));
                QCOMPARE(cached.width(), prefixes.width(n));
                QCOMPARE(cached.height(), QFontMetrics(QApplication::font()).height());
                // Glyphs at whole pixels: as wide as the text laid out, to the pixel.
                const QString text = QLocale(QLocale::English).toString(n) + QStringLiteral(" × ");
                QVERIFY2(std::abs(prefixes.width(n) - fm.horizontalAdvance(text)) <= 1.0, qPrintable(text));
                int ink = 0;
                for (int y = 0; y < cached.height(); ++y) {
                    for (int x = 0; x < cached.width(); ++x)
                        ink += cached.pixel(x, y) != 0xff336699u ? 1 : 0;
                }
                QVERIFY(ink > 10);
                // "N × …", the label of a run too narrow for its name: wider by the ellipsis.
                const QImage& elided = prefixes.image(n, 0xff336699u, 0xffffffffu, true);
                QCOMPARE(elided, prefixes.compose(n, 0xff336699u, 0xffffffffu, true));
                QCOMPARE(elided.width(), prefixes.width(n, true));
                QVERIFY(elided.width() > cached.width());
                QCOMPARE(elided.copy(0, 0, cached.width() - 2, cached.height()),
                    cached.copy(0, 0, cached.width() - 2, cached.height()));
            }
        }
        // Other colours are other images.
        QVERIFY(prefixes.image(1234, 0xff000000u, 0xffffffffu) != prefixes.image(1234, 0xff336699u, 0xffffffffu));
    }

    // Widths asked in any order (zooms in and out): the table answers what elidedText answers.
    void elisionTableEqualsElidedText()
    {
        const QFontMetrics fm(QApplication::font());
        std::mt19937 rng(3);
        for (const QString& text :
            {QStringLiteral("void flash_attn_fwd_kernel<128, true, false>"), QStringLiteral("cudaLaunchKernel"),
                QStringLiteral("ab"), QStringLiteral("[CUDA memcpy Host-to-Device]")}) {
            std::vector<int> widths;
            for (int w = 0; w <= fm.horizontalAdvance(text) + 12; ++w)
                widths.push_back(w);
            std::shuffle(widths.begin(), widths.end(), rng);
            ElisionTable table;
            for (int pass = 0; pass < 2; ++pass) {
                for (const int w : widths) {
                    const ElisionTable::Elided& e = table.at(text, w, fm);
                    const QString expected = fm.elidedText(text, Qt::ElideRight, w);
                    QVERIFY2(e.text == expected, qPrintable(QStringLiteral("%1 at %2").arg(text).arg(w)));
                    QCOMPARE(e.advance, fm.horizontalAdvance(expected));
                }
            }
        }
    }

    // Label cells of rows too short for their lines, too deep for the column or with a column
    // too narrow for the text are kept like the others (2026-12-04; they were drawn again in
    // every frame): a frame from the warm thread, twice (the second from the kept cells), equals
    // one from a fresh thread. Heights, depths and the column's width vary within a frame and
    // from row to row of the data, so a cell kept under a key that missed one of them shows.
    void labelCellsThatSpillEqualFreshOnes_data()
    {
        QTest::addColumn<int>("rowHeight");
        QTest::addColumn<int>("labelWidth");
        for (const int h : {4, 9, 13, 22})
            for (const int w : {12, 30, 90, 160})
                QTest::addRow("rows of %d px, column of %d px", h, w) << h << w;
    }
    void labelCellsThatSpillEqualFreshOnes()
    {
        QFETCH(int, rowHeight);
        QFETCH(int, labelWidth);
        const auto s = clumpSession();
        const TimelineCoordinates c(s->begin(), 2000.0, 800);
        FrameRequest req = requestFor(s, c, rowHeight, labelWidth);
        int y = 0;
        for (size_t r = 0; r < req.rows.size(); ++r) {
            FrameRow& row = req.rows[r];
            row.y = y;
            row.height = rowHeight + int(r % 3) * 3;
            row.depth = int(r % 6);
            if (r % 2)
                row.label += QStringLiteral("\nmax 1.25 GB/s");
            y += row.height;
        }
        req.layerHeight[1] = y;
        for (int pass = 0; pass < 2; ++pass) {
            const auto warm = buildTimelineFrame(req);
            const auto fresh = buildOnFreshThread(req);
            QVERIFY(warm && fresh);
            for (int layer = 0; layer < 2; ++layer)
                QVERIFY2(warm->image(layer) == fresh->image(layer),
                    qPrintable(QStringLiteral("pass %1, layer %2").arg(pass).arg(layer)));
        }
    }

    // A one-character name is no label alone, but the whole name after a run's count.
    void shortNamesAfterACount()
    {
        const QFont font = QApplication::font();
        QVERIFY(renderLabel(QStringLiteral("k"), 40, 0xff336699u, 0xffffffffu, font, false, Qt::ElideRight).isNull());
        const QImage k
            = renderLabel(QStringLiteral("k"), 40, 0xff336699u, 0xffffffffu, font, false, Qt::ElideRight, -1, true);
        QVERIFY(!k.isNull());
        QCOMPARE(k.width(), QFontMetrics(font).horizontalAdvance(QStringLiteral("k")) + 1);
        // Elided to its ellipsis it is still nothing.
        QVERIFY(renderLabel(QStringLiteral("kernel_with_a_long_name"), 12, 0xff336699u, 0xffffffffu, font, false,
            Qt::ElideRight, -1, true)
                    .isNull());
    }

    // Zooming changes the counts of the folded runs (and the widths their names are elided
    // to): each frame on the warm worker equals a frame built on a fresh thread.
    void foldedLabelsWhoseCountChangesEqualFreshOnes()
    {
        const auto s = clumpSession();
        TimelineCoordinates c(s->begin() + (s->end() - s->begin()) / 3, 200.0, 1200);
        int folded = 0;
        for (int step = 0; step < 24; ++step) {
            const FrameRequest req = requestFor(s, c, 22, 160, step % 2 == 0);
            const auto warm = buildTimelineFrame(req);
            const auto fresh = buildOnFreshThread(req);
            QVERIFY(warm && fresh);
            QCOMPARE(warm->labelCount, fresh->labelCount);
            QVERIFY2(warm->image(1) == fresh->image(1), qPrintable(QString::number(step)));
            folded += foldedLabels(*warm);
            // Zoom in, pan (other clumps, so other counts at the same place), zoom out.
            c = step < 8 ? c.zoomedAround(300 + 40 * step, 0.85)
                         : (step < 16 ? c.pannedBy(step % 2 ? 333.5 : -150.25) : c.zoomedAround(700, 1.2));
        }
        QVERIFY2(folded > 100, qPrintable(QString::number(folded)));
    }

    // A frame built from the previous one (FrameRequest::previous: a whole-pixel pan takes over
    // the folds that lie inside both views) against the same view built from nothing on a fresh
    // thread (cold label caches too): the same pixels, draw lists and counts, through chains of
    // random drags (a pixel to beyond the width, both ways), zooms and pans by fractions of a
    // pixel (neither on the previous grid: built afresh). Each step's frame is the next one's
    // previous, so a wrong rectangle would carry on.
    void reusedFramesEqualFreshOnes_data()
    {
        QTest::addColumn<int>("session");
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("width");
        QTest::addColumn<double>("zoomFrom"); // views of 10^-zoomTo .. 10^-zoomFrom of the session
        QTest::addColumn<double>("zoomTo");
        QTest::addColumn<int>("minReused"); // the chain exercises the reuse
        for (quint64 seed = 1; seed <= 6; ++seed) {
            QTest::addRow("dense lane, seed %llu", seed) << 0 << seed << int(300 + 257 * seed) << 2.5 << 4.5 << 50;
            // GPU rows: folded runs labelled "N × name", idle notes between the clumps.
            QTest::addRow("labelled clumps, seed %llu", seed)
                << 1 << seed << int(400 + 301 * seed) << 0.0 << 1.5 << 1000;
        }
    }
    void reusedFramesEqualFreshOnes()
    {
        QFETCH(int, session);
        QFETCH(quint64, seed);
        QFETCH(int, width);
        QFETCH(double, zoomFrom);
        QFETCH(double, zoomTo);
        QFETCH(int, minReused);
        const std::shared_ptr<const SessionSnapshot> s = sessionFor(session, seed);
        std::mt19937_64 rng(seed * 104729 + quint64(session));
        std::uniform_real_distribution<double> u(0.0, 1.0);
        const double total = double(s->end() - s->begin());
        const auto newView = [&] {
            const double span = total * std::pow(10.0, -zoomFrom - (zoomTo - zoomFrom) * u(rng));
            return TimelineCoordinates(
                s->begin() + TimeNs(u(rng) * (total - span)), std::max(span / width, 0.05), width);
        };
        TimelineCoordinates c = newView();
        std::shared_ptr<const TimelineFrame> shown = buildTimelineFrame(gpuRowsRequest(s, c));
        QVERIFY(shown);
        qint64 reused = 0;
        for (int step = 0; step < 60; ++step) {
            const int kind = int(u(rng) * 10);
            const char* what = "drag";
            if (kind == 0) {
                c = newView().zoomedAround(u(rng) * width, 0.6 + 0.8 * u(rng));
                what = "zoom";
            } else if (kind == 1) {
                c = c.pannedBy(u(rng) * 40 - 20);
                what = "pan by a fraction of a pixel";
            } else {
                // Drags lean towards the session's middle, so the chain stays where the events are.
                const bool leftward = c.viewStart() / 2 + c.viewEnd() / 2 > s->begin() / 2 + s->end() / 2;
                const int64_t sign = (u(rng) < 0.7) == leftward ? -1 : 1;
                const int64_t k = kind == 2 ? int64_t((u(rng) - 0.5) * 3 * width)
                                            : std::max<int64_t>(1, int64_t(u(rng) * u(rng) * width)) * sign;
                c = c.shiftedByPixels(k);
            }
            const QString at = QStringLiteral("step %1 (%2)").arg(step).arg(QLatin1String(what));
            const auto viaPrevious = buildFromPreviousAsFresh(gpuRowsRequest(s, c), shown, at);
            if (QTest::currentTestFailed())
                return;
            reused += viaPrevious->rectsReused;
            shown = viaPrevious;
        }
        QVERIFY2(reused >= minReused, qPrintable(QString::number(reused))); // the drags took rectangles over
    }

    // Zooms search each lane's visible events from where the previous frame drew them
    // (visibleRangeHint): chains of zooms around the current view, in and out, with a jump now
    // and then, each frame built from the previous one equal to the same view built from
    // nothing on a fresh thread: pixels, draw lists and counts.
    void zoomedFramesEqualFreshOnes_data()
    {
        QTest::addColumn<int>("session");
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("width");
        for (quint64 seed = 1; seed <= 4; ++seed) {
            QTest::addRow("dense lane, seed %llu", seed) << 0 << seed << int(350 + 211 * seed);
            QTest::addRow("labelled clumps, seed %llu", seed) << 1 << seed << int(420 + 173 * seed);
        }
    }
    void zoomedFramesEqualFreshOnes()
    {
        QFETCH(int, session);
        QFETCH(quint64, seed);
        QFETCH(int, width);
        const std::shared_ptr<const SessionSnapshot> s = sessionFor(session, seed);
        std::mt19937_64 rng(seed * 7877 + quint64(session));
        std::uniform_real_distribution<double> u(0.0, 1.0);
        const double total = double(s->end() - s->begin());
        TimelineCoordinates c = TimelineCoordinates::fit(s->begin(), s->end(), width);
        std::shared_ptr<const TimelineFrame> shown = buildTimelineFrame(gpuRowsRequest(s, c));
        QVERIFY(shown);
        for (int step = 0; step < 50; ++step) {
            if (step % 10 == 9) { // a jump: the previous frame's edges are far from the new ones
                const double span = total * std::pow(10.0, -3.0 * u(rng));
                c = TimelineCoordinates(
                    s->begin() + TimeNs(u(rng) * (total - span)), std::max(span / width, 0.05), width);
            } else {
                // Zoom in while the view is wide, out when it is narrow, around anywhere in it.
                const double factor = c.nsPerPx() * width > total * 1e-4 ? 0.4 + 0.5 * u(rng) : 1.2 + 1.5 * u(rng);
                c = c.zoomedAround(u(rng) * width, factor);
            }
            shown = buildFromPreviousAsFresh(gpuRowsRequest(s, c), shown, QStringLiteral("step %1").arg(step));
            if (QTest::currentTestFailed())
                return;
        }
    }

    // The rows with no text (a font too large for any label): every pixel of the event area
    // as a plain per-pixel raster of the frame's draw lists draws it.
    void rowsEqualABruteForceRaster()
    {
        const auto s = test::denseSession(200'000, 9);
        QFont huge = QApplication::font();
        huge.setPixelSize(400);
        TimelineCoordinates c = TimelineCoordinates::fit(s->begin(), s->end(), 1000);
        int hatched = 0;
        for (int step = 0; step < 10; ++step) {
            FrameRequest req = requestFor(s, c, 27, 0);
            req.style.font = huge;
            const auto f = buildTimelineFrame(req);
            QVERIFY(f);
            QCOMPARE(f->labelCount, qint64(0));
            const QImage& img = f->image(1);
            for (const FrameRowHits& r : f->rows) {
                if (r.row.lane < 0)
                    continue;
                const TimelineLane& lane = s->model->lanes[size_t(r.row.lane)];
                const int top = r.row.y;
                const QRgb bg = r.row.background | 0xff000000u;
                QImage ref(c.width(), r.row.height, QImage::Format_RGB32);
                ref.fill(bg);
                for (int y = 1; y < r.row.height - 1; ++y) {
                    auto* line = reinterpret_cast<QRgb*>(ref.scanLine(y));
                    for (const LodRect& rect : r.rects) {
                        const int x0 = std::max(rect.x0, 0);
                        int x1 = std::min(rect.x1, c.width());
                        if (rect.count == 1 && x1 - x0 >= 4)
                            x1 -= 1;
                        const QRgb color = s->color(lane.name[rect.widest]) | 0xff000000u;
                        for (int x = x0; x < x1; ++x) {
                            const bool hatch = rect.count > 1 && x1 - x0 >= 4 && ((x + top + y) & 7) == 0;
                            line[x] = hatch ? blendOver(color, req.style.hatch) : color;
                            hatched += hatch ? 1 : 0;
                        }
                    }
                }
                auto* grid = reinterpret_cast<QRgb*>(ref.scanLine(r.row.height - 1));
                std::fill(grid, grid + c.width(), blendOver(bg, req.style.grid));
                QVERIFY2(img.copy(QRect(0, top, c.width(), r.row.height)) == ref,
                    qPrintable(QStringLiteral("step %1").arg(step)));
            }
            c = c.zoomedAround(333, 0.45);
        }
        QVERIFY(hatched > 1000);
    }

    // The GUI thread writes a layer into the window a rectangle of the paint event's region at
    // a time (LayerPixels::compose): each rectangle, at any offset in the buffer, is the layer's
    // image there (the same as composing the whole layer), and no pixel outside it changes.
    // Rectangles cut rows, hatched runs, labels and the label column's edge, and stick out of
    // the layer.
    void composedRectanglesEqualTheLayersImage_data()
    {
        QTest::addColumn<double>("nsPerPx");
        QTest::addColumn<int>("labelWidth");
        QTest::addColumn<bool>("dense");
        QTest::newRow("clumps folded into labelled runs") << 60.0 << 160 << false;
        QTest::newRow("clumps, each event on its own") << 2.0 << 160 << false;
        QTest::newRow("clumps, no label column") << 120.0 << 0 << false;
        QTest::newRow("dense lanes, hatched runs") << 0.0 << 90 << true;
    }
    void composedRectanglesEqualTheLayersImage()
    {
        QFETCH(double, nsPerPx);
        QFETCH(int, labelWidth);
        QFETCH(bool, dense);
        const auto s = dense ? std::shared_ptr<const SessionSnapshot>(test::denseSession(200'000, 3))
                             : std::shared_ptr<const SessionSnapshot>(clumpSession());
        const TimelineCoordinates c = dense ? TimelineCoordinates::fit(s->begin(), s->end(), 901)
                                            : TimelineCoordinates(s->begin() + 1'000'000, nsPerPx, 901);
        FrameRequest req = requestFor(s, c, 22, labelWidth);
        const auto f = buildTimelineFrame(req);
        QVERIFY(f);
        // The images a scaled display draws, composed on the worker: the same pixels.
        req.composeImages = true;
        const auto withImages = buildTimelineFrame(req);
        QVERIFY(withImages && withImages->image(1) == f->image(1));
        const LayerPixels& layer = f->layers[1];
        QCOMPARE(layer.size(), QSize(labelWidth + 901, f->layerHeight[1]));
        QVERIFY(dense || layer.blitCount() > 0); // labels are drawn over the rows
        const QImage whole = layer.toImage();
        QCOMPARE(whole, f->image(1));
        constexpr QRgb kUntouched = 0xff00ff00u;
        std::mt19937 rng(11);
        const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        for (int i = 0; i < 150; ++i) {
            const QRect r(uniform(-20, layer.width()), uniform(-8, layer.height()), uniform(1, 400), uniform(1, 60));
            const QPoint origin(uniform(0, 25), uniform(0, 9));
            QImage buffer(layer.width() + 50, layer.height() + 20, QImage::Format_RGB32);
            buffer.fill(kUntouched);
            layer.compose(buffer.bits(), buffer.bytesPerLine(), origin, r);
            const QRect written = r.intersected(QRect(QPoint(0, 0), layer.size()));
            int wrong = 0;
            for (int y = 0; y < buffer.height(); ++y) {
                for (int x = 0; x < buffer.width(); ++x) {
                    const QPoint at(x - origin.x(), y - origin.y());
                    const QRgb want = written.contains(at) ? whole.pixel(at) : kUntouched;
                    wrong += buffer.pixel(x, y) != want ? 1 : 0;
                }
            }
            QVERIFY2(wrong == 0,
                qPrintable(QStringLiteral("rectangle %1,%2 %3x%4 at %5,%6: %7 pixels differ")
                               .arg(r.x())
                               .arg(r.y())
                               .arg(r.width())
                               .arg(r.height())
                               .arg(origin.x())
                               .arg(origin.y())
                               .arg(wrong)));
        }
    }
};

QTEST_MAIN(TestTimelineFrame)
#include "tst_timelineframe.moc"

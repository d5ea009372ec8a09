// SPDX-License-Identifier: MIT
// `record --gpu-metrics` gaps on the timeline (issue 23): a stretch without samples, stored by
// ingest in meta gpu_metrics.gap_list, reaches the counter tracks of its process and device;
// the frame marks it (red bar, hatch, the held value erased) and the tooltip says how long and
// why. Another device's track is left alone.
#include "core/model/gpumetricsgaps.h"
#include "settle.h"
#include "ui/session/selectionmodel.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"
#include "uifixtures.h"

#include <QApplication>
#include <QHelpEvent>
#include <QToolTip>
#include <QtTest>

using namespace ws;

namespace {

constexpr TimeNs t0 = 1'000'000;

std::shared_ptr<SessionSnapshot> sessionWithGap()
{
    auto m = std::make_shared<TimelineModel>();
    m->processes.push_back({100, "gpu_mix", "gpu_mix", 0, 0, 0, 0, 1});
    DeviceInfo d;
    d.id = 0;
    d.pid = 100;
    d.name = "NVIDIA H200";
    m->devices.push_back(d);
    m->lanes.push_back(
        test::makeLane(*m, LaneKind::GpuStream, 100, 0, 0, 7, 0, "stream 7", {{t0 + 5'000, t0 + 95'000, "ws_copy"}}));
    m->begin = t0;
    m->end = t0 + 100'000;
    m->eventCount = 1;
    std::vector<TimeNs> ts;
    std::vector<double> vs;
    for (TimeNs t = t0; t < t0 + 100'000; t += 1'000) {
        if (t >= t0 + 40'000 && t < t0 + 70'000)
            continue; // the gap
        ts.push_back(t);
        vs.push_back(80.0);
    }
    std::vector<CounterSeries> counters;
    for (uint32_t device : {0u, 1u}) {
        CounterSeries c(ts, vs);
        c.trackId = device + 1;
        c.pid = 100;
        c.deviceId = device;
        c.name = "DRAM throughput";
        c.unit = "%";
        counters.push_back(std::move(c));
    }
    std::map<std::string, std::string> meta;
    meta[gpumetricskey::kGapList] = encodeGpuMetricsGaps({{100, 0, t0 + 41'000, t0 + 70'000, 1}});
    return SessionSnapshot::build(m, std::move(counters), std::move(meta));
}

} // namespace

class TestCounterGaps : public QObject {
    Q_OBJECT

private slots:
    void gapReachesItsTrack()
    {
        const auto s = sessionWithGap();
        QCOMPARE(s->counters.size(), size_t(2));
        QCOMPARE(s->counters[0].gaps.size(), size_t(1));
        QCOMPARE(s->counters[0].gaps[0].start, t0 + 41'000);
        QCOMPARE(s->counters[0].gaps[0].end, t0 + 70'000);
        QVERIFY(s->counters[0].gapAt(t0 + 50'000));
        QVERIFY(!s->counters[0].gapAt(t0 + 70'000));
        QVERIFY(s->counters[1].gaps.empty()); // device 1 had none
    }

    void markedAndExplained()
    {
        SelectionModel selection;
        TimelineRowModel rows;
        TimelineView view(&selection, &rows);
        const auto s = sessionWithGap();
        rows.setSnapshot(s);
        view.resize(1040, 400);
        view.setSnapshot(s);
        selection.reset({s->begin(), s->end()});
        view.show();
        QVERIFY(QTest::qWaitFor([&view] { return view.isFrameCurrent(); }, 10000));
        const auto xOf
            = [&view](TimeNs t) { return view.eventArea().left() + int(std::floor(view.coordinates().timeToX(t))); };
        // The two counter rows, found by scanning down at a sampled time.
        std::vector<TimelineView::Hit> counterRows;
        for (int y = view.eventArea().top(); y < view.height(); ++y) {
            const auto hit = view.hitTest({xOf(t0 + 20'000), y});
            if (hit.isCounter() && (counterRows.empty() || counterRows.back().rect.top() != hit.rect.top()))
                counterRows.push_back(hit);
        }
        QCOMPARE(counterRows.size(), size_t(2));
        const QImage img = view.grab().toImage();
        const int inGap = xOf(t0 + 55'000), outside = xOf(t0 + 20'000);
        for (const auto& row : counterRows) {
            const bool gapped = s->counters[size_t(row.counter)].deviceId == 0;
            const int top = row.rect.top();
            const QRgb bar = img.pixel(inGap, top + 1) & 0xffffffu;
            QCOMPARE(bar == 0xd04040u, gapped);
            QVERIFY((img.pixel(outside, top + 1) & 0xffffffu) != 0xd04040u);
            // The held value is erased in the gap: the middle of the row is not the series' ink
            // it has outside.
            const int mid = top + row.rect.height() * 3 / 4;
            QCOMPARE(img.pixel(inGap, mid) != img.pixel(outside, mid), gapped);
        }
        // The tooltip over the gap says how long and why.
        const auto& gapRow
            = s->counters[size_t(counterRows[0].counter)].deviceId == 0 ? counterRows[0] : counterRows[1];
        const QPoint at(inGap, gapRow.rect.center().y());
        QTest::mouseMove(&view, at);
        QHelpEvent help(QEvent::ToolTip, at, view.mapToGlobal(at));
        QApplication::sendEvent(&view, &help);
        QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 5000);
        const QString tip = QToolTip::text();
        QVERIFY2(tip.contains(QStringLiteral("no samples")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("29")), qPrintable(tip)); // 29 us
        QVERIFY2(tip.contains(QStringLiteral("samples missing from the hardware buffer")), qPrintable(tip));
    }
};

QTEST_MAIN(TestCounterGaps)
#include "tst_counter_gaps.moc"

// SPDX-License-Identifier: MIT
// Warp-role rows of in-kernel traces on the timeline: lanes built from warp events (one per
// warp and nesting depth, asynchronous rows, marks), the kernel group's block chooser switching
// the rows to another block, under QAbstractItemModelTester.
#include "core/iket/warplaneprovider.h"
#include "core/store/sessionreader.h"
#include "ui/timeline/timelinerowmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace ws;

namespace {

// Kernel 5: 2 blocks x (warp 0 producer, warp 1 consumer). Block 1's producer has a nested
// range and two overlapping asynchronous ranges; the consumers mark a release.
SessionData warpSession()
{
    SessionData s;
    s.processes.push_back({100, "prog", "prog", 0, 0, 0, 0, 1});
    KernelRecord k;
    k.id = 5;
    k.pid = 100;
    k.streamId = 7;
    k.start = 1000;
    k.end = 9000;
    k.shortName = s.strings.intern("pipelined");
    s.kernels.push_back(k);
    const StringId producer = s.strings.intern("producer");
    const StringId consumer = s.strings.intern("consumer");
    int64_t id = 1;
    const auto add = [&](int32_t block, int32_t warp, StringId role, const char* name, WarpEventKind kind, TimeNs b,
                         TimeNs e, int32_t depth = 0) {
        WarpEvent w;
        w.id = id++;
        w.kernelId = 5;
        w.block = block;
        w.warp = warp;
        w.role = role;
        w.name = s.strings.intern(name);
        w.kind = kind;
        w.begin = b;
        w.end = e;
        w.depth = depth;
        s.warpEvents.push_back(w);
    };
    for (int32_t b = 0; b < 2; ++b) {
        const TimeNs t = 1000 + 4000 * b;
        add(b, 0, producer, "load", WarpEventKind::Range, t, t + 1000);
        add(b, 1, consumer, "wait_full", WarpEventKind::Range, t, t + 1200);
        add(b, 1, consumer, "compute", WarpEventKind::Range, t + 1200, t + 3000);
        add(b, 1, consumer, "release", WarpEventKind::Mark, t + 3000, t + 3000);
    }
    add(1, 0, producer, "issue", WarpEventKind::Range, 5100, 5200, 1);
    add(1, 0, producer, "stage_busy", WarpEventKind::AsyncRange, 5200, 7000, 0);
    add(1, 0, producer, "stage_busy", WarpEventKind::AsyncRange, 5300, 7500, 1);
    return s;
}

QStringList labels(const std::vector<TimelineRowModel::Row>& rows)
{
    QStringList out;
    for (const auto& r : rows)
        out << QString(r.depth * 2, QLatin1Char(' ')) + r.label;
    return out;
}

QModelIndex warpGroup(const TimelineRowModel& m)
{
    for (int r = 0; r < m.rowCount(); ++r) {
        const QModelIndex i = m.index(r, 0);
        if (!m.warpBlocks(i).isEmpty())
            return i;
    }
    return {};
}

} // namespace

class TestWarpRows : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void lanes()
    {
        const SessionData s = warpSession();
        const auto model = TimelineModel::fromSessionData(s, iket::laneProviders());
        std::vector<const TimelineLane*> warp;
        for (const auto& l : model->lanes)
            if (l.kind == LaneKind::WarpRole)
                warp.push_back(&l);
        QStringList got;
        for (const auto* l : warp)
            got << QStringLiteral("%1/%2 %3 (%4)")
                       .arg(l->block)
                       .arg(l->warp)
                       .arg(QString::fromStdString(l->label))
                       .arg(l->size());
        const QStringList expected {
            "0/0 producer · warp 0 (1)",
            "0/1 consumer · warp 1 (2)",
            "0/1 consumer · warp 1 · marks (1)",
            "1/0 producer · warp 0 (1)",
            "1/0 producer · warp 0 · depth 1 (1)",
            "1/0 producer · warp 0 · async (1)",
            "1/0 producer · warp 0 · async 2 (1)",
            "1/1 consumer · warp 1 (2)",
            "1/1 consumer · warp 1 · marks (1)",
        };
        QCOMPARE(got, expected);
        // Events refer to their warp_event rows; lanes are sorted and non-overlapping.
        for (const auto* l : warp) {
            QCOMPARE(l->kernelId, int64_t(5));
            for (size_t i = 0; i < l->size(); ++i) {
                QCOMPARE(l->ref[i].table(), EventTable::WarpEvent);
                const WarpEvent& e = s.warpEvents[static_cast<size_t>(l->ref[i].rowid() - 1)];
                QCOMPARE(e.begin, l->start[i]);
                QCOMPARE(e.block, l->block);
                if (i > 0)
                    QVERIFY(l->start[i] >= l->endAt(i - 1));
            }
        }
        QCOMPARE(model->eventCount, int64_t(1 + s.warpEvents.size()));
    }

    void onlyFirstLaunchExpanded()
    {
        SessionData s = warpSession();
        KernelRecord k2 = s.kernels.front();
        k2.id = 6;
        k2.start = 10000;
        k2.end = 20000;
        s.kernels.push_back(k2);
        const size_t n = s.warpEvents.size();
        for (size_t i = 0; i < n; ++i) {
            WarpEvent e = s.warpEvents[i];
            e.id = static_cast<int64_t>(s.warpEvents.size()) + 1;
            e.kernelId = 6;
            e.begin += 10000;
            e.end += 10000;
            s.warpEvents.push_back(e);
        }
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(SessionSnapshot::build(TimelineModel::fromSessionData(s, iket::laneProviders()), {}, {}));
        QStringList groups;
        for (const auto& r : m.rows())
            if (r.label.startsWith(QLatin1String("kernel #")))
                groups << QStringLiteral("%1 %2").arg(
                    r.label, r.expanded ? QStringLiteral("open") : QStringLiteral("closed"));
        QCOMPARE(groups,
            (QStringList {"kernel #5 warp roles · block 0 of 2 open", "kernel #6 warp roles · block 0 of 2 closed"}));
    }

    // A launch's losses are in its group header, collapsed or not: the H200 recording of the
    // loss cases (tests/fixtures/iket/streams_losses.wscope, through its meta as the app reads it).
    void lossesInTheGroupHeader()
    {
        SessionReader reader(WS_FIXTURES_DIR "/iket/streams_losses.wscope");
        const auto meta = reader.meta();
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(
            SessionSnapshot::build(TimelineModel::load(reader, {}, {}, true, iket::laneProviders()), {}, meta));
        QStringList groups;
        for (const auto& r : m.rows())
            if (r.label.startsWith(QLatin1String("kernel #")))
                groups << r.label;
        QCOMPARE(groups,
            (QStringList {"kernel #1 warp roles · block 0 of 44",
                "kernel #2 warp roles · block 0 of 44 · 2,904 events lost",
                "kernel #3 warp roles · block 0 of 22 · 132 warps not recorded"}));
        // In full in the header's note (shown when the group is open) and its tooltip.
        for (int r = 0; r < m.rowCount(); ++r) {
            const QModelIndex i = m.index(r, 0);
            const QString label = i.data().toString();
            if (!label.startsWith(QLatin1String("kernel #2")))
                continue;
            QVERIFY2(i.data(Qt::ToolTipRole)
                         .toString()
                         .contains(QLatin1String("events\n2,904 events lost by 264 warps that ran out of slots")),
                qPrintable(i.data(Qt::ToolTipRole).toString()));
        }
    }

    void blockChooser()
    {
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(
            SessionSnapshot::build(TimelineModel::fromSessionData(warpSession(), iket::laneProviders()), {}, {}));
        const QModelIndex group = warpGroup(m);
        QVERIFY(group.isValid());
        QCOMPARE(m.warpBlocks(group), (QList<int> {0, 1}));
        QCOMPARE(m.warpBlock(group), 0);
        // The per-role summary of the whole launch: waiting shares in the label, phases in the tooltip.
        QCOMPARE(group.data().toString(), QStringLiteral("kernel #5 warp roles · block 0 of 2"));
        // The header's time area carries the per-role summary of the whole launch.
        const auto shown = m.rows();
        const auto header = std::find_if(shown.begin(), shown.end(),
            [](const TimelineRowModel::Row& r) { return r.label.startsWith(QLatin1String("kernel #5")); });
        QVERIFY(header != shown.end());
        QCOMPARE(header->note, QStringLiteral("consumer: 40% of the time waiting · producer: 0% of the time waiting"));
        const QString tip = group.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("consumer (2 warps, 40.0% of their time waiting)")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("wait_full ×2: mean ")), qPrintable(tip));
        QCOMPARE(m.rowCount(group), 3);
        QVERIFY(m.warpBlocks(m.index(0, 0)).isEmpty() || m.index(0, 0) == group);

        QSignalSpy layout(&m, &TimelineRowModel::rowsLayoutChanged);
        QVERIFY(m.setWarpBlock(group, 1));
        QCOMPARE(layout.count(), 1);
        QCOMPARE(m.warpBlock(group), 1);
        QCOMPARE(m.rowCount(group), 6);
        QCOMPARE(group.data().toString(), QStringLiteral("kernel #5 warp roles · block 1 of 2"));
        QStringList rows = labels(m.rows());
        QVERIFY2(
            rows.contains(QStringLiteral("  producer · warp 0 · async 2")), qPrintable(rows.join(QLatin1Char('|'))));
        QVERIFY(!rows.contains(QStringLiteral("  producer · warp 0 · depth 2")));
        // Every lane shown belongs to block 1.
        const auto snapshot = m.snapshot();
        for (const auto& r : m.rows())
            if (r.kind == TimelineRowModel::Kind::Lane
                && snapshot->model->lanes[static_cast<size_t>(r.lane)].kind == LaneKind::WarpRole)
                QCOMPARE(snapshot->model->lanes[static_cast<size_t>(r.lane)].block, 1);

        QVERIFY(!m.setWarpBlock(group, 7)); // no such block
        QVERIFY(!m.setWarpBlock(m.index(0, 0) == group ? QModelIndex() : m.index(0, 0), 0));
        QVERIFY(m.setWarpBlock(group, 1)); // already shown: nothing changes
        QCOMPARE(layout.count(), 1);
        QVERIFY(m.setWarpBlock(group, 0));
        QCOMPARE(m.rowCount(group), 3);
    }
    void rowsFollowTheModelsLaneOrder()
    {
        // One process: the row tree lists lanes in TimelineModel's order (the one lane order of
        // core/timeline/trackkind.h): API, NVTX, the stream, then the warp roles.
        SessionData s = warpSession();
        ApiCallRecord api;
        api.pid = 100;
        api.tid = 100;
        api.start = 500;
        api.end = 900;
        api.name = s.strings.intern("cudaLaunchKernel");
        s.apiCalls.push_back(api);
        NvtxRangeRecord range;
        range.pid = 100;
        range.tid = 100;
        range.start = 400;
        range.end = 9500;
        range.name = s.strings.intern("step");
        s.nvtxRanges.push_back(range);
        TimelineRowModel m;
        m.setSnapshot(SessionSnapshot::build(TimelineModel::fromSessionData(s, iket::laneProviders()), {}, {}));
        const auto& lanes = m.snapshot()->model->lanes;
        std::vector<int> shown;
        for (const auto& r : m.rows())
            if (r.kind == TimelineRowModel::Kind::Lane)
                shown.push_back(r.lane);
        // Block 0's warps are shown (3 lanes); block 1's wait behind the block chooser.
        QCOMPARE(shown, (std::vector<int> {0, 1, 2, 3, 4, 5}));
        QCOMPARE(lanes[0].kind, LaneKind::CudaApi);
        QCOMPARE(lanes[1].kind, LaneKind::Nvtx);
        QCOMPARE(lanes[2].kind, LaneKind::GpuStream);
        QCOMPARE(lanes[3].kind, LaneKind::WarpRole);
    }
};

QTEST_MAIN(TestWarpRows)
#include "tst_warprows.moc"

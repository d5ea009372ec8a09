// SPDX-License-Identifier: MIT
// Multi-GPU sessions in the viewer: sessions of several ranks and GPUs written to a real file
// and opened the way SessionDocument opens them (reader, TimelineModel::load, snapshot with the
// file's meta). Process rows carry the rank, GPU rows stay "GPU n <name>", communication
// (NCCL kernels, peer copies) gets its own colour family and the legend says so.
#include "../core/commsession.h"
#include "core/analysis/commkernels.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "ui/session/selectionmodel.h"
#include "ui/session/sessionsnapshot.h"
#include "ui/style/colorscheme.h"
#include "ui/timeline/legendmodel.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace ws;

namespace {

std::shared_ptr<const SessionSnapshot> open(const SessionData& s, const QTemporaryDir& dir, const QString& name)
{
    const std::string path = dir.filePath(name).toStdString();
    {
        SessionWriter w(path);
        attachLaneCache(w);
        w.write(s);
        w.commit();
    }
    SessionReader reader(path);
    return SessionSnapshot::build(TimelineModel::load(reader), loadCounterSeries(reader), reader.meta());
}

QStringList topLevel(const TimelineRowModel& m)
{
    QStringList out;
    for (const auto& r : m.rows()) {
        if (r.depth == 0)
            out << r.label;
    }
    return out;
}

// The session of a 2-rank DDP step, plus a helper process that has no rank (a data loader).
SessionData ddpSession(bool ranks)
{
    test::CommSessionOptions o;
    o.seed = 3;
    o.processes = 2;
    o.devices = 2;
    o.ranks = ranks;
    SessionData s = test::makeCommSession(o);
    s.processes.push_back({5000, "pt_data_worker", "python3 -c loader", 0, 0, 0, 0, test::kFirstPid});
    s.devices[0].name = "NVIDIA H200";
    s.devices[1].name = "NVIDIA H200";
    return s;
}

int hue(QRgb c)
{
    return QColor::fromRgb(c).hsvHue();
}

// Hues read back from 8-bit RGB may be a degree or two off the one the colour was made from.
constexpr int kHueSlack = 3;

bool inCommBand(int h)
{
    return h >= ColorScheme::kCommHueMin - kHueSlack && h <= ColorScheme::kCommHueMax + kHueSlack;
}

// Compute is kept 20 degrees away from the band.
bool nearCommBand(int h)
{
    return h >= ColorScheme::kCommHueMin - 20 + kHueSlack && h < ColorScheme::kCommHueMax + 20 - kHueSlack;
}

} // namespace

class TestMultiGpuTimeline : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Shows `view` of the session and checks every event wide enough to hold pixels of its
    // own: it shows its name's colour, and communication's colour is in the communication
    // band. With WS_SCREENSHOT_DIR set, the image is saved there as <name>.png.
    void checkPaint(const std::shared_ptr<const SessionSnapshot>& snapshot, TimeRange range, QSize size,
        const QString& name, int minEach)
    {
        SelectionModel selection;
        TimelineRowModel rows;
        TimelineView view(&selection, &rows);
        rows.setSnapshot(snapshot);
        view.resize(size);
        view.setSnapshot(snapshot);
        selection.reset({snapshot->begin(), snapshot->end()});
        selection.setViewRange(range);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY_WITH_TIMEOUT(view.isFrameCurrent(), 10000);
        const QImage img = view.grab().toImage();

        const TimelineModel& m = *snapshot->model;
        const QRect area = view.eventArea();
        const auto coords = view.coordinates();
        int comm = 0;
        int compute = 0;
        for (size_t li = 0; li < m.lanes.size(); ++li) {
            const TimelineLane& lane = m.lanes[li];
            const QRect r = view.laneRect(static_cast<int>(li));
            if (lane.kind != LaneKind::GpuStream || r.height() < 8 || !area.intersects(r))
                continue;
            for (size_t k = 0; k < lane.size(); ++k) {
                const double a = std::max(coords.timeToX(lane.start[k]), 0.0);
                const double b = std::min(coords.timeToX(lane.endAt(k)), static_cast<double>(area.width() - 1));
                const int x0 = area.left() + static_cast<int>(std::ceil(a)) + 2;
                const int x1 = area.left() + static_cast<int>(std::floor(b)) - 2;
                if (x1 - x0 < 8)
                    continue;
                const QRgb want = snapshot->color(lane.name[k]) & 0xffffff;
                int same = 0;
                int all = 0;
                for (const int y : {r.top() + 2, r.bottom() - 2}) {
                    for (int x = x0; x <= x1; ++x, ++all)
                        same += (img.pixel(x, y) & 0xffffff) == want ? 1 : 0;
                }
                QVERIFY2(same * 2 >= all, qPrintable(snapshot->qstr(lane.name[k])));
                if (isCommunicationName(snapshot->str(lane.name[k]))) {
                    QVERIFY(inCommBand(hue(want)));
                    ++comm;
                } else {
                    ++compute;
                }
            }
        }
        QVERIFY2(comm >= minEach && compute >= minEach,
            qPrintable(QStringLiteral("%1 comm, %2 compute").arg(comm).arg(compute)));
        if (const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(img.save(dir + QLatin1Char('/') + name + QStringLiteral(".png")));
    }

private slots:
    void rankLabels_data()
    {
        QTest::addColumn<bool>("ranks");
        QTest::addColumn<QStringList>("expected");
        const QString dot = QString::fromUtf8("\u00b7");
        QTest::newRow("torchrun ranks") << true
                                        << QStringList {QStringLiteral("rank 0 %1 pid 4242 (python3)").arg(dot),
                                               QStringLiteral("rank 1 %1 pid 4243 (python3)").arg(dot),
                                               QStringLiteral("Process 5000 (pt_data_worker)"),
                                               QStringLiteral("GPU 0  NVIDIA H200"),
                                               QStringLiteral("GPU 1  NVIDIA H200")};
        QTest::newRow("no ranks recorded")
            << false
            << QStringList {QStringLiteral("Process 4242 (python3)"), QStringLiteral("Process 4243 (python3)"),
                   QStringLiteral("Process 5000 (pt_data_worker)"), QStringLiteral("GPU 0  NVIDIA H200"),
                   QStringLiteral("GPU 1  NVIDIA H200")};
    }

    void rankLabels()
    {
        QFETCH(bool, ranks);
        QFETCH(QStringList, expected);
        const auto snapshot
            = open(ddpSession(ranks), m_dir, ranks ? QStringLiteral("r.wscope") : QStringLiteral("n.wscope"));
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(snapshot);
        QCOMPARE(topLevel(m), expected);
        // Each rank's GPU holds that rank's streams only: one process per device, no pid suffix.
        int streams = 0;
        for (const auto& r : m.rows()) {
            if (r.kind == TimelineRowModel::Kind::Lane && r.gpu) {
                QVERIFY2(r.label.startsWith(QLatin1String("stream ")), qPrintable(r.label));
                QVERIFY(!r.label.contains(QLatin1String("pid")));
                ++streams;
            }
        }
        QCOMPARE(streams, 2 * 3);
        // The model's own index agrees with rows().
        QCOMPARE(m.index(0, 0).data().toString(), expected[0]);
    }

    void sharedDeviceShowsPidsPerStream()
    {
        test::CommSessionOptions o;
        o.seed = 5;
        o.processes = 2;
        o.devices = 1;
        const auto snapshot = open(test::makeCommSession(o), m_dir, QStringLiteral("shared.wscope"));
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(snapshot);
        QStringList gpuLanes;
        for (const auto& r : m.rows()) {
            if (r.kind == TimelineRowModel::Kind::Lane && r.gpu)
                gpuLanes << r.label;
        }
        QCOMPARE(gpuLanes.size(), 6);
        QCOMPARE(gpuLanes.filter(QStringLiteral("(pid 4242)")).size(), 3);
        QCOMPARE(gpuLanes.filter(QStringLiteral("(pid 4243)")).size(), 3);
    }

    void communicationColourFamily()
    {
        const auto snapshot = open(ddpSession(true), m_dir, QStringLiteral("colours.wscope"));
        const auto& strings = snapshot->model->strings.all();
        std::set<QRgb> commColours;
        int comm = 0;
        int compute = 0;
        for (size_t i = 1; i < strings.size(); ++i) {
            const QRgb c = snapshot->color(static_cast<StringId>(i));
            if (isCommunicationName(strings[i])) {
                QVERIFY2(inCommBand(hue(c)), strings[i].c_str());
                commColours.insert(c);
                ++comm;
            } else {
                QVERIFY2(!nearCommBand(hue(c)), strings[i].c_str());
                ++compute;
            }
        }
        QVERIFY(comm >= 5); // four NCCL spellings and the peer-copy label
        QVERIFY(compute >= 4);
        QVERIFY(commColours.size() > 1); // a family: names stay distinguishable within it

        // Any name: compute never lands near the band, communication always inside it.
        for (int i = 0; i < 3000; ++i) {
            const std::string k = "kernel_" + std::to_string(i);
            QVERIFY2(!nearCommBand(hue(ColorScheme::forName(k))), k.c_str());
            const std::string n = "ncclDevKernel_AllReduce_Sum_f32_RING_LL_" + std::to_string(i);
            QVERIFY2(inCommBand(hue(ColorScheme::forName(n))), n.c_str());
        }
        QVERIFY(inCommBand(hue(ColorScheme::forName("[CUDA memcpy Peer-to-Peer]"))));
        QVERIFY(inCommBand(hue(ColorScheme::forName("nccl:all_reduce"))));
        QVERIFY(!nearCommBand(hue(ColorScheme::forName("[CUDA memcpy Device-to-Device]"))));
        // Stable: the same name, the same colour.
        QCOMPARE(ColorScheme::forName("ncclDevKernel_SendRecv"),
            ColorScheme::forName(std::string("ncclDevKernel_") + "SendRecv"));
    }

    void timelinePaintsCommunicationInItsFamily()
    {
        // A longer step: 2 ranks on 2 GPUs, 2 streams each, events of 1-200 us over 2 ms.
        test::CommSessionOptions o;
        o.seed = 9;
        o.streamsPerDevice = 2;
        o.kernelsPerStream = 24;
        o.horizon = 2'000'000;
        const auto snapshot = open(test::makeCommSession(o), m_dir, QStringLiteral("paint.wscope"));
        // docs/screenshots/multigpu-synthetic-ddp.png is made this way (see docs/multi-gpu.md).
        checkPaint(
            snapshot, {snapshot->begin(), snapshot->end()}, {1400, 420}, QStringLiteral("multigpu-synthetic-ddp"), 3);
    }

    void realTwoGpuRecording()
    {
        // tests/fixtures/multigpu/ddp-2gpu.wscope: torchrun, 2 DDP ranks on 2 H200.
        const std::string path = WS_FIXTURES_DIR "/multigpu/ddp-2gpu.wscope";
        SessionReader reader(path);
        const auto snapshot
            = SessionSnapshot::build(TimelineModel::load(reader), loadCounterSeries(reader), reader.meta());
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(snapshot);
        const QString dot = QString::fromUtf8("\u00b7");
        QCOMPARE(topLevel(m),
            (QStringList {QStringLiteral("Process 1050 (python3.12)"),
                QStringLiteral("rank 0 %1 pid 1067 (python3.12)").arg(dot),
                QStringLiteral("rank 1 %1 pid 1068 (python3.12)").arg(dot), QStringLiteral("GPU 0  NVIDIA H200"),
                QStringLiteral("GPU 1  NVIDIA H200")}));
        // NCCL runs on a stream of its own on each GPU: every kernel there is communication
        // (NCCL also puts two 8-byte device-to-device copies there, local ones: not coloured so).
        for (const auto& lane : snapshot->model->lanes) {
            if (lane.kind != LaneKind::GpuStream || lane.streamId != 17)
                continue;
            int kernels = 0;
            for (size_t k = 0; k < lane.size(); ++k) {
                const bool kernel = lane.ref[k].table() == EventTable::Kernel;
                kernels += kernel ? 1 : 0;
                QVERIFY2(inCommBand(hue(snapshot->color(lane.name[k]))) == kernel, snapshot->str(lane.name[k]).c_str());
            }
            QCOMPARE(kernels, 103);
        }

        // One timed step of rank 0 on both GPUs: the GPU span of the kernels launched inside
        // its "step 5" range, with a margin.
        const SessionData s = reader.readAll();
        const auto step = std::find_if(s.nvtxRanges.begin(), s.nvtxRanges.end(),
            [&](const NvtxRangeRecord& r) { return r.pid == 1067 && s.str(r.name) == "step 5"; });
        QVERIFY(step != s.nvtxRanges.end());
        std::map<uint32_t, TimeNs> launch;
        for (const auto& a : s.apiCalls) {
            if (a.pid == 1067)
                launch[a.correlationId] = a.start;
        }
        TimeNs b = std::numeric_limits<TimeNs>::max();
        TimeNs e = 0;
        for (const auto& k : s.kernels) {
            const auto l = launch.find(k.correlationId);
            if (k.pid == 1067 && l != launch.end() && l->second >= step->start && l->second <= step->end) {
                b = std::min(b, k.start);
                e = std::max(e, k.end);
            }
        }
        QVERIFY(e > b);
        const TimeNs margin = (e - b) / 20;
        checkPaint(snapshot, {b - margin, e + margin}, {1600, 760}, QStringLiteral("multigpu-ddp-2gpu-step"), 4);
    }

    void legendNamesTheFamily()
    {
        const auto snapshot = open(ddpSession(true), m_dir, QStringLiteral("legend.wscope"));
        LegendModel legend;
        QAbstractItemModelTester tester(&legend, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy updated(&legend, &LegendModel::updated);
        legend.setSnapshot(snapshot);
        QVERIFY(updated.wait(10000));
        QVERIFY(legend.rowCount() > 0);
        int comm = 0;
        for (int r = 0; r < legend.rowCount(); ++r) {
            const QModelIndex i = legend.index(r, LegendModel::NameColumn);
            const auto id = i.data(LegendModel::NameIdRole).toUInt();
            const std::string& name = snapshot->str(id);
            const QString shown = i.data().toString();
            QVERIFY(shown.startsWith(QString::fromStdString(name)));
            if (isCommunicationName(name)) {
                ++comm;
                QVERIFY2(shown.endsWith(QLatin1String("[communication (NCCL)]")), qPrintable(shown));
                QVERIFY(i.data(Qt::ToolTipRole).toString().contains(QLatin1String("communication (NCCL)")));
            } else {
                QCOMPARE(shown, QString::fromStdString(name));
            }
            QCOMPARE(i.data(Qt::DecorationRole).value<QColor>().rgb(), QColor::fromRgb(snapshot->color(id)).rgb());
        }
        QVERIFY(comm > 0);
    }
};

QTEST_MAIN(TestMultiGpuTimeline)
#include "tst_multigpu_timeline.moc"

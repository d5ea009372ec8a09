// SPDX-License-Identifier: MIT
// Opening sessions from real SQLite files (written by the synthetic generator) through a
// SessionDocument: the worker delivers the same lanes TimelineModel::load gives, errors name the
// file, Cancel is honoured, the details worker reads rows by rowid and finds the launching API
// call, and the embedded demo session yields snapshot, panel data, bench tables and details,
// with a re-open discarding what the previous open still had running.
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/lodfold.h"
#include "loadgate.h"
#include "settle.h"
#include "ui/session/backgroundjob.h"
#include "ui/session/eventdetails.h"
#include "ui/session/sessiondocument.h"

#include <sqlite3.h>
#include <zlib.h>

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <atomic>

using namespace ws;

namespace {

QString writeSynth(const QTemporaryDir& dir, const QString& name, int64_t events, uint64_t seed)
{
    const QString path = dir.filePath(name);
    SynthOptions o;
    o.events = events;
    o.seed = seed;
    SessionWriter w(path.toStdString());
    attachLaneCache(w);
    writeSyntheticSession(o, w);
    w.commit();
    return path;
}

} // namespace

class TestSessionLoader : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_small;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_small = writeSynth(m_dir, QStringLiteral("small.wscope"), 20000, 7);
    }

    void loadsTheSameLanesAsTheModel()
    {
        SessionDocument loader;
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        QSignalSpy progress(&loader, &SessionDocument::progress);
        loader.open(m_small);
        QVERIFY(loader.isLoading());
        QVERIFY(loaded.wait(30000));
        QVERIFY(!loader.isLoading());
        const auto s = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        QVERIFY(s);
        QVERIFY(s->hasFile);
        QCOMPARE(s->path, m_small);

        const SessionReader reader(m_small.toStdString());
        const auto direct = TimelineModel::load(reader);
        QCOMPARE(s->model->lanes.size(), direct->lanes.size());
        QCOMPARE(s->eventCount(), direct->eventCount);
        for (size_t i = 0; i < direct->lanes.size(); ++i) {
            QCOMPARE(s->model->lanes[i].start, direct->lanes[i].start);
            QVERIFY(s->model->lanes[i].durations == direct->lanes[i].durations);
            QCOMPARE(s->model->lanes[i].name, direct->lanes[i].name);
            // Long lanes carry their LOD index, short ones scan.
            QCOMPARE(s->indexFor(i) != nullptr, direct->lanes[i].size() >= kLodIndexMinEvents);
        }
        QCOMPARE(s->nameColor.size(), direct->strings.size());
        QVERIFY(s->begin() < s->end());
        QVERIFY(s->hasGpuActivity());
        QVERIFY(s->deviceSummary().contains(QStringLiteral("GPU 0")));
        // The columns: 8-byte starts, 4-byte durations (laneends.h), names and refs.
        QVERIFY(s->residentBytes() > size_t(s->eventCount()) * 20);
    }

    void errorsNameTheFile_data()
    {
        QTest::addColumn<QByteArray>("content"); // empty: no file at all
        QTest::newRow("missing") << QByteArray();
        QTest::newRow("text file") << QByteArray("just some text, not a database\n").repeated(200);
        QTest::newRow("truncated session") << QByteArray("SQLite format 3") + QByteArray(100, '\0');
    }
    void errorsNameTheFile()
    {
        QFETCH(QByteArray, content);
        const QString path = m_dir.filePath(
            QStringLiteral("bad-%1.wscope").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
        if (!content.isEmpty()) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        }
        SessionDocument loader;
        QSignalSpy failed(&loader, &SessionDocument::failed);
        loader.open(path);
        QVERIFY(failed.wait(30000));
        QCOMPARE(failed.at(0).at(0).toString(), path);
        const QString reason = failed.at(0).at(1).toString();
        QVERIFY(!reason.isEmpty());
        QVERIFY(!failed.at(0).at(2).toBool());
        qInfo("%s: %s", qPrintable(QTest::currentDataTag()), qPrintable(reason));
        // Never modified: a file being opened keeps its bytes.
        if (!content.isEmpty()) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(f.readAll(), content);
        }
    }

    // Traces of other tools open through the same loader: imported into a cached session on the
    // worker, shown under their own name, the source left byte-identical.
    void opensTracesOfOtherTools_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<bool>("gzip");
        QTest::newRow("kineto json") << "kineto_mm_relu.json" << false;
        QTest::newRow("kineto json.gz") << "kineto_mm_relu.json" << true;
        QTest::newRow("nsys sqlite") << "nsys-3.16-small.sql" << false;
        QTest::newRow("ncu csv") << "ncu_raw.csv" << false;
        QTest::newRow("proton hatchet") << "proton_mm_relu.hatchet" << false;
    }
    void opensTracesOfOtherTools()
    {
        QFETCH(QString, fixture);
        QFETCH(bool, gzip);
        QStandardPaths::setTestModeEnabled(true);
        QFile in(QStringLiteral(WS_FIXTURES_DIR "/import/") + fixture);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray text = in.readAll();
        QString path = m_dir.filePath(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'));
        if (fixture.endsWith(QLatin1String(".sql"))) {
            // nsys cannot run on our GPU machine: the fixture is the documented schema as SQL.
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
            QCOMPARE(sqlite3_exec(db, text.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        } else if (gzip) {
            gzFile gz = gzopen(path.toUtf8().constData(), "wb");
            QVERIFY(gz);
            QCOMPARE(gzwrite(gz, text.constData(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
            QCOMPARE(gzclose(gz), Z_OK);
        } else {
            QVERIFY(QFile::copy(in.fileName(), path));
        }
        QFile source(path);
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray before = source.readAll();
        source.close();

        SessionDocument loader;
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        QSignalSpy failed(&loader, &SessionDocument::failed);
        QSignalSpy progress(&loader, &SessionDocument::progress);
        loader.open(path);
        QVERIFY(loaded.wait(30000) || !failed.isEmpty());
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(1).toString()));
        const auto s = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        QVERIFY(s && s->hasFile);
        QCOMPARE(s->displayName, path);
        QVERIFY(s->path != path);
        QVERIFY(s->path.endsWith(QLatin1String(".wscope")));
        // Every fixture holds kernels (ncu and Proton ones as profiled launches / ranking rows).
        QVERIFY(s->hasGpuActivity());
        QVERIFY(s->eventCount() > 0);
        bool importing = false;
        for (const auto& p : progress)
            importing |= p.at(1).toString().startsWith(QLatin1String("importing"));
        QVERIFY(importing);
        QVERIFY(source.open(QIODevice::ReadOnly));
        QCOMPARE(source.readAll(), before);
    }

    void brokenTraceNamesTheFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("broken.pt.trace.json"));
        const QByteArray content = R"({"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": )";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        SessionDocument loader;
        QSignalSpy failed(&loader, &SessionDocument::failed);
        loader.open(path);
        QVERIFY(failed.wait(30000));
        QCOMPARE(failed.at(0).at(0).toString(), path);
        // The reason says what is wrong (the window's dialog puts it under the path).
        const QString reason = failed.at(0).at(1).toString();
        QVERIFY2(!reason.isEmpty() && !reason.contains(QLatin1String("not a SQLite")), qPrintable(reason));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), content);
    }

    void cancelIsHonoured()
    {
        const QString big = writeSynth(m_dir, QStringLiteral("big.wscope"), 600000, 3);
        SessionDocument loader;
        QSignalSpy failed(&loader, &SessionDocument::failed);
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        // The load waits at the gate until Cancel arrives: Cancel always meets a running load.
        const ws::test::LoadGate gate;
        loader.open(big);
        QTRY_VERIFY_WITH_TIMEOUT(gate.reached(), 30000);
        QVERIFY(loader.isLoading());
        QElapsedTimer t;
        t.start();
        loader.cancel();
        QVERIFY(failed.wait(30000));
        QCOMPARE(loaded.count(), 0);
        QVERIFY(failed.at(0).at(2).toBool());
        qInfo("cancel honoured after %lld ms", t.elapsed());
    }

    void newerOpenReplacesARunningOne()
    {
        SessionDocument loader;
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        QSignalSpy failed(&loader, &SessionDocument::failed);
        loader.open(m_dir.filePath(QStringLiteral("big.wscope")));
        loader.open(m_small);
        QVERIFY(loaded.wait(30000));
        QVERIFY(ws::test::settle({{"session load", 2}, {"panel data", 1}}));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>()->path, m_small);
    }

    void kernelDetailsAndLaunchLink()
    {
        SessionDocument loader;
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        loader.open(m_small);
        QVERIFY(loaded.wait(30000));
        const auto s = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        const SessionReader reader(m_small.toStdString());
        int checked = 0;
        for (size_t li = 0; li < s->model->lanes.size() && checked < 5; ++li) {
            const auto& lane = s->model->lanes[li];
            if (lane.kind != LaneKind::GpuStream)
                continue;
            for (quint32 k = 0; k < lane.size() && checked < 5; k += 97) {
                if (lane.ref[k].table() != EventTable::Kernel)
                    continue;
                const EventDetails d = queryEventDetails(&reader, *s, int(li), k);
                QVERIFY2(d.found, qPrintable(d.error));
                QStringList keys;
                for (const auto& f : d.fields)
                    keys << f.first;
                for (const char* want :
                    {"Grid", "Block", "Registers / thread", "Shared memory", "Correlation id", "Stream"})
                    QVERIFY2(keys.contains(QLatin1String(want)), want);
                // The launching call: an API call of the same process, started before the kernel.
                QVERIFY2(d.linkLane >= 0, qPrintable(d.name));
                const auto& api = s->model->lanes[size_t(d.linkLane)];
                QCOMPARE(api.kind, LaneKind::CudaApi);
                QCOMPARE(api.pid, lane.pid);
                QVERIFY(d.linkStart <= d.start);
                QVERIFY(d.linkName.contains(QStringLiteral("Launch")));
                // And back: the API call's details point at this kernel.
                const EventDetails back = queryEventDetails(&reader, *s, d.linkLane, d.linkIndex);
                QCOMPARE(back.correlationId, d.correlationId);
                QCOMPARE(back.linkLane, int(li));
                QCOMPARE(back.linkIndex, k);
                ++checked;
            }
        }
        QCOMPARE(checked, 5);
    }

    void detailsSourceIsAsynchronous()
    {
        SessionDocument loader;
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        loader.open(m_small);
        QVERIFY(loaded.wait(30000));
        const auto s = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        EventDetailsSource& source = *loader.details();
        QSignalSpy ready(&source, &EventDetailsSource::detailsReady);
        // Several hover requests in a row: only the newest is answered.
        source.request(EventDetailsSource::Hover, 0, 0);
        source.request(EventDetailsSource::Hover, 0, 1);
        source.request(EventDetailsSource::Hover, 0, 2);
        QVERIFY(ready.wait(10000));
        QVERIFY(ws::test::settle({{"event details", 1}}));
        QCOMPARE(ready.count(), 1);
        const auto d = ready.at(0).at(1).value<EventDetails>();
        QCOMPARE(d.index, 2u);
        QVERIFY(source.cached(0, 2) != nullptr);
        QVERIFY(source.cached(0, 1) == nullptr);
    }

    // The embedded demo (a real H200 recording), opened the way the window opens it: the
    // document delivers the snapshot, then the panel data and the bench tables, and answers
    // details of its events.
    void documentDeliversEverythingForTheDemo()
    {
        const QString demo = QStringLiteral(":/demo/h200-gemm-relu.wscope");
        if (!QFile::exists(demo))
            QSKIP("resources/demo/h200-gemm-relu.wscope is not in this build");
        QTemporaryDir tmp;
        SessionDocument doc;
        QSignalSpy loaded(&doc, &SessionDocument::loaded);
        QSignalSpy panelsLoading(&doc, &SessionDocument::panelDataLoading);
        QSignalSpy panels(&doc, &SessionDocument::panelDataReady);
        QSignalSpy bench(&doc, &SessionDocument::benchReady);
        QSignalSpy progress(&doc, &SessionDocument::progress);
        doc.openCopy(demo, tmp.filePath(QStringLiteral("demo.wscope")), QStringLiteral("demo"));
        QVERIFY(doc.isLoading());
        QVERIFY(loaded.wait(30000));
        QVERIFY(!doc.isLoading());
        QVERIFY(!progress.isEmpty());
        const auto s = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        QVERIFY(s && s->hasFile);
        QCOMPARE(s->displayName, QStringLiteral("demo"));
        QCOMPARE(doc.snapshot(), s);
        QVERIFY(s->hasGpuActivity());
        // Four runs over ~22 s; the view opens on the trace run's ~1 s, not on the replays.
        QVERIFY(s->openBegin >= s->begin() && s->openEnd <= s->end());
        QVERIFY2(s->openEnd - s->openBegin < (s->end() - s->begin()) / 5,
            qPrintable(
                QStringLiteral("open span %1 ns of %2 ns").arg(s->openEnd - s->openBegin).arg(s->end() - s->begin())));
        QCOMPARE(panelsLoading.count(), 1);

        QTRY_COMPARE_WITH_TIMEOUT(panels.count(), 1, 30000);
        const auto data = panels.at(0).at(0).value<std::shared_ptr<const PanelData>>();
        QVERIFY(data);
        QCOMPARE(panels.at(0).at(1).value<std::shared_ptr<const SessionSnapshot>>(), s);
        QCOMPARE(doc.panelData(), data);
        QCOMPARE(data->path, s->path);
        QVERIFY(data->launches.size() > 0);
        QVERIFY(!data->devices.empty());
        QVERIFY(data->file); // the stats reports read through the document's file
        QVERIFY(data->sourceTables);

        QTRY_COMPARE_WITH_TIMEOUT(bench.count(), 1, 30000);
        const auto outcome = bench.at(0).at(0).value<BenchOutcome>();
        QVERIFY(outcome.result); // the demo holds a benchmark run (issue 17)
        QVERIFY(outcome.error.isEmpty());

        // Details of a kernel: read by the document's worker, with its launching call.
        int lane = -1;
        quint32 index = 0;
        for (size_t li = 0; li < s->model->lanes.size() && lane < 0; ++li) {
            const auto& l = s->model->lanes[li];
            for (quint32 k = 0; k < l.size(); ++k) {
                if (l.ref[k].table() == EventTable::Kernel) {
                    lane = int(li);
                    index = k;
                    break;
                }
            }
        }
        QVERIFY(lane >= 0);
        QSignalSpy ready(doc.details(), &EventDetailsSource::detailsReady);
        doc.details()->request(EventDetailsSource::Selection, lane, index);
        QVERIFY(ready.wait(10000));
        const auto d = ready.at(0).at(1).value<EventDetails>();
        QCOMPARE(ready.at(0).at(0).toInt(), int(EventDetailsSource::Selection));
        QVERIFY2(d.found, qPrintable(d.error));
        QCOMPARE(d.lane, lane);
        QVERIFY(d.linkLane >= 0);
    }

    // Re-opening while the previous open still runs drops everything of the stale generation:
    // its snapshot, its panel data and its bench tables never arrive.
    void reopenDiscardsTheStaleGeneration()
    {
        const QString big = m_dir.filePath(QStringLiteral("big.wscope"));
        QVERIFY(QFile::exists(big));
        SessionDocument doc;
        QSignalSpy loaded(&doc, &SessionDocument::loaded);
        QSignalSpy failed(&doc, &SessionDocument::failed);
        QSignalSpy panels(&doc, &SessionDocument::panelDataReady);
        QSignalSpy bench(&doc, &SessionDocument::benchReady);
        doc.open(big);
        doc.open(m_small);
        QVERIFY(loaded.wait(30000));
        QTRY_COMPARE_WITH_TIMEOUT(panels.count(), 1, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(bench.count(), 1, 30000);
        // The small session's open started first in the pool's second thread or after big's
        // discard; either way nothing of big arrives once every load has returned.
        QVERIFY(ws::test::settle({{"session load", 2}, {"panel data", 1}}));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>()->path, m_small);
        QCOMPARE(panels.count(), 1);
        QCOMPARE(panels.at(0).at(0).value<std::shared_ptr<const PanelData>>()->path, m_small);

        // A re-open after the snapshot arrived discards that session's panel read too.
        loaded.clear();
        panels.clear();
        bench.clear();
        doc.open(big);
        QVERIFY(loaded.wait(60000));
        doc.open(m_small); // big's panel data and bench tables are still being read
        QVERIFY(loaded.wait(30000));
        QTRY_COMPARE_WITH_TIMEOUT(panels.count(), 1, 30000);
        QVERIFY(ws::test::settle({{"session load", 2}, {"panel data", 1}}));
        QCOMPARE(panels.count(), 1);
        QCOMPARE(panels.at(0).at(0).value<std::shared_ptr<const PanelData>>()->path, m_small);
        QCOMPARE(bench.count(), 1);
    }

    // The job class itself: a newer start() or discard() drops an older result, cancel() keeps it.
    void backgroundJobDropsStaleGenerations()
    {
        BackgroundJob job(BackgroundJob::pool("test", 2));
        QList<int> got;
        std::atomic<bool> release {false};
        const auto slow = [&release](int v) {
            return [&release, v](const BackgroundJob::Context&) {
                while (!release.load())
                    QThread::msleep(1);
                return v;
            };
        };
        job.start(slow(1), [&](int v) { got << v; });
        job.start(slow(2), [&](int v) { got << v; });
        QVERIFY(job.isRunning());
        release = true;
        QTRY_VERIFY_WITH_TIMEOUT(!job.isRunning(), 10000);
        QVERIFY(ws::test::settle({{"test", 2}}));
        QCOMPARE(got, QList<int> {2});

        got.clear();
        release = false;
        job.start(slow(3), [&](int v) { got << v; });
        job.discard();
        QVERIFY(!job.isRunning());
        release = true;
        QVERIFY(ws::test::settle({{"test", 2}}));
        QVERIFY(got.isEmpty());

        QSignalSpy finished(&job, &BackgroundJob::finished);
        job.start(
            [](const BackgroundJob::Context& c) {
                while (!c.cancel.isCancelled())
                    QThread::msleep(1);
                return -1; // "cancelled", still delivered
            },
            [&](int v) { got << v; });
        job.cancel();
        QVERIFY(finished.wait(10000));
        QCOMPARE(got, QList<int> {-1});
    }

    // wait() returns only once the work of every run has returned (a discarded run's work too,
    // if it had started), and leaves the delivery of a current result to the event loop.
    void backgroundJobWaitsForItsWork()
    {
        BackgroundJob job(BackgroundJob::pool("test wait", 2));
        job.wait(); // nothing started: returns at once
        std::atomic<int> running {0};
        std::atomic<bool> secondReturned {false};
        const auto slow = [&](int v) {
            return [&, v](const BackgroundJob::Context&) {
                ++running;
                QThread::msleep(100);
                if (v == 2)
                    secondReturned = true;
                --running;
                return v;
            };
        };
        QList<int> got;
        job.start(slow(1), [&](int v) { got << v; });
        QThread::msleep(20); // likely started: wait() must then cover it too
        job.discard();
        job.start(slow(2), [&](int v) { got << v; });
        job.wait();
        QCOMPARE(running.load(), 0);
        QVERIFY(secondReturned.load());
        QVERIFY(got.isEmpty()); // not delivered yet: that takes the event loop
        QVERIFY(job.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!job.isRunning(), 10000);
        QCOMPARE(got, QList<int> {2});
    }
};

QTEST_GUILESS_MAIN(TestSessionLoader)
#include "tst_sessionloader.moc"

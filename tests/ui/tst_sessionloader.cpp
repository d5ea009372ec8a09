// SPDX-License-Identifier: MIT
// Opening sessions from real SQLite files (written by the synthetic generator): the worker
// delivers the same lanes TimelineModel::load gives, errors name the file, Cancel is honoured,
// and the details worker reads rows by rowid and finds the launching API call.
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/lodfold.h"
#include "ui/session/eventdetails.h"
#include "ui/session/sessionloader.h"

#include <sqlite3.h>
#include <zlib.h>

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

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
        SessionLoader loader;
        QSignalSpy loaded(&loader, &SessionLoader::loaded);
        QSignalSpy progress(&loader, &SessionLoader::progress);
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
            QCOMPARE(s->model->lanes[i].name, direct->lanes[i].name);
            // Long lanes carry their LOD index, short ones scan.
            QCOMPARE(s->indexFor(i) != nullptr, direct->lanes[i].size() >= kLodIndexMinEvents);
        }
        QCOMPARE(s->nameColor.size(), direct->strings.size());
        QVERIFY(s->begin() < s->end());
        QVERIFY(s->hasGpuActivity());
        QVERIFY(s->deviceSummary().contains(QStringLiteral("GPU 0")));
        QVERIFY(s->residentBytes() > size_t(s->eventCount()) * 24);
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
        SessionLoader loader;
        QSignalSpy failed(&loader, &SessionLoader::failed);
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

        SessionLoader loader;
        QSignalSpy loaded(&loader, &SessionLoader::loaded);
        QSignalSpy failed(&loader, &SessionLoader::failed);
        QSignalSpy progress(&loader, &SessionLoader::progress);
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
        SessionLoader loader;
        QSignalSpy failed(&loader, &SessionLoader::failed);
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
        SessionLoader loader;
        QSignalSpy failed(&loader, &SessionLoader::failed);
        QSignalSpy loaded(&loader, &SessionLoader::loaded);
        loader.open(big);
        QTest::qWait(20);
        QElapsedTimer t;
        t.start();
        loader.cancel();
        QVERIFY(failed.wait(30000) || loaded.count() == 1);
        if (loaded.count() == 1)
            QSKIP("the load finished before Cancel reached it");
        QVERIFY(failed.at(0).at(2).toBool());
        qInfo("cancel honoured after %lld ms", t.elapsed());
    }

    void newerOpenReplacesARunningOne()
    {
        SessionLoader loader;
        QSignalSpy loaded(&loader, &SessionLoader::loaded);
        QSignalSpy failed(&loader, &SessionLoader::failed);
        loader.open(m_dir.filePath(QStringLiteral("big.wscope")));
        loader.open(m_small);
        QVERIFY(loaded.wait(30000));
        QTest::qWait(200);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>()->path, m_small);
    }

    void kernelDetailsAndLaunchLink()
    {
        SessionLoader loader;
        QSignalSpy loaded(&loader, &SessionLoader::loaded);
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
                const EventDetails d = queryEventDetails(reader.handle(), *s, int(li), k);
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
                const EventDetails back = queryEventDetails(reader.handle(), *s, d.linkLane, d.linkIndex);
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
        SessionLoader loader;
        QSignalSpy loaded(&loader, &SessionLoader::loaded);
        loader.open(m_small);
        QVERIFY(loaded.wait(30000));
        const auto s = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        EventDetailsSource source;
        source.setSnapshot(s);
        QSignalSpy ready(&source, &EventDetailsSource::detailsReady);
        // Several hover requests in a row: only the newest is answered.
        source.request(EventDetailsSource::Hover, 0, 0);
        source.request(EventDetailsSource::Hover, 0, 1);
        source.request(EventDetailsSource::Hover, 0, 2);
        QVERIFY(ready.wait(10000));
        QTest::qWait(200);
        QCOMPARE(ready.count(), 1);
        const auto d = ready.at(0).at(1).value<EventDetails>();
        QCOMPARE(d.index, 2u);
        QVERIFY(source.cached(0, 2) != nullptr);
        QVERIFY(source.cached(0, 1) == nullptr);
    }
};

QTEST_GUILESS_MAIN(TestSessionLoader)
#include "tst_sessionloader.moc"

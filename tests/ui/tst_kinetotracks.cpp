// SPDX-License-Identifier: MIT
// Issue 24 item 10, on the real PyTorch profiler fixture (tests/fixtures/import/
// kineto_mm_relu.json, torch 2.11 on an H200): the tracks are named as the trace names them
// (process_name, thread_name, process_labels; no internal ids like "thread 1099511627783" or
// "Process 4294967296"), no process header is empty, and the aten:: CPU ops are called CPU ops,
// not NVTX. The expected rows were read off the fixture with Python's json module (the metadata
// events listed in tests/fixtures/import/README.md), not produced by this code.
#include "core/import/importer.h"
#include "ui/session/sessiondocument.h"
#include "ui/timeline/timelinerowmodel.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace ws;

namespace {

std::string fixture()
{
    return WS_FIXTURES_DIR "/import/kineto_mm_relu.json";
}

struct Row {
    QString path;
    int kind = 0;
    int lanesBelow = 0;
};

void collect(const TimelineRowModel& m, const QModelIndex& parent, QList<Row>& out)
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        Row row;
        row.path = i.data(TimelineRowModel::PathRole).toString();
        row.kind = i.data(TimelineRowModel::KindRole).toInt();
        const qsizetype at = out.size();
        out << row;
        collect(m, i, out);
        int lanes = 0;
        for (qsizetype k = at + 1; k < out.size(); ++k)
            lanes += out[k].path.startsWith(row.path + QStringLiteral(" · "))
                && out[k].kind == static_cast<int>(TimelineRowModel::Kind::Lane);
        out[at].lanesBelow = lanes;
    }
}

} // namespace

class TestKinetoTracks : public QObject {
    Q_OBJECT

    QList<Row> m_rows;
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // Opened as the app opens it: imported into a session, then loaded.
        const QString path = m_dir.filePath(QStringLiteral("mm_relu.pt.trace.json"));
        QVERIFY(QFile::copy(QString::fromStdString(fixture()), path));
        SessionDocument loader;
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        QSignalSpy failed(&loader, &SessionDocument::failed);
        loader.open(path);
        QVERIFY(loaded.wait(30000) || !failed.isEmpty());
        QVERIFY(failed.isEmpty());
        TimelineRowModel rows;
        rows.setSnapshot(loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>());
        collect(rows, {}, m_rows);
        QVERIFY(!m_rows.isEmpty());
    }

    // The importer: a process only where the trace has events for it, and its labels kept.
    void importerKeepsProcessesWithEvents()
    {
        const SessionData d = importSession(fixture(), ImportFormat::Kineto, {});
        std::set<std::string> names;
        for (const auto& p : d.processes)
            names.insert(p.name);
        // pid 462 "python3" (the host: API calls, ranges), "Spans" (the profiler span),
        // "Traces" and "" (an instant event each); not the 16 GPU pids of the process_name
        // metadata, which hold nothing.
        QCOMPARE(names, (std::set<std::string> {"python3", "Spans", "Traces", ""}));
        QCOMPARE(d.meta.at("import.process_labels.462"), std::string("CPU"));
        for (const auto& p : d.processes) {
            const bool events
                = std::any_of(d.apiCalls.begin(), d.apiCalls.end(), [&](const auto& r) { return r.pid == p.pid; })
                || std::any_of(d.nvtxRanges.begin(), d.nvtxRanges.end(), [&](const auto& r) { return r.pid == p.pid; })
                || std::any_of(d.nvtxMarks.begin(), d.nvtxMarks.end(), [&](const auto& r) { return r.pid == p.pid; });
            QVERIFY2(events, p.name.c_str());
        }
    }

    void rowsAreNamedAsTheTraceNamesThem_data()
    {
        QTest::addColumn<QString>("path");
        const QString host = QStringLiteral("Process 462 (python3) · CPU");
        const QString thread = host + QStringLiteral(" · thread 462 (python3)");
        QTest::newRow("process") << host;
        QTest::newRow("thread") << thread;
        QTest::newRow("api") << thread + QStringLiteral(" · CUDA API");
        QTest::newRow("cpu ops") << thread + QStringLiteral(" · CPU ops");
        QTest::newRow("cpu ops depth 1") << thread + QStringLiteral(" · CPU ops (depth 1)");
        QTest::newRow("cpu ops depth 2") << thread + QStringLiteral(" · CPU ops (depth 2)");
        QTest::newRow("gpu annotations") << host + QStringLiteral(" · GPU 0 stream 7 annotations · GPU annotations");
        QTest::newRow("profiler span") << QStringLiteral("Spans · PyTorch Profiler · spans");
        QTest::newRow("stream") << QStringLiteral("GPU 0  NVIDIA H200 · stream 7");
    }

    void rowsAreNamedAsTheTraceNamesThem()
    {
        QFETCH(QString, path);
        QStringList all;
        for (const Row& r : m_rows)
            all << r.path;
        QVERIFY2(all.contains(path), qPrintable(path + QStringLiteral(" not in:\n") + all.join(QLatin1Char('\n'))));
    }

    void noInternalIdsNoNvtxNoEmptyHeaders()
    {
        const QRegularExpression bigNumber(QStringLiteral("\\d{10,}"));
        for (const Row& r : m_rows) {
            QVERIFY2(!bigNumber.match(r.path).hasMatch(), qPrintable(r.path));
            QVERIFY2(!r.path.contains(QLatin1String("NVTX")), qPrintable(r.path));
            QVERIFY2(!r.path.contains(QLatin1String("(thread ")), qPrintable(r.path));
            if (r.kind == static_cast<int>(TimelineRowModel::Kind::Group))
                QVERIFY2(r.lanesBelow > 0, qPrintable(QStringLiteral("empty header: ") + r.path));
        }
    }
};

QTEST_MAIN(TestKinetoTracks)
#include "tst_kinetotracks.moc"

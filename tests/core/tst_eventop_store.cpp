// SPDX-License-Identifier: MIT
// The event_op table (cross-stream dependencies): raw stream-event frames ingest into rows
// (every field, 64-bit handles, both domains, no CUPTI clock shift), rows survive a session
// file round trip and a merge, the dependencies derived from a file equal those derived in
// memory, and sessions written before the table existed open with no rows and no dependencies.
#include "core/analysis/sessiondependencies.h"
#include "core/ingest/rawingest.h"
#include "core/model/streamdependencies.h"
#include "core/raw/rawformat.h"
#include "core/raw/streamevent.h"
#include "core/store/sessionmerge.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include "streamdepsession.h"

#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace ws;
using namespace ws::test;

namespace {

void writeSession(const std::string& path, const SessionData& d)
{
    SessionWriter writer(path);
    attachLaneCache(writer);
    writer.write(d);
    writer.commit();
}

std::string rawFile(int64_t pid, const std::vector<raw::StreamEventRecord>& records, int64_t clockShift)
{
    raw::FileHeader h {};
    std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(h);
    h.pid = pid;
    h.parentPid = 1;
    std::string bytes(reinterpret_cast<const char*>(&h), sizeof(h));
    if (clockShift != 0) {
        // CUPTI in CLOCK_REALTIME: ingest shifts CUPTI's times, never the recorder's own.
        raw::ClockDomainRecord c {};
        c.realtime = 1;
        c.realtimeMinusMonotonicNs = clockShift;
        raw::appendFrame(bytes, raw::RecordType::ClockDomain, c);
    }
    for (const auto& r : records)
        raw::appendFrame(bytes, raw::RecordType::StreamEvent, r);
    raw::EndRecord e {};
    raw::appendFrame(bytes, raw::RecordType::End, e);
    return bytes;
}

} // namespace

class TestEventOpStore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

private slots:
    void rawFramesIngestIntoRows_data()
    {
        QTest::addColumn<qint64>("clockShift");
        QTest::newRow("monotonic CUPTI") << qint64(0);
        QTest::newRow("realtime CUPTI") << qint64(1'700'000'000'000'000'000);
    }

    void rawFramesIngestIntoRows()
    {
        QFETCH(qint64, clockShift);
        raw::StreamEventRecord rec {};
        rec.start = 5'000;
        rec.end = 5'400;
        rec.tid = 4242;
        rec.event = 0xffff'8000'0000'1230ull;
        rec.stream = 0x7f00'0000'0000'0010ull;
        rec.correlationId = 17;
        rec.contextId = 1;
        rec.deviceId = 2;
        rec.streamId = 13;
        rec.cbid = 371;
        rec.flags = 1;
        rec.op = uint8_t(raw::StreamEventOp::Record);
        rec.domain = uint8_t(raw::ApiDomain::Runtime);
        rec.perThreadStream = 1;
        raw::StreamEventRecord wait = rec;
        wait.start = 3'000; // earlier host time, later in the file: rows come out in start order
        wait.end = 2'000;   // an end before the start is clamped
        wait.op = uint8_t(raw::StreamEventOp::Wait);
        wait.domain = uint8_t(raw::ApiDomain::Driver);
        wait.streamId = 14;
        wait.returnValue = 400;
        raw::StreamEventRecord sync = rec;
        sync.start = 9'000;
        sync.end = 9'100;
        sync.op = uint8_t(raw::StreamEventOp::Synchronize);
        sync.stream = 0;
        sync.streamId = 0;

        RawIngest ingest;
        ingest.addFile(raw::RawFile::fromBytes(rawFile(77, {rec, wait, sync}, clockShift), "se.raw"));
        const SessionData s = ingest.finish();
        QCOMPARE(s.eventOps.size(), size_t(3));
        QCOMPARE(s.meta.at("unknown_raw_records"), std::string("0"));
        const EventOpRecord& w = s.eventOps[0];
        const EventOpRecord& r = s.eventOps[1];
        QCOMPARE(w.id, int64_t(1));
        QCOMPARE(w.kind, EventOpKind::Wait);
        QCOMPARE(w.domain, ApiDomain::Driver);
        QCOMPARE(w.start, TimeNs(3'000));
        QCOMPARE(w.end, TimeNs(3'000));
        QCOMPARE(w.returnValue, 400);
        QCOMPARE(w.streamId, 14u);
        QCOMPARE(r.id, int64_t(2));
        QCOMPARE(r.pid, int64_t(77));
        QCOMPARE(r.tid, int64_t(4242));
        QCOMPARE(r.kind, EventOpKind::Record);
        QCOMPARE(r.domain, ApiDomain::Runtime);
        QCOMPARE(r.start, TimeNs(5'000)); // the recorder's clock: never shifted
        QCOMPARE(r.end, TimeNs(5'400));
        QCOMPARE(r.event, uint64_t(0xffff'8000'0000'1230ull));
        QCOMPARE(r.stream, uint64_t(0x7f00'0000'0000'0010ull));
        QCOMPARE(r.correlationId, 17u);
        QCOMPARE(r.contextId, 1u);
        QCOMPARE(r.deviceId, 2u);
        QCOMPARE(r.streamId, 13u);
        QCOMPARE(r.cbid, 371);
        QCOMPARE(r.flags, 1u);
        QCOMPARE(s.eventOps[2].kind, EventOpKind::Synchronize);
        // Ingest anchored every row: no GPU work in this file, so to none.
        for (const auto& e : s.eventOps)
            QCOMPARE(e.opTable, 0);
    }

    void rowsRoundTripThroughAFile()
    {
        SessionData d = streamDepSession({launch(1, "p"), record(0xa0, 1), wait(2, 0xa0), wait(3, 0xa0), launch(2, "b"),
            launch(3, "c"), record(0xb0, 2), wait(1, 0xb0), launch(1, "j"), sync(0xb0)});
        d.eventOps[0].event = 0xffff'ffff'ffff'fff0ull; // all 64 bits of a handle survive
        d.eventOps[0].domain = ApiDomain::Driver;
        d.eventOps[0].flags = 3;
        d.eventOps[0].cbid = 587;
        d.eventOps[1].returnValue = -1;
        const std::string file = path("roundtrip.wscope");
        writeSession(file, d);

        const SessionReader reader(file);
        QCOMPARE(reader.readEventOps(), d.eventOps);
        const SessionData all = reader.readAll();
        QCOMPARE(all.eventOps, d.eventOps);
        QCOMPARE(reader.tableCounts().at("event_op"), static_cast<int64_t>(d.eventOps.size()));
        // The dependencies read from the file are the ones derived in memory.
        SessionData fresh = streamDepSession({launch(1, "p"), record(0xa0, 1), wait(2, 0xa0), wait(3, 0xa0),
            launch(2, "b"), launch(3, "c"), record(0xb0, 2), wait(1, 0xb0), launch(1, "j"), sync(0xb0)});
        const auto expected = deriveStreamDependencies(fresh);
        QCOMPARE(expected.size(), size_t(4));
        writeSession(path("fresh.wscope"), fresh);
        QCOMPARE(readStreamDependencies(SessionReader(path("fresh.wscope"))), expected); // rows not anchored
        anchorEventOps(fresh);
        writeSession(path("anchored.wscope"), fresh);
        const SessionReader anchored(path("anchored.wscope"));
        QVERIFY(allAnchored(anchored.readEventOps()));
        QCOMPARE(readStreamDependencies(anchored), expected); // from the anchors alone
        // Without correlation ids (issue order by host time): the full read and the API join.
        DepSessionOptions byTime;
        byTime.correlationIds = false;
        const SessionData timed
            = streamDepSession({launch(1, "p"), record(0xa0, 1), wait(2, 0xa0), launch(2, "b")}, byTime);
        writeSession(path("timed.wscope"), timed);
        const auto timedDeps = readStreamDependencies(SessionReader(path("timed.wscope")));
        QCOMPARE(timedDeps, deriveStreamDependencies(timed));
        QCOMPARE(timedDeps.size(), size_t(1));
    }

    void mergeKeepsBothSessionsRows()
    {
        SessionData a = streamDepSession({launch(1, "a"), record(0xa0, 1), wait(2, 0xa0), launch(2, "b")});
        SessionData b = streamDepSession({launch(1, "x"), record(0xa0, 1), wait(3, 0xa0), launch(3, "y")});
        anchorEventOps(a);
        anchorEventOps(b);
        const SessionData merged = mergeSessions(a, b);
        // The appended rows' anchors follow their kernels' new ids.
        QCOMPARE(pairEventOps(merged.eventOps), deriveStreamDependencies(merged));
        QCOMPARE(merged.eventOps.size(), size_t(4));
        std::set<int64_t> ids;
        for (const auto& e : merged.eventOps)
            ids.insert(e.id);
        QCOMPARE(ids.size(), size_t(4));
        writeSession(path("merged.wscope"), merged);
        const auto edges = readStreamDependencies(SessionReader(path("merged.wscope")));
        QCOMPARE(edges.size(), size_t(2)); // the second run's process got its own pid: no cross-talk
        QVERIFY(edges[0].pid != edges[1].pid);
    }

    void sessionsWithoutTheTableStillOpen_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("recorded before event_op") << "recorder/sessions/gemm_relu.wscope";
        QTest::newRow("multi-run") << "multirun/h200-gemm-relu-3runs.wscope";
        QTest::newRow("graphs") << "recorder/sessions/graphs.wscope";
    }

    void sessionsWithoutTheTableStillOpen()
    {
        QFETCH(QString, fixture);
        const std::string file = std::string(WS_FIXTURES_DIR) + "/" + fixture.toStdString();
        QVERIFY(QFile::exists(QString::fromStdString(file)));
        const SessionReader reader(file);
        QVERIFY(reader.readEventOps().empty());
        QVERIFY(!reader.tableCounts().contains("event_op"));
        QVERIFY(reader.readAll().eventOps.empty());
        QVERIFY(readStreamDependencies(reader).empty());
    }
};

QTEST_GUILESS_MAIN(TestEventOpStore)
#include "tst_eventop_store.moc"

// SPDX-License-Identifier: MIT
// Cross-stream dependencies (core/model/streamdependencies.h): hand-written programs with the
// dependencies they must give, and random programs against a brute-force reading of CUDA's
// rules straight off the call list (the latest earlier record of the event; the last launch on
// the recording stream before that record; the first launch on the waiting stream after the
// wait), with correlation ids and, without them, by host time.
#include "core/model/streamdependencies.h"

#include "streamdepsession.h"

#include <QtTest>

#include <random>
#include <set>
#include <tuple>

using namespace ws;
using namespace ws::test;

Q_DECLARE_METATYPE(std::vector<ws::test::DepCall>)

namespace {

// A dependency by names: producer kernel -> consumer kernel ("-": none; "host": a host wait).
using NamedEdge = std::tuple<std::string, std::string>;
using NamedEdges = std::vector<NamedEdge>;

std::string kernelName(const SessionData& d, GpuOpRef ref)
{
    if (!ref.valid())
        return "-";
    for (const auto& k : d.kernels)
        if (k.id == ref.id && ref.table == GpuOpRef::Table::Kernel)
            return d.str(k.shortName);
    return "?";
}

NamedEdges named(const SessionData& d, const std::vector<StreamDependency>& edges)
{
    NamedEdges out;
    for (const auto& e : edges)
        out.emplace_back(kernelName(d, e.producer),
            e.waitKind == EventOpKind::Synchronize ? std::string("host") : kernelName(d, e.consumer));
    std::sort(out.begin(), out.end());
    return out;
}

// CUDA's rules read off the call list by scanning, independent of the derivation's indexes.
NamedEdges bruteForce(const std::vector<DepCall>& calls)
{
    NamedEdges out;
    for (size_t w = 0; w < calls.size(); ++w) {
        const DepCall& wc = calls[w];
        if ((wc.op != DepCall::Op::Wait && wc.op != DepCall::Op::Sync) || wc.returnValue != 0)
            continue;
        std::optional<size_t> rec;
        for (size_t r = w; r-- > 0;) {
            const DepCall& rc = calls[r];
            if (rc.op == DepCall::Op::Record && rc.returnValue == 0 && rc.event == wc.event && rc.pid == wc.pid) {
                rec = r;
                break;
            }
        }
        if (!rec)
            continue;
        const DepCall& rc = calls[*rec];
        const bool host = wc.op == DepCall::Op::Sync;
        if (!host && rc.stream == wc.stream)
            continue;
        std::string producer = "-", consumer = host ? "host" : "-";
        for (size_t p = *rec; p-- > 0;)
            if (calls[p].op == DepCall::Op::Launch && calls[p].stream == rc.stream && calls[p].pid == rc.pid) {
                producer = calls[p].name;
                break;
            }
        if (!host)
            for (size_t c = w + 1; c < calls.size(); ++c)
                if (calls[c].op == DepCall::Op::Launch && calls[c].stream == wc.stream && calls[c].pid == wc.pid) {
                    consumer = calls[c].name;
                    break;
                }
        out.emplace_back(producer, consumer);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A random program over `streams` streams, `events` events and two processes; kernel names are
// unique ("k17") so that an edge names its ops exactly.
std::vector<DepCall> randomProgram(std::mt19937& rng, int calls, int streams, int events)
{
    std::vector<DepCall> out;
    std::uniform_int_distribution<int> op(0, 9), stream(1, streams), event(1, events), pid(0, 4);
    for (int i = 0; i < calls; ++i) {
        const int64_t p = pid(rng) == 0 ? 200 : 100;
        const int o = op(rng);
        const auto s = static_cast<uint32_t>(stream(rng));
        const auto e = static_cast<uint64_t>(event(rng)) * 0x10;
        if (o < 4)
            out.push_back(launch(s, "k" + std::to_string(i), 1'000 + 500 * (i % 7), p));
        else if (o < 6)
            out.push_back(record(e, s, p));
        else if (o < 9)
            out.push_back(wait(s, e, p));
        else
            out.push_back(sync(e, p));
        if (o >= 4 && op(rng) == 0)
            out.back().returnValue = 400; // a failed call changes nothing
    }
    return out;
}

} // namespace

class TestStreamDependencies : public QObject {
    Q_OBJECT

private slots:
    void handWritten_data()
    {
        QTest::addColumn<std::vector<DepCall>>("calls");
        QTest::addColumn<QStringList>("expected"); // "producer>consumer", sorted

        QTest::newRow("record then wait")
            << std::vector<DepCall> {launch(1, "a"), record(7, 1), wait(2, 7), launch(2, "b")} << QStringList {"a>b"};
        QTest::newRow("fork-join") << std::vector<DepCall> {launch(1, "p"), record(1, 1), wait(2, 1), wait(3, 1),
            launch(2, "b"), launch(3, "c"), record(2, 2), record(3, 3), wait(1, 2), wait(1, 3), launch(1, "j")}
                                   << QStringList {"b>j", "c>j", "p>b", "p>c"};
        QTest::newRow("wait before any record is a no-op")
            << std::vector<DepCall> {wait(2, 7), launch(2, "b"), launch(1, "a"), record(7, 1)} << QStringList {};
        QTest::newRow("wait sees the latest earlier record, not a later one") << std::vector<DepCall> {launch(1, "a1"),
            record(7, 1), launch(1, "a2"), record(7, 1), wait(2, 7), launch(2, "b"), launch(1, "a3"), record(7, 1)}
                                                                              << QStringList {"a2>b"};
        QTest::newRow("re-recorded on another stream") << std::vector<DepCall> {launch(1, "a"), record(7, 1),
            launch(3, "c"), record(7, 3), wait(2, 7), launch(2, "b")}
                                                       << QStringList {"c>b"};
        QTest::newRow("same stream gives nothing")
            << std::vector<DepCall> {launch(1, "a"), record(7, 1), wait(1, 7), launch(1, "b")} << QStringList {};
        QTest::newRow("record on an idle stream: no producer")
            << std::vector<DepCall> {record(7, 1), wait(2, 7), launch(2, "b")} << QStringList {"->b"};
        QTest::newRow("nothing after the wait: no consumer")
            << std::vector<DepCall> {launch(1, "a"), record(7, 1), launch(2, "b"), wait(2, 7)} << QStringList {"a>-"};
        QTest::newRow("two waits before one kernel") << std::vector<DepCall> {launch(1, "a"), record(7, 1),
            launch(3, "c"), record(8, 3), wait(2, 7), wait(2, 8), launch(2, "b")}
                                                     << QStringList {"a>b", "c>b"};
        QTest::newRow("event synchronize: the host waits for the producer") << std::vector<DepCall> {
            launch(1, "a"), record(7, 1), launch(1, "later"), sync(7)} << QStringList {"a>host"};
        QTest::newRow("failed record and failed wait are ignored") << [] {
            std::vector<DepCall> c {launch(1, "a"), record(7, 1), launch(1, "a2"), record(7, 1), wait(2, 7),
                launch(2, "b"), wait(3, 7), launch(3, "c")};
            c[3].returnValue = 400; // the second record failed: the wait sees the first
            c[6].returnValue = 400; // the wait on stream 3 failed
            return c;
        }() << QStringList {"a>b"};
        QTest::newRow("one handle in two processes") << std::vector<DepCall> {launch(1, "a", 10'000, 100),
            record(7, 1, 100), launch(1, "x", 10'000, 200), record(7, 1, 200), wait(2, 7, 100),
            launch(2, "b", 10'000, 100), wait(2, 7, 200), launch(2, "y", 10'000, 200)}
                                                     << QStringList {"a>b", "x>y"};
    }

    void handWritten()
    {
        QFETCH(std::vector<DepCall>, calls);
        QFETCH(QStringList, expected);
        for (const bool withIds : {true, false}) {
            DepSessionOptions o;
            o.correlationIds = withIds;
            const SessionData d = streamDepSession(calls, o);
            QStringList got;
            for (const auto& [p, c] : named(d, deriveStreamDependencies(d)))
                got << QString::fromStdString(p + ">" + c);
            got.sort();
            QCOMPARE(got, expected);
            // The brute force reads the same rules; it must agree on the hand-written cases too.
            QStringList brute;
            for (const auto& [p, c] : bruteForce(calls))
                brute << QString::fromStdString(p + ">" + c);
            brute.sort();
            QCOMPARE(brute, expected);
        }
    }

    void edgeFieldsOfOneDependency()
    {
        const SessionData d = streamDepSession({launch(1, "a"), record(7, 1), wait(2, 7), launch(2, "b")});
        const auto edges = deriveStreamDependencies(d);
        QCOMPARE(edges.size(), size_t(1));
        const StreamDependency& e = edges[0];
        QCOMPARE(e.pid, int64_t(100));
        QCOMPARE(e.event, uint64_t(7));
        QCOMPARE(e.recordId, int64_t(1));
        QCOMPARE(e.waitId, int64_t(2));
        QCOMPARE(e.producerStream, 1u);
        QCOMPARE(e.consumerStream, 2u);
        QCOMPARE(e.recordTime, TimeNs(2'000));
        QCOMPARE(e.waitTime, TimeNs(3'000));
        const KernelRecord& a = d.kernels[0];
        const KernelRecord& b = d.kernels[1];
        QCOMPARE(e.producer, (GpuOpRef {GpuOpRef::Table::Kernel, a.id}));
        QCOMPARE(e.consumer, (GpuOpRef {GpuOpRef::Table::Kernel, b.id}));
        QCOMPARE(e.producerEnd, a.end);
        QCOMPARE(e.consumerStart, b.start);
        // The simulation made b wait for a: the arrow points forward in GPU time.
        QVERIFY(b.start >= a.end);
        QCOMPARE(dependenciesOf(edges, e.consumer).size(), size_t(1));
        QVERIFY(dependenciesOf(edges, e.producer).empty());
    }

    void copiesAndMemsetsAreOps()
    {
        SessionData d = streamDepSession({record(7, 1), wait(2, 7)});
        MemcpyRecord m;
        m.id = 1;
        m.pid = 100;
        m.streamId = 1;
        m.correlationId = 1; // issued before the record (correlation 1 is taken by the record: ids need only order)
        d.eventOps[0].correlationId = 2;
        d.eventOps[1].correlationId = 3;
        d.memcpys.push_back(m);
        MemsetRecord s;
        s.id = 1;
        s.pid = 100;
        s.streamId = 2;
        s.correlationId = 4;
        d.memsets.push_back(s);
        const auto edges = deriveStreamDependencies(d);
        QCOMPARE(edges.size(), size_t(1));
        QCOMPARE(edges[0].producer, (GpuOpRef {GpuOpRef::Table::Memcpy, 1}));
        QCOMPARE(edges[0].consumer, (GpuOpRef {GpuOpRef::Table::Memset, 1}));
    }

    void randomProgramsMatchBruteForce_data()
    {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("calls");
        QTest::addColumn<int>("streams");
        QTest::addColumn<int>("events");
        for (int seed = 1; seed <= 40; ++seed)
            QTest::addRow("seed %d", seed) << seed << (seed % 5 == 0 ? 400 : 60) << 2 + seed % 3 << 1 + seed % 4;
    }

    void randomProgramsMatchBruteForce()
    {
        QFETCH(int, seed);
        QFETCH(int, calls);
        QFETCH(int, streams);
        QFETCH(int, events);
        std::mt19937 rng(static_cast<unsigned>(seed));
        const auto program = randomProgram(rng, calls, streams, events);
        const NamedEdges expected = bruteForce(program);
        for (const bool withIds : {true, false}) {
            DepSessionOptions o;
            o.correlationIds = withIds;
            SessionData d = streamDepSession(program, o);
            const auto derived = deriveStreamDependencies(d);
            QCOMPARE(named(d, derived), expected);
            // Rows anchored once (as ingest does) pair into the same dependencies.
            QVERIFY(!allAnchored(d.eventOps) || d.eventOps.empty());
            anchorEventOps(d);
            QVERIFY(allAnchored(d.eventOps));
            QCOMPARE(pairEventOps(d.eventOps), derived);
        }
    }

    void noEventOpsNoWork()
    {
        const SessionData d = streamDepSession({launch(1, "a"), launch(2, "b")});
        QVERIFY(d.eventOps.empty());
        QVERIFY(deriveStreamDependencies(d).empty());
    }
};

QTEST_GUILESS_MAIN(TestStreamDependencies)
#include "tst_streamdependencies.moc"

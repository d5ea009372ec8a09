// SPDX-License-Identifier: MIT
// orderNvtxRanges (core/import/importfinish.h) against a brute-force ordering on random
// multi-thread range sets, for every number of parts: the threaded merge must give exactly
// the single-threaded result (ids, depths, order). Then the pipelined import: NvtxRangeOrder
// numbering ranges while they arrive, and importIntoSession writing them during the parse, must
// give exactly the sequential result (same rows, ids, order, depths; same session file content)
// on the watermark's edge cases, or give up and fall back to the sequential path.
#include "core/import/chrometracebuilder.h"
#include "core/import/importfinish.h"
#include "core/import/nvtxrangeorder.h"
#include "core/import/nvtxrangesink.h"
#include "core/import/sessionimport.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <random>
#include <tuple>

using namespace ws;

namespace {

// Nested trees per thread, threads interleaved in blocks (as tracers flush), some threads out
// of order, equal starts, identical spans and partial overlaps.
std::vector<NvtxRangeRecord> randomRanges(uint64_t seed, size_t n, int threads)
{
    std::mt19937_64 rng(seed);
    std::vector<NvtxRangeRecord> out;
    out.reserve(n);
    std::vector<TimeNs> clock(static_cast<size_t>(threads), 0);
    while (out.size() < n) {
        const int t = static_cast<int>(rng() % static_cast<uint64_t>(threads));
        TimeNs& c = clock[static_cast<size_t>(t)];
        const TimeNs rootStart = c + static_cast<TimeNs>(rng() % 50);
        const TimeNs rootEnd = rootStart + 1 + static_cast<TimeNs>(rng() % 400);
        std::vector<std::pair<TimeNs, TimeNs>> block {{rootStart, rootEnd}};
        for (int k = static_cast<int>(rng() % 6); k > 0; --k) {
            const auto [ps, pe] = block[rng() % block.size()];
            TimeNs s = ps + static_cast<TimeNs>(rng() % static_cast<uint64_t>(pe - ps + 1));
            TimeNs e = s + static_cast<TimeNs>(rng() % static_cast<uint64_t>(pe - s + 1));
            if (rng() % 8 == 0)
                e = pe + static_cast<TimeNs>(rng() % 30); // partly overlapping
            if (rng() % 8 == 0)
                s = ps, e = pe; // identical span
            block.emplace_back(s, e);
        }
        if (rng() % 4 == 0)
            std::shuffle(block.begin(), block.end(), rng); // a thread written out of order
        for (const auto& [s, e] : block) {
            if (out.size() >= n)
                break;
            NvtxRangeRecord r;
            r.pid = 1 + t % 2;
            r.tid = 100 + t;
            r.endTid = r.tid;
            r.start = s;
            r.end = e;
            r.name = static_cast<StringId>(out.size() % 7 + 1);
            r.category = static_cast<int32_t>(out.size()); // remembers the file position
            out.push_back(r);
        }
        c = rootEnd + static_cast<TimeNs>(rng() % 20);
    }
    return out;
}

// The definition, spelled out: per thread sorted by (start, end descending, file index),
// depth from a stack of open ends; then everything by (start, depth, file index).
std::vector<NvtxRangeRecord> bruteForce(std::vector<NvtxRangeRecord> ranges)
{
    std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> byThread;
    for (size_t i = 0; i < ranges.size(); ++i)
        byThread[{ranges[i].pid, ranges[i].tid}].push_back(i);
    for (auto& [key, list] : byThread) {
        std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
            return std::make_tuple(ranges[a].start, -ranges[a].end, a)
                < std::make_tuple(ranges[b].start, -ranges[b].end, b);
        });
        std::vector<TimeNs> open;
        for (size_t i : list) {
            while (!open.empty() && open.back() <= ranges[i].start)
                open.pop_back();
            ranges[i].depth = static_cast<int32_t>(open.size());
            open.push_back(ranges[i].end);
        }
    }
    std::vector<size_t> order(ranges.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::make_tuple(ranges[a].start, ranges[a].depth, a)
            < std::make_tuple(ranges[b].start, ranges[b].depth, b);
    });
    std::vector<NvtxRangeRecord> out;
    for (size_t i : order) {
        out.push_back(ranges[i]);
        out.back().id = static_cast<int64_t>(out.size());
    }
    return out;
}

// ---- The pipelined order: inputs in file order, as a tracer writes them --------------------

NvtxRangeRecord range(int64_t tid, TimeNs start, TimeNs end)
{
    NvtxRangeRecord r;
    r.pid = 4242;
    r.tid = tid;
    r.endTid = tid;
    r.start = start;
    r.end = end;
    return r;
}

// One call tree, parent first and children in time order (depth-first, as the bench writes it),
// with the ties tracers produce: a child that starts with its parent, one with the parent's
// exact span, zero-length calls.
void appendTree(std::vector<NvtxRangeRecord>& out, std::mt19937_64& rng, int64_t tid, TimeNs start, TimeNs end,
    int depth, int maxDepth)
{
    out.push_back(range(tid, start, end));
    if (depth >= maxDepth || end - start < 8)
        return;
    const int children = static_cast<int>(rng() % 4);
    const TimeNs slot = (end - start) / (children + 1);
    for (int c = 0; c < children; ++c) {
        TimeNs s = start + slot / 2 + c * slot;
        TimeNs e = s + slot * 3 / 4;
        const uint64_t kind = rng() % 8;
        if (kind == 0 && c == 0)
            s = start; // starts with its parent
        else if (kind == 1 && children == 1)
            s = start, e = end; // the parent's exact span: nested, one deeper
        else if (kind == 2)
            e = s; // zero length
        appendTree(out, rng, tid, s, e, depth + 1, maxDepth);
    }
}

// `threads` threads, one tree each per round, interleaved tree by tree; all clocks start at the
// same time, so the first trees of every thread tie.
std::vector<NvtxRangeRecord> interleaved(uint64_t seed, int threads, int rounds, int maxDepth, TimeNs from = 1000)
{
    std::mt19937_64 rng(seed);
    std::vector<NvtxRangeRecord> out;
    std::vector<TimeNs> clock(static_cast<size_t>(threads), from);
    for (int round = 0; round < rounds; ++round) {
        for (int t = 0; t < threads; ++t) {
            TimeNs& c = clock[static_cast<size_t>(t)];
            const TimeNs length = 200 + static_cast<TimeNs>(rng() % 600);
            appendTree(out, rng, 100 + t, c, c + length, 0, maxDepth);
            c += length + static_cast<TimeNs>(rng() % 3) * 10; // sometimes back to back
        }
    }
    return out;
}

TimeNs lastStart(const std::vector<NvtxRangeRecord>& ranges)
{
    TimeNs t = 0;
    for (const auto& r : ranges)
        t = std::max(t, r.start);
    return t;
}

enum class Expect { Streams, Fails, Either };

std::vector<NvtxRangeRecord> scenario(const QString& name)
{
    if (name == "interleaved")
        return interleaved(11, 16, 12, 6);
    if (name == "one thread")
        return interleaved(12, 1, 200, 5);
    if (name == "deep nesting") {
        // Chains 120 deep on 3 threads, one chain per thread per round. Each thread shows up
        // first with a short call: a chain is longer than the warm-up, and a thread not seen yet
        // cannot hold the watermark back.
        std::vector<NvtxRangeRecord> out;
        for (int t = 0; t < 3; ++t)
            out.push_back(range(100 + t, 0, 1));
        for (int round = 0; round < 4; ++round)
            for (int t = 0; t < 3; ++t)
                for (int d = 0; d < 120; ++d)
                    out.push_back(range(100 + t, round * 10000 + 100 + d * 10 + t, round * 10000 + 5000 - d * 10));
        return out;
    }
    if (name == "starts tie everywhere") {
        // Every thread starts its calls at the same multiples of 100, nested spans of equal
        // start, identical spans and zero-length calls: only depth and file index order them.
        std::vector<NvtxRangeRecord> out;
        for (int k = 0; k < 60; ++k)
            for (int t = 0; t < 5; ++t) {
                const TimeNs s = k * 100;
                out.push_back(range(100 + t, s, s + 90));
                out.push_back(range(100 + t, s, s + 90)); // identical: nested in the first
                out.push_back(range(100 + t, s, s + 40));
                out.push_back(range(100 + t, s, s)); // zero length
                out.push_back(range(100 + t, s + 40, s + 40));
            }
        return out;
    }
    if (name == "late thread, early start" || name == "late thread, in time") {
        auto out = interleaved(13, 8, 10, 4);
        const TimeNs from = name.endsWith("early start") ? 1000 : lastStart(out) + 1;
        std::mt19937_64 rng(14);
        appendTree(out, rng, 999, from, from + 700, 0, 4);
        return out;
    }
    if (name == "quiet thread back, early" || name == "quiet thread back, in time") {
        // Thread 998 has one tree at the start, then stays quiet for far longer than quietAfter.
        std::vector<NvtxRangeRecord> out;
        std::mt19937_64 rng(15);
        appendTree(out, rng, 998, 1000, 1500, 0, 3);
        const auto rest = interleaved(16, 6, 20, 4, 1000);
        out.insert(out.end(), rest.begin(), rest.end());
        const TimeNs from = name.endsWith("early") ? 1600 : lastStart(out) + 1;
        appendTree(out, rng, 998, from, from + 500, 0, 3);
        return out;
    }
    if (name == "slow thread holds the watermark") {
        // Thread 997 writes a range every few dozen, behind the others in time (where they
        // were 160 ranges ago): the watermark is its last start, and nothing past it may be
        // numbered yet.
        const auto others = interleaved(17, 4, 30, 4);
        std::vector<NvtxRangeRecord> out;
        TimeNs slow = 1000;
        for (size_t i = 0; i < others.size(); ++i) {
            if (i % 40 == 0) {
                if (i >= 160)
                    slow = std::max(slow, others[i - 160].start);
                out.push_back(range(997, slow, slow + 5));
            }
            out.push_back(others[i]);
        }
        return out;
    }
    if (name == "thread out of start order") {
        auto out = interleaved(18, 4, 12, 4);
        // A child written before its parent, after numbering has started.
        const size_t at = out.size() * 3 / 4;
        auto it = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(at), out.end(),
            [&](const NvtxRangeRecord& r) { return r.start > 0 && &r != &out.back(); });
        std::iter_swap(it, it + 1);
        return out;
    }
    if (name == "random (shuffled trees)")
        return randomRanges(19, 3000, 6);
    return {};
}

NvtxRangeOrder::Limits smallLimits()
{
    NvtxRangeOrder::Limits limits;
    limits.handOutEvery = 16;
    limits.warmUp = 64;
    limits.quietAfter = 300;
    limits.maxHeld = size_t(1) << 20;
    return limits;
}

QString firstDifference(const std::vector<NvtxRangeRecord>& got, const std::vector<NvtxRangeRecord>& expected)
{
    if (got.size() != expected.size())
        return QStringLiteral("%1 rows, expected %2").arg(got.size()).arg(expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (!(got[i] == expected[i]))
            return QStringLiteral("row %1: id %2 start %3 depth %4 tid %5, expected id %6 start %7 depth %8 tid %9")
                .arg(i)
                .arg(got[i].id)
                .arg(got[i].start)
                .arg(got[i].depth)
                .arg(got[i].tid)
                .arg(expected[i].id)
                .arg(expected[i].start)
                .arg(expected[i].depth)
                .arg(expected[i].tid);
    }
    return {};
}

// ---- The pipelined import, end to end ------------------------------------------------------

// Counts what an importer hands its NvtxRangeSink.
class SpySink final : public NvtxRangeSink {
public:
    void take(std::vector<NvtxRangeRecord>&& ranges) override { taken += ranges.size(); }
    void discard() override
    {
        discardedAfter = taken;
        taken = 0;
        discarded = true;
    }
    size_t taken = 0;
    size_t discardedAfter = 0;
    bool discarded = false;
};

QByteArray microseconds(TimeNs ns)
{
    char text[48];
    std::snprintf(text, sizeof text, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    return text;
}

// The ranges as complete ("X") events of a Chrome trace, in the same order; `extra` adds the
// kinds that end streaming, after most of the ranges (so after rows were handed out).
QByteArray chromeTrace(const std::vector<NvtxRangeRecord>& ranges, const QString& extra)
{
    QByteArray json = "{\"traceEvents\":[\n";
    const size_t extraAt = ranges.size() * 3 / 4;
    for (size_t i = 0; i < ranges.size(); ++i) {
        const auto& r = ranges[i];
        if (i == extraAt && extra == "begin/end") {
            // Nested B/E: the inner range is complete (and added) before the outer one.
            json
                += "{\"name\":\"outer\",\"ph\":\"B\",\"ts\":" + microseconds(r.start) + ",\"pid\":4242,\"tid\":777},\n";
            json += "{\"name\":\"inner\",\"ph\":\"B\",\"ts\":" + microseconds(r.start + 1)
                + ",\"pid\":4242,\"tid\":777},\n";
            json += "{\"name\":\"inner\",\"ph\":\"E\",\"ts\":" + microseconds(r.start + 2)
                + ",\"pid\":4242,\"tid\":777},\n";
            json += "{\"name\":\"outer\",\"ph\":\"E\",\"ts\":" + microseconds(r.start + 3)
                + ",\"pid\":4242,\"tid\":777},\n";
        } else if (i == extraAt && extra == "gpu annotation") {
            json += "{\"name\":\"cudaLaunchKernel\",\"cat\":\"cuda_runtime\",\"ph\":\"X\",\"ts\":"
                + microseconds(r.start) + ",\"dur\":1,\"pid\":4242,\"tid\":100,\"args\":{\"correlation\":5}},\n";
            json += "{\"name\":\"gemm\",\"cat\":\"kernel\",\"ph\":\"X\",\"ts\":" + microseconds(r.start + 500)
                + ",\"dur\":2,\"pid\":0,\"tid\":7,\"args\":{\"device\":0,\"stream\":7,\"correlation\":5}},\n";
            json += "{\"name\":\"step\",\"cat\":\"gpu_user_annotation\",\"ph\":\"X\",\"ts\":"
                + microseconds(r.start + 400)
                + ",\"dur\":3,\"pid\":0,\"tid\":7,\"args\":{\"device\":0,\"stream\":7}},\n";
        } else if (i == extraAt && extra == "never ended") {
            // Closed only by finish(), after the whole file: it arrives last with an early start.
            json += "{\"name\":\"open\",\"ph\":\"B\",\"ts\":" + microseconds(r.start) + ",\"pid\":4242,\"tid\":776},\n";
        }
        json += "{\"name\":\"f" + QByteArray::number(i % 13) + "\",\"cat\":\"app\",\"ph\":\"X\",\"ts\":"
            + microseconds(r.start) + ",\"dur\":" + microseconds(r.end - r.start)
            + ",\"pid\":4242,\"tid\":" + QByteArray::number(static_cast<qlonglong>(r.tid)) + "}";
        json += i + 1 < ranges.size() ? ",\n" : "\n";
    }
    json += "]}\n";
    return json;
}

struct LaneChunkCopy {
    std::string key;
    int64_t format = 0;
    std::vector<std::byte> data;
    bool operator<(const LaneChunkCopy& o) const { return key < o.key; }
    bool operator==(const LaneChunkCopy&) const = default;
};

std::vector<LaneChunkCopy> laneChunks(const SessionReader& reader)
{
    std::vector<LaneChunkCopy> out;
    reader.forEachLaneChunk([&](const SessionReader::LaneChunk& c) {
        out.push_back({std::string(c.key), c.format, std::vector<std::byte>(c.data.begin(), c.data.end())});
        return true;
    });
    std::sort(out.begin(), out.end());
    return out;
}
} // namespace

class TestImportOrder : public QObject {
    Q_OBJECT
private slots:
    void matchesBruteForce_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("threads");
        QTest::newRow("one thread") << quint64(1) << 3000 << 1;
        QTest::newRow("two threads") << quint64(2) << 5000 << 2;
        QTest::newRow("sixteen threads") << quint64(3) << 20000 << 16;
        QTest::newRow("many small threads") << quint64(4) << 4000 << 200;
        QTest::newRow("tiny") << quint64(5) << 3 << 2;
    }
    void matchesBruteForce()
    {
        QFETCH(quint64, seed);
        QFETCH(int, count);
        QFETCH(int, threads);
        const auto input = randomRanges(seed, static_cast<size_t>(count), threads);
        const auto expected = bruteForce(input);
        for (const unsigned parts : {1u, 2u, 3u, 8u}) {
            auto got = input;
            orderNvtxRanges(got, parts);
            QCOMPARE(got.size(), expected.size());
            for (size_t i = 0; i < got.size(); ++i) {
                if (!(got[i] == expected[i]))
                    QFAIL(qPrintable(QStringLiteral("parts %1: row %2 differs (file position %3, expected %4)")
                                         .arg(parts)
                                         .arg(i)
                                         .arg(got[i].category)
                                         .arg(expected[i].category)));
            }
        }
    }
    // NvtxRangeOrder fed one range at a time, asked for final ranges every handOutEvery, against
    // orderNvtxRanges on the whole table. Where it cannot know, it must fail, never be wrong.
    void streamedOrder_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("expect");
        const auto row = [](const char* name, Expect expect) {
            QTest::newRow(name) << QString::fromUtf8(name) << static_cast<int>(expect);
        };
        row("interleaved", Expect::Streams);
        row("one thread", Expect::Streams);
        row("deep nesting", Expect::Streams);
        row("starts tie everywhere", Expect::Streams);
        row("late thread, early start", Expect::Fails);
        row("late thread, in time", Expect::Streams);
        row("quiet thread back, early", Expect::Fails);
        row("quiet thread back, in time", Expect::Streams);
        row("slow thread holds the watermark", Expect::Streams);
        row("thread out of start order", Expect::Fails);
        row("random (shuffled trees)", Expect::Either);
    }
    void streamedOrder()
    {
        QFETCH(QString, name);
        QFETCH(int, expect);
        const auto input = scenario(name);
        QVERIFY(input.size() > 200);
        auto expected = input;
        orderNvtxRanges(expected, 1);

        NvtxRangeOrder order(smallLimits());
        std::vector<NvtxRangeRecord> got;
        size_t handedBeforeEnd = 0;
        for (const auto& r : input) {
            order.add(r);
            if (order.handOutDue()) {
                const auto final = order.takeFinal();
                got.insert(got.end(), final.begin(), final.end());
            }
        }
        handedBeforeEnd = got.size();
        const auto rest = order.takeRest();
        got.insert(got.end(), rest.begin(), rest.end());

        if (static_cast<Expect>(expect) == Expect::Fails) {
            QVERIFY2(order.failed(), "numbered ranges although the file broke the order");
            QVERIFY(got.empty() || handedBeforeEnd > 0);
            return;
        }
        if (static_cast<Expect>(expect) == Expect::Streams) {
            QVERIFY2(!order.failed(), order.failure().c_str());
            // The point of it: rows were final long before the end of the file.
            QVERIFY2(handedBeforeEnd > input.size() / 2, qPrintable(QString::number(handedBeforeEnd)));
        }
        if (!order.failed()) {
            const QString difference = firstDifference(got, expected);
            QVERIFY2(difference.isEmpty(), qPrintable(difference));
        }
    }

    void tooManyHeldBack()
    {
        auto limits = smallLimits();
        limits.maxHeld = 100;
        NvtxRangeOrder order(limits);
        // One thread's calls never end before the next one starts: no range below the
        // watermark of a thread that keeps starting at 0.
        for (int i = 0; i < 200 && !order.failed(); ++i) {
            order.add(range(1, 0, 1000 - i));
            order.add(range(2, i, i + 1));
            if (order.handOutDue())
                order.takeFinal();
        }
        QVERIFY(order.failed());
        QVERIFY(order.takeRest().empty());
    }

    // importIntoSession (NVTX rows written on a second thread during the parse) against the
    // sequential path (import, then SessionWriter::write), both read back from the files.
    void pipelinedSession_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("extra");
        QTest::addColumn<bool>("streams");
        QTest::newRow("interleaved") << "interleaved"
                                     << "" << true;
        QTest::newRow("deep nesting") << "deep nesting"
                                      << "" << true;
        QTest::newRow("starts tie everywhere") << "starts tie everywhere"
                                               << "" << true;
        QTest::newRow("late thread, in time") << "late thread, in time"
                                              << "" << true;
        QTest::newRow("late thread, early start") << "late thread, early start"
                                                  << "" << false;
        QTest::newRow("quiet thread back, early") << "quiet thread back, early"
                                                  << "" << false;
        QTest::newRow("slow thread holds the watermark") << "slow thread holds the watermark"
                                                         << "" << true;
        QTest::newRow("thread out of start order") << "thread out of start order"
                                                   << "" << false;
        QTest::newRow("nested begin/end") << "interleaved"
                                          << "begin/end" << false;
        QTest::newRow("gpu annotation") << "interleaved"
                                        << "gpu annotation" << false;
        QTest::newRow("begin never ended") << "interleaved"
                                           << "never ended" << false;
    }
    void pipelinedSession()
    {
        QFETCH(QString, name);
        QFETCH(QString, extra);
        QFETCH(bool, streams);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string trace = dir.filePath("trace.json").toStdString();
        {
            QFile f(QString::fromStdString(trace));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(chromeTrace(scenario(name), extra));
        }
        ImportOptions options;
        options.nvtxStreaming = smallLimits();

        const std::string pipelined = dir.filePath("pipelined.wscope").toStdString();
        const SessionImport result = importIntoSession(trace, ImportFormat::Kineto, options, pipelined);
        QCOMPARE(result.nvtxRangesStreamed > 0, streams);

        const std::string sequential = dir.filePath("sequential.wscope").toStdString();
        {
            const SessionData data = importSession(trace, ImportFormat::Kineto, {});
            QCOMPARE(result.nvtxRanges, data.nvtxRanges.size());
            SessionWriter writer(sequential);
            attachLaneCache(writer);
            writer.write(data);
            writer.commit();
        }

        const SessionReader a(pipelined);
        const SessionReader b(sequential);
        const QString difference = firstDifference(a.readTable<NvtxRangeRecord>(), b.readTable<NvtxRangeRecord>());
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        const SessionData x = a.readAll();
        const SessionData y = b.readAll();
        QVERIFY(x.nvtxRanges == y.nvtxRanges);
        QVERIFY(x.kernels == y.kernels);
        QVERIFY(x.apiCalls == y.apiCalls);
        QVERIFY(x.nvtxMarks == y.nvtxMarks);
        QVERIFY(x.strings.all() == y.strings.all());
        QCOMPARE(x.processes.size(), y.processes.size());
        QCOMPARE(x.threads.size(), y.threads.size());
        for (size_t i = 0; i < x.threads.size(); ++i)
            QVERIFY(x.threads[i].tid == y.threads[i].tid && x.threads[i].name == y.threads[i].name);
        QVERIFY(a.storedRowCounts() == b.storedRowCounts());
        QVERIFY(laneChunks(a) == laneChunks(b));
        auto metaA = a.meta();
        auto metaB = b.meta();
        metaA.erase("created");
        metaB.erase("created");
        QVERIFY(metaA == metaB);

        // What the importer hands out: everything, or a discard after rows were written (the
        // fallback this test must reach, not just the trivial case of nothing handed out).
        SpySink spy;
        ImportOptions spying = options;
        spying.nvtxSink = &spy;
        const SessionData spied = createImporter(ImportFormat::Kineto)->importFile(trace, spying);
        if (streams) {
            QVERIFY(!spy.discarded);
            QVERIFY(spied.nvtxRanges.empty());
            QVERIFY(spy.taken > 0);
        } else {
            QVERIFY(spy.discarded);
            QVERIFY2(spy.discardedAfter > 0, "the order gave up before any row was handed out");
            QVERIFY(!spied.nvtxRanges.empty());
        }
    }

    void emptyAndDefault()
    {
        std::vector<NvtxRangeRecord> none;
        orderNvtxRanges(none, 4);
        QVERIFY(none.empty());
        QCOMPARE(defaultOrderParts(10), 1u);
        QVERIFY(defaultOrderParts(size_t(1) << 24) >= 1u);
    }
};

QTEST_GUILESS_MAIN(TestImportOrder)
#include "tst_import_order.moc"

// SPDX-License-Identifier: MIT
// The synthetic session generator: exact event counts, determinism per (events, seed), and a
// workload that looks like a CUDA program (API calls before their GPU work, correlation ids
// per process, nested NVTX, several threads, devices and streams).
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace ws;

namespace {

int64_t eventRows(const SessionData& d)
{
    return static_cast<int64_t>(d.kernels.size() + d.memcpys.size() + d.memsets.size() + d.apiCalls.size()
        + d.nvtxRanges.size() + d.nvtxMarks.size() + d.syncs.size());
}

SynthOptions options(int64_t events, uint64_t seed)
{
    SynthOptions o;
    o.events = events;
    o.seed = seed;
    return o;
}

bool sameTables(const SessionData& a, const SessionData& b)
{
    return a.strings.all() == b.strings.all() && a.environment == b.environment && a.processes == b.processes
        && a.threads == b.threads && a.devices == b.devices && a.streams == b.streams && a.kernels == b.kernels
        && a.memcpys == b.memcpys && a.memsets == b.memsets && a.apiCalls == b.apiCalls && a.nvtxRanges == b.nvtxRanges
        && a.nvtxMarks == b.nvtxMarks && a.syncs == b.syncs;
}

} // namespace

class TestSynth : public QObject {
    Q_OBJECT

private slots:
    void exactEventCount_data()
    {
        QTest::addColumn<qint64>("events");
        for (const qint64 n : {0, 1, 2, 3, 4, 97, 1000, 12345, 70001})
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }

    void exactEventCount()
    {
        QFETCH(qint64, events);
        const SessionData d = makeSyntheticSession(options(events, 5));
        QCOMPARE(eventRows(d), static_cast<int64_t>(events));
    }

    void sameSeedSameSession()
    {
        const SessionData a = makeSyntheticSession(options(20000, 42));
        const SessionData b = makeSyntheticSession(options(20000, 42));
        QVERIFY(sameTables(a, b));
        QCOMPARE(a.meta, b.meta);
        const SessionData c = makeSyntheticSession(options(20000, 43));
        QVERIFY(!sameTables(a, c));
        QCOMPARE(c.meta.at("synthetic_seed"), std::string("43"));
    }

    void batchSizeDoesNotChangeTheSession()
    {
        SynthOptions small = options(30000, 9);
        small.batchEvents = 1024;
        QVERIFY(sameTables(makeSyntheticSession(small), makeSyntheticSession(options(30000, 9))));
    }

    void writtenFilesAreIdentical()
    {
        QTemporaryDir dir;
        std::vector<SessionData> read;
        for (const char* name : {"a.wscope", "b.wscope"}) {
            const std::string path = dir.filePath(name).toStdString();
            SessionWriter writer(path);
            attachLaneCache(writer);
            std::vector<double> progress;
            writeSyntheticSession(options(25000, 77), writer, [&](double f, const char*) { progress.push_back(f); });
            writer.commit();
            QVERIFY(!progress.empty());
            QCOMPARE(progress.back(), 1.0);
            read.push_back(SessionReader(path).readAll());
        }
        QVERIFY(sameTables(read[0], read[1]));
        QVERIFY(sameTables(read[0], makeSyntheticSession(options(25000, 77))));
        QCOMPARE(read[0].meta.at("synthetic"), std::string("1"));
        QCOMPARE(read[0].meta.at("synthetic_seed"), std::string("77"));
        QCOMPARE(read[0].meta.at("synthetic_events"), std::string("25000"));
    }

    void generatorStreamsInBatches()
    {
        SynthOptions o = options(50000, 1);
        o.batchEvents = 2048;
        SynthGenerator generator(o);
        SessionData batch;
        int batches = 0;
        int64_t total = 0;
        while (generator.next(batch)) {
            ++batches;
            total += eventRows(batch);
            // A batch holds about batchEvents events (plus NVTX ranges closed in it).
            QVERIFY2(eventRows(batch) <= o.batchEvents + 512, qPrintable(QString::number(eventRows(batch))));
        }
        QCOMPARE(total, o.events);
        QVERIFY(batches >= 20);
        QCOMPARE(eventRows(batch), int64_t(0));
        QVERIFY(!generator.next(batch));
    }

    void looksLikeACudaProgram()
    {
        const SessionData d = makeSyntheticSession(options(40000, 3));
        QCOMPARE(d.processes.size(), size_t(2));
        QCOMPARE(d.threads.size(), size_t(8));
        QCOMPARE(d.devices.size(), size_t(4));
        QCOMPARE(d.devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(d.devices[0].smCount, 132);
        QCOMPARE(d.devices[0].ccMajor, 9);

        // Every GPU operation has its runtime call in the same process with the same
        // correlation id, and starts after that call started.
        std::map<std::pair<int64_t, uint32_t>, const ApiCallRecord*> runtime;
        std::set<std::string> apiNames;
        for (const ApiCallRecord& a : d.apiCalls) {
            QVERIFY(a.start < a.end);
            apiNames.insert(d.str(a.name));
            if (a.domain == ApiDomain::Runtime)
                QVERIFY(runtime.emplace(std::pair(a.pid, a.correlationId), &a).second);
        }
        for (const char* name : {"cudaLaunchKernel_v7000", "cuLaunchKernel", "cudaMemcpyAsync_v3020",
                 "cudaMemsetAsync_v3020", "cudaStreamSynchronize_v3020"})
            QVERIFY2(apiNames.contains(name), name);
        const auto launchedBy = [&](int64_t pid, uint32_t corr) { return runtime.at(std::pair(pid, corr)); };
        std::set<std::string> kernelNames;
        std::set<std::tuple<int64_t, uint32_t, uint32_t>> streams;
        for (const KernelRecord& k : d.kernels) {
            QVERIFY(launchedBy(k.pid, k.correlationId)->start < k.start);
            QCOMPARE(d.str(launchedBy(k.pid, k.correlationId)->name), std::string("cudaLaunchKernel_v7000"));
            QVERIFY(k.start < k.end);
            QVERIFY(!d.str(k.mangledName).empty() && !d.str(k.demangledName).empty() && !d.str(k.shortName).empty());
            kernelNames.insert(d.str(k.demangledName));
            streams.insert({k.pid, k.deviceId, k.streamId});
        }
        QVERIFY(kernelNames.size() >= 20);
        QVERIFY(kernelNames.contains("relu_kernel(float*, int)"));
        QVERIFY(streams.size() >= 4);
        for (const MemcpyRecord& m : d.memcpys)
            QVERIFY(launchedBy(m.pid, m.correlationId)->start < m.start);
        for (const MemsetRecord& m : d.memsets)
            QVERIFY(launchedBy(m.pid, m.correlationId)->start < m.start);
        // Correlation ids are per process: both processes use the same small numbers.
        QVERIFY(runtime.contains({d.processes[0].pid, 1u}));
        QVERIFY(runtime.contains({d.processes[1].pid, 1u}));

        // NVTX ranges nest properly per thread, up to depth 3.
        std::map<std::pair<int64_t, int64_t>, std::vector<const NvtxRangeRecord*>> open;
        int maxDepth = 0;
        for (const NvtxRangeRecord& r : d.nvtxRanges) {
            auto& stack = open[{r.pid, r.tid}];
            while (!stack.empty() && stack.back()->end <= r.start)
                stack.pop_back();
            QCOMPARE(r.depth, static_cast<int32_t>(stack.size()));
            if (!stack.empty())
                QVERIFY(r.end <= stack.back()->end);
            stack.push_back(&r);
            maxDepth = std::max(maxDepth, r.depth);
        }
        QCOMPARE(maxDepth, 3);
        QVERIFY(!d.syncs.empty());
        QVERIFY(!d.nvtxMarks.empty());
    }

    void cancellationStopsWriting()
    {
        QTemporaryDir dir;
        SessionWriter writer(dir.filePath("x.wscope").toStdString());
        attachLaneCache(writer);
        CancellationToken cancel;
        SynthOptions o = options(100000, 1);
        o.batchEvents = 4096;
        try {
            writeSyntheticSession(
                o, writer, [&](double, const char*) { cancel.cancel(); }, cancel);
            QFAIL("must throw when cancelled");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), SessionError::Kind::Cancelled);
        }
        QVERIFY(writer.rowsWritten() < o.events);
    }
};

QTEST_GUILESS_MAIN(TestSynth)
#include "tst_synth.moc"

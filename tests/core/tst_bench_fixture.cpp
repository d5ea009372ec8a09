// SPDX-License-Identifier: MIT
// Benchmark sessions recorded on an H200 by `warpscope-cli bench` (scripts/h200/bench-verify.sh)
// read back through the real SessionReader: every run keeps its rounds and calls, the harness's
// invariants hold, and the mapping back to the result model is complete.
#include "core/bench/benchreport.h"
#include "core/bench/benchresult.h"
#include "core/store/sessionreader.h"

#include <QtTest>

#include <cmath>
#include <numeric>

using namespace ws;
using namespace ws::bench;

class TestBenchFixture : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void invariants_data()
    {
        QTest::addColumn<QString>("path");
        const QDir dir(QStringLiteral(WS_FIXTURES_DIR "/bench"));
        const auto files = dir.entryList({QStringLiteral("*.wscope")}, QDir::Files, QDir::Name);
        QVERIFY2(!files.isEmpty(), "no benchmark fixtures in tests/fixtures/bench");
        for (const auto& f : files)
            QTest::newRow(qPrintable(f)) << dir.filePath(f);
    }

    void invariants()
    {
        QFETCH(QString, path);
        const SessionReader reader(path.toStdString());
        const auto data = reader.readAll();
        QCOMPARE(data.meta.at("kind"), std::string("bench"));
        const auto result = benchResultFromSession(data, path.toStdString());
        QVERIFY(!result.runs.empty());
        QVERIFY(!result.devices.empty());
        QCOMPARE(result.environment.at("gpu.l2_bytes"), std::to_string(result.devices.front().l2Bytes));
        size_t samples = 0;
        for (const auto& run : result.runs) {
            const auto where = QString::fromStdString(run.workload + "/" + run.implementation);
            QCOMPARE(static_cast<int>(run.rounds.size()), run.options.rounds);
            QCOMPARE(run.roundPositions.size(), run.rounds.size());
            QVERIFY2(run.check.performed && run.check.passed, qPrintable(where));
            QVERIFY(run.check.checked > 0 && run.check.checked <= run.check.total);
            QVERIFY(!run.boundary.empty());
            QVERIFY(run.warmupCalls > 0);
            samples += run.rounds.size();
            if (run.options.timer == TimerKind::CudaEventsPerBatch) {
                QVERIFY(run.calls.empty());
            } else {
                QCOMPARE(run.calls.size(), run.rounds.size());
                for (size_t r = 0; r < run.rounds.size(); ++r) {
                    const auto& calls = run.calls[r];
                    QCOMPARE(static_cast<int64_t>(calls.size()), run.options.repeat);
                    samples += calls.size();
                    // The harness stores each round's value as the mean of its calls.
                    const double mean = std::accumulate(calls.begin(), calls.end(), 0.0) / double(calls.size());
                    QVERIFY2(std::fabs(mean - run.rounds[r]) <= 1e-9 * mean, qPrintable(where));
                }
            }
            for (double v : run.rounds)
                QVERIFY(v > 0 && std::isfinite(v));
            const auto s = summarize(run);
            QVERIFY(s.stats.min <= s.stats.median && s.stats.median <= s.stats.max);
            QVERIFY(!s.throughput.empty());
        }
        QCOMPARE(reader.tableCounts().at("bench_sample"), static_cast<int64_t>(samples));
    }

    void pdlPair()
    {
        // h200-pdl-1M.wscope: `warpscope-cli bench -w pdl --size 1M --rounds 10 --repeat 100 --cache warm`
        // on an H200 (scripts/h200/bench-verify.log).
        const auto path = std::string(WS_FIXTURES_DIR "/bench/h200-pdl-1M.wscope");
        const SessionReader reader(path);
        const auto result = benchResultFromSession(reader.readAll(), path);
        QCOMPARE(result.environment.at("gpu.name"), std::string("NVIDIA H200"));
        QCOMPARE(result.runs.size(), size_t(2));
        const auto& pdl = result.runs[0];
        const auto& serial = result.runs[1];
        QCOMPARE(pdl.implementation, std::string("pdl"));
        QCOMPARE(serial.implementation, std::string("serialized"));
        QCOMPARE(pdl.size, int64_t(1) << 20);
        QCOMPARE(pdl.options.cache, CachePolicy::Warm);
        QCOMPARE(pdl.options.timer, TimerKind::CudaEventsPerCall);
        QCOMPARE(pdl.flushBytes, int64_t(0));
        QVERIFY(pdl.options.alternate);
        // Two implementations alternate: pdl goes first in even rounds, second in odd ones.
        for (size_t r = 0; r < pdl.roundPositions.size(); ++r) {
            QCOMPARE(pdl.roundPositions[r], int(r % 2));
            QCOMPARE(serial.roundPositions[r], int(1 - r % 2));
        }
        QVERIFY(pdl.boundary.find("programmatic stream serialization") != std::string::npos);
        QVERIFY(serial.boundary.find("launched plainly (serialized)") != std::string::npos);
        QCOMPARE(pdl.workBytes, 5.0 * (1 << 20) * 4); // primary reads x, writes y; secondary reads x, y, writes z
        QCOMPARE(pdl.throughputKind, ThroughputKind::Effective);
        QCOMPARE(pdl.check.reference, std::string("host double-precision (1.5 x + 0.25) + x^2"));
        QCOMPARE(pdl.check.checked, int64_t(1) << 20);
    }
};

QTEST_GUILESS_MAIN(TestBenchFixture)
#include "tst_bench_fixture.moc"

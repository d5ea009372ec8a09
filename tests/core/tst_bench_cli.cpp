// SPDX-License-Identifier: MIT
// `warpscope-cli bench` without a GPU: bad options and combinations exit non-zero with one
// line naming the problem before any GPU process starts, and --from-json writes a session
// that reads back as the result it was given.
#include "clirun.h"
#include "core/bench/benchjson.h"
#include "core/bench/benchresult.h"
#include "core/store/sessionreader.h"

#include <QtTest>

#include <set>

using namespace ws;
using namespace ws::bench;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args);
}

QString workloadsExe()
{
    return QStringLiteral(WS_BUILD_DIR "/bin/warpscope-bench-workloads");
}

BenchResult resultToImport()
{
    BenchResult r;
    r.environment = {{"gpu.name", "NVIDIA H200"}};
    BenchRunResult run;
    run.workload = "custom";
    run.implementation = "mine";
    run.size = 1000;
    run.dtype = "fp32";
    run.options.repeat = 4;
    run.options.rounds = 2;
    run.flushBytes = int64_t(256) << 20;
    run.boundary = "One call: my kernel.";
    run.workBytes = 8000;
    run.workText = "1000 floats read and written";
    run.warmupCalls = 100;
    run.rounds = {2.5, 2.75};
    run.calls = {{2, 2.5, 3, 2.5}, {2.75, 2.75, 2.5, 3}};
    run.roundPositions = {0, 0};
    run.check = {true, true, 1000, 1000, 0, 0, 0, 0, "CPU"};
    r.runs.push_back(run);
    return r;
}

} // namespace

class TestBenchCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_output = m_dir.filePath(QStringLiteral("never-written.wscope"));

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo::exists(QStringLiteral(WS_CLI_PATH)))
            QSKIP("warpscope-cli is not built in this build directory");
    }

    void badOptions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        const QStringList base {QStringLiteral("bench"), QStringLiteral("-o"), m_output};
        QTest::newRow("no workload") << base
                                     << "--workload is required (one of: gemm, gemm-relu, copy, multistream, pdl)";
        QTest::newRow("no output") << QStringList {"bench", "-w", "gemm"} << "-o/--output FILE is required";
        QTest::newRow("unknown workload") << base + QStringList {"-w", "conv"} << "unknown workload 'conv'";
        QTest::newRow("flush in batch") << base + QStringList {"-w", "gemm", "--timer", "cuda-events-per-batch"}
                                        << "--cache flush cannot be combined with --timer cuda-events-per-batch";
        QTest::newRow("timer name") << base + QStringList {"-w", "gemm", "--timer", "proton"}
                                    << "--timer must be cuda-events-per-call, cuda-events-per-batch or "
                                       "wallclock-sync-per-call, not 'proton'";
        QTest::newRow("cache name") << base + QStringList {"-w", "gemm", "--cache", "cold"}
                                    << "--cache must be flush or warm, not 'cold'";
        QTest::newRow("both warm-ups") << base + QStringList {"-w", "gemm", "--warmup-ms", "10", "--warmup-calls", "5"}
                                       << "not both";
        QTest::newRow("flush bytes") << base + QStringList {"-w", "copy", "--flush-bytes", "lots"}
                                     << "--flush-bytes 'lots' is not a size";
        QTest::newRow("flush bytes warm") << base + QStringList {"-w", "copy", "--cache", "warm", "--flush-bytes", "1G"}
                                          << "--flush-bytes applies to --cache flush only";
        QTest::newRow("dtype") << base + QStringList {"-w", "copy", "--dtype", "bf16"}
                               << "copy supports --dtype fp32; got 'bf16'";
        QTest::newRow("size") << base + QStringList {"-w", "gemm", "--size", "1001"}
                              << "--size 1001 for gemm must be a multiple of 8";
        QTest::newRow("impl") << base + QStringList {"-w", "pdl", "--impl", "fast"}
                              << "workload pdl has no implementation 'fast'";
        QTest::newRow("output directory") << QStringList {"bench", "-w", "gemm", "-o", "/nonexistent/dir/x.wscope"}
                                          << "/nonexistent/dir/x.wscope: the directory /nonexistent/dir does not exist";
        QTest::newRow("rounds") << base + QStringList {"-w", "gemm", "--rounds", "0"} << "--rounds must be >= 1";
        QTest::newRow("device") << base + QStringList {"-w", "gemm", "--device", "-1"} << "--device must be >= 0";
        QTest::newRow("workloads exe") << base + QStringList {"-w", "gemm", "--workloads-exe", "/nonexistent/exe"}
                                       << "/nonexistent/exe: not an executable (--workloads-exe)";
        QTest::newRow("from-json with options") << base + QStringList {"--from-json", "r.json", "--rounds", "3"}
                                                << "--from-json imports a result as it was measured; --rounds does "
                                                   "not apply";
        QTest::newRow("from-json missing")
            << base + QStringList {"--from-json", "/nonexistent/r.json"} << "/nonexistent/r.json: cannot read";
    }

    void badOptions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        const auto r = cli(args);
        QVERIFY2(r.exitCode >= 2, qPrintable(QString::number(r.exitCode) + r.err));
        const auto lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines[0].startsWith(QStringLiteral("warpscope-cli bench: ")), qPrintable(lines[0]));
        QVERIFY2(lines[0].contains(error), qPrintable(lines[0]));
        QVERIFY(!QFileInfo::exists(m_output)); // nothing written for a refused request
    }

    void fromJson()
    {
        QTemporaryDir dir;
        const auto json = dir.filePath(QStringLiteral("r.json"));
        const auto session = dir.filePath(QStringLiteral("r.wscope"));
        const auto expected = resultToImport();
        {
            QFile f(json);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(toJson(expected)));
        }
        const auto r
            = cli({QStringLiteral("bench"), QStringLiteral("--from-json"), json, QStringLiteral("-o"), session});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // The report: median of 2 2.5 2.5 2.5 2.75 2.75 3 3 = 2.625 us; 8000 bytes / 2.625 us / 1e3 = 3.0476 GB/s.
        QVERIFY2(r.out.contains(QStringLiteral("custom / mine")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("median 2.6250 us")));
        QVERIFY(r.out.contains(QStringLiteral("= 3.0 (kernel throughput")));
        QVERIFY(r.out.contains(QStringLiteral("session: ") + session));

        const SessionReader reader(session.toStdString());
        auto back = benchResultFromSession(reader.readAll(), session.toStdString());
        QCOMPARE(back.environment.at("bench.imported_from"), QFileInfo(json).absoluteFilePath().toStdString());
        back.environment.erase("bench.imported_from");
        QVERIFY(back == expected);
    }

    // warpscope.bench (python/) writes every call of one Python process through --from-json:
    // the same pid and device in each result. Appended one after another they must all land
    // (issue 21, found on the H200: the second append failed on device(pid, id)).
    void fromJsonAppendedFromOneProcess()
    {
        QTemporaryDir dir;
        const auto session = dir.filePath(QStringLiteral("py.wscope"));
        BenchResult expected = resultToImport();
        DeviceInfo gpu;
        gpu.id = 0;
        gpu.pid = 4242;
        gpu.name = "NVIDIA H200";
        expected.devices = {gpu};
        for (int i = 0; i < 3; ++i) {
            BenchResult r = expected;
            r.runs[0].workload = "op" + std::to_string(i);
            const auto json = dir.filePath(QStringLiteral("r%1.json").arg(i));
            {
                QFile f(json);
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write(QByteArray::fromStdString(toJson(r)));
            }
            const auto out = i == 0 ? QStringLiteral("-o") : QStringLiteral("--append");
            const auto run = cli({QStringLiteral("bench"), QStringLiteral("--from-json"), json, out, session});
            QVERIFY2(run.exitCode == 0, qPrintable(QString::number(i) + ": " + run.err));
        }
        const SessionReader reader(session.toStdString());
        const SessionData data = reader.readAll();
        QCOMPARE(data.benchRuns.size(), size_t {3});
        std::set<std::string> workloads;
        for (const auto& r : benchResultFromSession(data, session.toStdString()).runs)
            workloads.insert(r.workload);
        QCOMPARE(workloads, (std::set<std::string> {"op0", "op1", "op2"}));
        // One device row per appended run, each under its own (pid, id).
        QCOMPARE(data.devices.size(), size_t {3});
        std::set<std::pair<int64_t, uint32_t>> keys;
        for (const DeviceInfo& d : data.devices) {
            QCOMPARE(d.pid & 0xffffffff, int64_t {4242});
            keys.emplace(d.pid, d.id);
        }
        QCOMPARE(keys.size(), size_t {3});
    }

    void fromJsonRejectsBadContent()
    {
        QTemporaryDir dir;
        const auto json = dir.filePath(QStringLiteral("bad.json"));
        {
            QFile f(json);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"format": "warpscope-bench", "version": 1, "environment": {}, "devices": [], "runs": [{}]})");
        }
        const auto out = dir.filePath(QStringLiteral("out.wscope"));
        const auto r = cli({QStringLiteral("bench"), QStringLiteral("--from-json"), json, QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(
            r.err.trimmed(), QStringLiteral("warpscope-cli bench: %1: $.runs[0]: missing field 'workload'").arg(json));
        QVERIFY(!QFileInfo::exists(out)); // nothing half-written
    }

    void noDevice()
    {
        // Only meaningful where the workloads program exists and finds no GPU (CI machines).
        if (!QFileInfo::exists(workloadsExe()))
            QSKIP("warpscope-bench-workloads is not built (no CUDA toolkit)");
        QProcess probe;
        probe.start(workloadsExe(), {QStringLiteral("--probe")});
        QVERIFY(probe.waitForFinished(60000));
        if (probe.exitCode() != 4)
            QSKIP("a CUDA device is present: tests/gpu/tst_bench_gpu covers this machine");
        QTemporaryDir dir;
        const auto out = dir.filePath(QStringLiteral("x.wscope"));
        const auto r
            = cli({QStringLiteral("bench"), QStringLiteral("-w"), QStringLiteral("copy"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 4);
        QCOMPARE(r.err.trimmed(),
            QStringLiteral("warpscope-cli bench: no CUDA device is available (cudaGetDeviceCount found none)"));
        QVERIFY(!QFileInfo::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestBenchCli)
#include "tst_bench_cli.moc"

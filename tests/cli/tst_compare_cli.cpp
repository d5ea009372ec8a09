// SPDX-License-Identifier: MIT
// `warpscope-cli compare A B` as a CI gate: exit 0 when B is not significantly slower, 1 on a
// significant regression (with one line on stderr saying so), 2 on any error (one line naming
// the file or option). Benchmark sessions are written here through the real SessionWriter
// from samples with a known shift; recordings are the H200 fixtures.
#include "clirun.h"
#include "core/bench/benchresult.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QtTest>

#include <cmath>

using namespace ws;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(QStringList {QStringLiteral("compare")} + args);
}

// A GEMM benchmark session: 5 rounds x 40 calls around `medianUs`, spread by a fixed pattern
// (+-0.5%), scaled by `factor`.
QString benchSession(const QString& dir, const QString& name, double factor, const std::string& impl = "cublas")
{
    bench::BenchResult r;
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.l2Bytes = 62914560;
    r.devices.push_back(d);
    r.environment["gpu.l2_bytes"] = std::to_string(d.l2Bytes);
    bench::BenchRunResult run;
    run.workload = "gemm";
    run.implementation = impl;
    run.size = 4096;
    run.dtype = "bf16";
    run.options.rounds = 5;
    run.options.repeat = 40;
    run.boundary = "one cublasGemmEx";
    run.warmupCalls = 100;
    for (int round = 0; round < 5; ++round) {
        std::vector<double> calls;
        for (int c = 0; c < 40; ++c)
            calls.push_back(factor * (190.0 + 0.95 * std::sin(round * 40 + c * 1.7)));
        double mean = 0;
        for (double v : calls)
            mean += v / 40;
        run.rounds.push_back(mean);
        run.calls.push_back(calls);
        run.roundPositions.push_back(0);
    }
    run.check = {true, true, 4096, 4096 * 4096, 0, 0, 0.02, 0.01, "host reference"};
    r.runs.push_back(run);
    const QString path = dir + QLatin1Char('/') + name;
    SessionWriter w(path.toStdString());
    attachLaneCache(w);
    w.write(bench::toSessionData(r));
    w.commit();
    return path;
}

QString fixture(const char* rel)
{
    return QStringLiteral(WS_FIXTURES_DIR "/") + QLatin1String(rel);
}

} // namespace

class TestCompareCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFileInfo::exists(QStringLiteral(WS_CLI_PATH)), WS_CLI_PATH); }

    void exitCodes_data()
    {
        QTest::addColumn<double>("factorB");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("verdict");
        QTest::newRow("same") << 1.0 << QStringList() << 0 << "no significant change";
        QTest::newRow("5% slower") << 1.05 << QStringList() << 1 << "B is 5.0% slower";
        QTest::newRow("5% slower, 10% threshold")
            << 1.05 << QStringList {QStringLiteral("--threshold"), QStringLiteral("10")} << 0
            << "no significant change";
        QTest::newRow("1% slower, under the 2% default") << 1.01 << QStringList() << 0 << "no significant change";
        QTest::newRow("1% slower, 0.5% threshold")
            << 1.01 << QStringList {QStringLiteral("--threshold"), QStringLiteral("0.5")} << 1 << "B is 1.0% slower";
        QTest::newRow("8% faster") << 0.92 << QStringList() << 0 << "B is 8.0% faster";
    }

    void exitCodes()
    {
        QFETCH(double, factorB);
        QFETCH(QStringList, extra);
        QFETCH(int, exitCode);
        QFETCH(QString, verdict);
        QTemporaryDir dir;
        const QString a = benchSession(dir.path(), QStringLiteral("a.wscope"), 1.0);
        const QString b = benchSession(dir.path(), QStringLiteral("b.wscope"), factorB);
        const Run r = cli(QStringList {a, b} + extra);
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QStringLiteral("Verdict: ") + verdict), qPrintable(r.out));
        // The verdict states its rule.
        QVERIFY(r.out.contains(QStringLiteral("threshold ")));
        if (exitCode == 1) {
            QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
            QVERIFY(r.err.startsWith(QStringLiteral("warpscope-cli compare: regression: B is")));
        } else {
            QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        }
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString bench = fixture("bench/h200-pdl-1M.wscope");
        QTest::newRow("one file") << QStringList {bench} << "expected two session files";
        QTest::newRow("missing file") << QStringList {bench, QStringLiteral("/nonexistent/b.wscope")}
                                      << "/nonexistent/b.wscope";
        QTest::newRow("not a session") << QStringList {bench, fixture("import/kineto_mm_relu.json")}
                                       << "kineto_mm_relu.json";
        QTest::newRow("bench vs recording") << QStringList {bench, fixture("recorder/sessions/gemm_relu.wscope")}
                                            << "one is a benchmark session and the other is not";
        QTest::newRow("bad threshold") << QStringList {bench, bench, QStringLiteral("--threshold"),
            QStringLiteral("lots")} << "--threshold 'lots'";
        QTest::newRow("bad format") << QStringList {bench, bench, QStringLiteral("--format"), QStringLiteral("xml")}
                                    << "unknown format 'xml'";
        QTest::newRow("unknown option") << QStringList {bench, bench, QStringLiteral("--colour")}
                                        << "unexpected argument '--colour'";
        QTest::newRow("bad prediction") << QStringList {bench, bench, QStringLiteral("--predict"),
            QStringLiteral("latency:sideways")}
                                        << "prediction 'latency:sideways'";
        QTest::newRow("unresolved pair") << QStringList {fixture("recorder/sessions/gemm_relu.wscope"),
            fixture("metrics/gemm_relu.wscope"), QStringLiteral("--pair"), QStringLiteral("nothing=relu")}
                                         << "'nothing' selects no kernel of A";
        QTest::newRow("range without kernels") << QStringList {fixture("recorder/sessions/gemm_relu.wscope"),
            fixture("recorder/sessions/gemm_relu.wscope"), QStringLiteral("--range"), QStringLiteral("nope")}
                                               << "NVTX range 'nope' launched no kernels";
    }

    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = cli(args);
        QVERIFY2(r.exitCode == 2, qPrintable(QString::number(r.exitCode) + r.out + r.err));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(r.err.startsWith(QStringLiteral("warpscope-cli compare: ")), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    }

    void formats()
    {
        QTemporaryDir dir;
        const QString a = benchSession(dir.path(), QStringLiteral("a.wscope"), 1.0);
        const QString b = benchSession(dir.path(), QStringLiteral("b.wscope"), 1.05);
        Run r = cli({a, b, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 1);
        const auto o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("verdict")).toString(), QStringLiteral("slower"));
        QCOMPARE(o.value(QStringLiteral("regression")).toBool(), true);
        const auto latency = o.value(QStringLiteral("latency")).toObject();
        QVERIFY(std::fabs(latency.value(QStringLiteral("change_pct")).toDouble() - 5.0) < 0.2);
        QCOMPARE(latency.value(QStringLiteral("n_a")).toInt(), 200);
        QCOMPARE(latency.value(QStringLiteral("threshold_pct")).toDouble(), 2.0);
        QVERIFY(latency.value(QStringLiteral("ci_low")).toDouble() > 1.0);
        r = cli({a, b, QStringLiteral("--format"), QStringLiteral("csv")});
        QCOMPARE(r.exitCode, 1);
        const QStringList lines = r.out.split(QLatin1Char('\n'));
        QVERIFY2(lines[0].startsWith(QStringLiteral("Verdict,Source,Change (%)")), qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith(QStringLiteral("slower,benchmark runs,5.0,")), qPrintable(lines[1]));
        QVERIFY(r.out.contains(QStringLiteral("Run B,Run A,Verdict")));
    }

    void realRecordings()
    {
        // The H200 recording against itself: no change, every kernel matched exactly.
        const QString rec = fixture("recorder/sessions/gemm_relu.wscope");
        Run r = cli({rec, rec});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY(r.out.contains(QStringLiteral("Verdict: no significant change (+0.0%)")));
        QVERIFY(r.out.contains(QStringLiteral("timed loop / relu")));
        QVERIFY(!r.out.contains(QStringLiteral("only A")));
        // Against its profiled run: matched by name (the profile has no NVTX), B 2.0% slower per
        // iteration under the profiler (95% CI 1.8-2.5%): a regression at a 1% threshold, none at 5%.
        const QString prof = fixture("metrics/gemm_relu.wscope");
        r = cli({rec, prof, QStringLiteral("--threshold"), QStringLiteral("1")});
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
        QVERIFY(r.out.contains(QStringLiteral("note: B has no NVTX paths")));
        r = cli({rec, prof, QStringLiteral("--threshold"), QStringLiteral("5")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QStringLiteral("no significant change (+2.0%)")), qPrintable(r.out));
        // Iterations of a range: each "gemm" instance.
        r = cli({rec, rec, QStringLiteral("--range"), QStringLiteral("gemm")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("each of the 24 instances of NVTX range 'gemm'")), qPrintable(r.out));
    }

    void h200Pairs_data()
    {
        // Pairs recorded on the H200 by scripts/h200/compare-device.sh (tests/fixtures/compare).
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("verdict");
        QTest::newRow("fused epilogue") << "rec-separate"
                                        << "rec-fused" << 0 << "Verdict: B is 21.4% faster";
        QTest::newRow("fused epilogue, reversed") << "rec-fused"
                                                  << "rec-separate" << 1 << "Verdict: B is 27.3% slower";
        QTest::newRow("relu 1024 threads") << "rec-relu256"
                                           << "rec-relu1024" << 1 << "Verdict: B is 4.0% slower";
        QTest::newRow("profiled, fused") << "prof-separate"
                                         << "prof-fused" << 0 << "Verdict: B is 19.9% faster";
        QTest::newRow("bench null pair") << "bench-gemm-a"
                                         << "bench-gemm-b" << 0 << "Verdict: no significant change (+0.4%)";
        QTest::newRow("bench gemm+relu") << "bench-gemm-a"
                                         << "bench-gemm-relu" << 1 << "Verdict: B is 21.5% slower";
    }

    void h200Pairs()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, exitCode);
        QFETCH(QString, verdict);
        const QString dir = fixture("compare/");
        const Run r = cli({dir + a + QStringLiteral(".wscope"), dir + b + QStringLiteral(".wscope")});
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(verdict), qPrintable(r.out));
    }

    void h200FusedMatching()
    {
        // The GEMM changes name when cuBLASLt fuses the ReLU (..._coopA_NNT -> ..._coopA_relu_NNT):
        // paired by NVTX path in the recordings, by similar name in the profiles (no NVTX there);
        // the ReLU kernel is listed as only in A.
        const QString dir = fixture("compare/");
        Run r = cli({dir + QStringLiteral("rec-separate.wscope"), dir + QStringLiteral("rec-fused.wscope"),
            QStringLiteral("--format"), QStringLiteral("json")});
        auto kernels = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("kernels")).toArray();
        int path = 0, onlyA = 0;
        for (const auto& k : kernels) {
            const auto o = k.toObject();
            if (o.value(QStringLiteral("match")).toString() == QStringLiteral("path")) {
                ++path;
                QVERIFY(o.value(QStringLiteral("name")).toString().contains(QStringLiteral("relu_NNT")));
                QVERIFY(o.value(QStringLiteral("name_a")).toString().endsWith(QStringLiteral("coopA_NNT")));
            }
            if (o.value(QStringLiteral("match")).toString() == QStringLiteral("only_a")) {
                ++onlyA;
                QVERIFY(o.value(QStringLiteral("name")).toString().contains(QStringLiteral("relu_kernel")));
            }
        }
        QCOMPARE(path, 3);  // check, warmup, timed loop
        QCOMPARE(onlyA, 3); // the ReLU in the same three ranges
        r = cli({dir + QStringLiteral("prof-separate.wscope"), dir + QStringLiteral("prof-fused.wscope"),
            QStringLiteral("--predict"), QStringLiteral("latency:down:15"), QStringLiteral("--predict"),
            QStringLiteral("time@relu_kernel:down"), QStringLiteral("--predict"),
            QStringLiteral("dram__bytes_write.sum:down"), QStringLiteral("--predict"),
            QStringLiteral("gpu__time_duration.sum@nvjet:up")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral(" similar ")));
        QVERIFY(r.out.contains(QStringLiteral("latency:down:15%: held (latency -19.9%")));
        QVERIFY(r.out.contains(QStringLiteral("time@relu_kernel:down: held")));
        QVERIFY(r.out.contains(QStringLiteral("dram__bytes_write.sum:down: held (dram__bytes_write.sum -32.7%")));
        QVERIFY(r.out.contains(QStringLiteral("gpu__time_duration.sum@nvjet:up: did not hold")));
        // A user pair overrides: pairing the ReLU with the fused GEMM leaves A's GEMM unmatched.
        r = cli({dir + QStringLiteral("prof-separate.wscope"), dir + QStringLiteral("prof-fused.wscope"),
            QStringLiteral("--pair"), QStringLiteral("relu_kernel=relu_NNT"), QStringLiteral("--format"),
            QStringLiteral("csv")});
        QVERIFY2(r.out.contains(QStringLiteral(",user,6,6,")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("coopA_NNT,,only A,6,0")));
    }

    void pinnedBaselines()
    {
        // Two GEMM runs as baselines (186.3 and 187.0 us): the GEMM+ReLU median is many
        // standard deviations away from them.
        const QString dir = fixture("compare/");
        const Run r = cli({dir + QStringLiteral("bench-gemm-a.wscope"), dir + QStringLiteral("bench-gemm-relu.wscope"),
            QStringLiteral("--baseline"), dir + QStringLiteral("bench-gemm-b.wscope"), QStringLiteral("--format"),
            QStringLiteral("json")});
        QCOMPARE(r.exitCode, 1);
        const auto o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("extra_baselines")).toArray().size(), 1);
        const double z = o.value(QStringLiteral("latency_z")).toDouble();
        // (226.32 - mean(186.32, 186.976)) / sd(186.32, 186.976) = 39.67 / 0.4639 = 85.5
        QVERIFY2(z > 80 && z < 90, qPrintable(QString::number(z)));
    }

    void predictionsStoredInB()
    {
        QTemporaryDir dir;
        const QString a = benchSession(dir.path(), QStringLiteral("a.wscope"), 1.0);
        const QString b = benchSession(dir.path(), QStringLiteral("b.wscope"), 0.9);
        Run r = cli({a, b, QStringLiteral("--predict"), QStringLiteral("latency:down:8%"), QStringLiteral("--predict"),
            QStringLiteral("latency:down:40%"), QStringLiteral("--save-predictions")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains(QStringLiteral("saved 2 prediction(s)")));
        QVERIFY2(r.out.contains(QStringLiteral("latency:down:8%: held (latency -10.0%, predicted -8.0%, significant)")),
            qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("latency:down:40%: did not hold")));
        // Stored in B: a later compare checks them without --predict; B still reads as a session.
        const SessionReader reader(b.toStdString());
        QVERIFY(reader.meta().count("compare.hypotheses"));
        r = cli({a, b});
        QVERIFY(r.out.contains(QStringLiteral("latency:down:8%: held")));
        r = cli({a, b, QStringLiteral("--ignore-stored")});
        QVERIFY(!r.out.contains(QStringLiteral("Hypotheses")));
    }
};

QTEST_GUILESS_MAIN(TestCompareCli)
#include "tst_compare_cli.moc"

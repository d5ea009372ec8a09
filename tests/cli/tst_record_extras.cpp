// SPDX-License-Identifier: MIT
// `warpscope-cli record --gpu-metrics / --nvtx-timing` and `stats --report nvtx_timing_sum`
// through the real CLI (WS_CLI_PATH), without a GPU: refused option values exit non-zero with
// one line naming the option; the options do not swallow the program; where the injection
// library and the host-only NVTX example were built, --nvtx-timing follows NVTX through the
// injection library and reports the instances it could not time (no CUDA context here).
#include "clirun.h"
#include "core/store/sessionreader.h"

#include <QtTest>

using namespace ws;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args);
}

using ws::test::nvtxExample;
using ws::test::nvtxRecordable;

} // namespace

class TestRecordExtras : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void refused_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("message");
        QTest::newRow("period 0") << QStringList {"--gpu-metrics", "--gpu-metrics-period", "0"}
                                  << QStringLiteral("0 us is outside 1 .. 100000 us");
        QTest::newRow("period too long") << QStringList {"--gpu-metrics", "--gpu-metrics-period", "200000"}
                                         << QStringLiteral("200000 us is outside 1 .. 100000 us");
        QTest::newRow("period not a number")
            << QStringList {"--gpu-metrics-period", "fast"} << QStringLiteral("--gpu-metrics-period");
        QTest::newRow("empty range name")
            << QStringList {"--nvtx-timing", ""} << QStringLiteral("--nvtx-timing: the range name is empty");
        QTest::newRow("range twice") << QStringList {"--nvtx-timing", "step", "--nvtx-timing", "step"}
                                     << QStringLiteral("--nvtx-timing: 'step' is given twice");
    }
    void refused()
    {
        QFETCH(QStringList, options);
        QFETCH(QString, message);
        const QString out = m_dir.filePath(QStringLiteral("refused.wscope"));
        const Run r = cli(QStringList {QStringLiteral("record"), QStringLiteral("-o"), out} + options
            + QStringList {QStringLiteral("--"), QStringLiteral("true")});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(out));
    }

    void optionsDoNotSwallowTheProgram()
    {
        // No "--": the value after --nvtx-timing is its one name; the program follows.
        const QString out = m_dir.filePath(QStringLiteral("echo.wscope"));
        const Run r = cli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--nvtx-timing"),
            QStringLiteral("step"), QStringLiteral("--gpu-metrics"), QStringLiteral("echo"),
            QStringLiteral("hello-extras")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("hello-extras")), qPrintable(r.out + r.err));
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.meta.at("record.nvtx_timing"), std::string("step"));
        QCOMPARE(s.meta.at("record.gpu_metrics"), std::string("200 us")); // the default period (issue 23)
        if (s.meta.at("host_only") == "1")
            QVERIFY2(r.err.contains(QStringLiteral("--gpu-metrics needs a CUDA driver and GPU")), qPrintable(r.err));
    }

    void nvtxTimingWithoutContext()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        const QString out = m_dir.filePath(QStringLiteral("nvtx.wscope"));
        const Run r = cli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--trace"),
            QStringLiteral("nvtx"), QStringLiteral("--nvtx-timing"), QStringLiteral("inner"),
            QStringLiteral("--nvtx-timing"), QStringLiteral("cross-thread"), QStringLiteral("--"), nvtxExample()});
        QCOMPARE(r.exitCode, 0);
        const SessionData s = SessionReader(out.toStdString()).readAll();
        if (s.meta.at("host_only") == "0")
            QSKIP("a GPU is usable here: tests/gpu/tst_record_extras_gpu covers timed instances");
        // Every instance was seen through the NVTX injection and reported as not timed.
        QVERIFY2(r.err.contains(QStringLiteral("NVTX timing of 'inner'")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("6 instance(s) not timed: no CUDA context")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("1 instance(s) not timed")), qPrintable(r.err));
        QCOMPARE(s.benchRuns.size(), size_t(2));

        const Run stats = cli({QStringLiteral("stats"), out, QStringLiteral("--report"),
            QStringLiteral("nvtx_timing_sum"), QStringLiteral("-f"), QStringLiteral("csv")});
        QCOMPARE(stats.exitCode, 0);
        const QStringList lines = stats.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        QCOMPARE(
            lines[0], QStringLiteral("Range,Instances,Med (ns),Avg (ns),Min (ns),Max (ns),StdDev (ns),CoV (%),Timer"));
        QVERIFY(lines[1].startsWith(QStringLiteral("cross-thread,0,")));
        QVERIFY(lines[2].startsWith(QStringLiteral("inner,0,")));
    }

    void statsListsTheReport()
    {
        const Run r = cli({QStringLiteral("stats"), QStringLiteral("--help")});
        QVERIFY2(r.out.contains(QStringLiteral("nvtx_timing_sum")), qPrintable(r.out));
    }
};

QTEST_GUILESS_MAIN(TestRecordExtras)
#include "tst_record_extras.moc"

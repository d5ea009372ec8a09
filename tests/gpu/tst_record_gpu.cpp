// SPDX-License-Identifier: MIT
// `warpscope-cli record` on a real GPU (label `gpu`, run by scripts/gpu-tests.sh): the example
// programs recorded through CUPTI, checked against what they do. Skips, saying why, where no
// NVIDIA GPU is present (decided up front, tests/support/gpuprobe.h) or the examples were not
// built; on a GPU machine a recording without the GPU, or a failed record, is a failure.
#include "core/store/sessionreader.h"
#include "gpuprobe.h"

#include <QtTest>

#include <map>
#include <set>

using namespace ws;

namespace {

struct Run {
    int exitCode = -1;
    QString err;
};

Run cli(const QStringList& args)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedOutputChannel);
    p.start(QStringLiteral(WS_CLI_PATH), args);
    Run r;
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QString example(const char* name)
{
    return QStringLiteral(WS_BUILD_DIR "/bin/") + QLatin1String(name);
}

std::map<std::string, int> kernelCounts(const SessionData& s)
{
    std::map<std::string, int> n;
    for (const auto& k : s.kernels)
        ++n[s.str(k.shortName)];
    return n;
}

} // namespace

class TestRecordGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Records `command` into `s`. initTestCase made sure a GPU is present, so a failed record or
    // a host-only recording (the recorder found no usable device) is a failure, not a skip.
    void record(SessionData& s, const QString& name, const QStringList& options, const QStringList& command)
    {
        const QString out = m_dir.filePath(name);
        const Run r = cli(QStringList {QStringLiteral("record"), QStringLiteral("-o"), out} + options
            + QStringList {QStringLiteral("--")} + command);
        QVERIFY2(r.exitCode == 0, qPrintable(QStringLiteral("record failed: ") + r.err));
        s = SessionReader(out.toStdString()).readAll();
        QVERIFY2(s.meta.at("host_only") == "0",
            qPrintable(QStringLiteral("a GPU is present but the recording is host-only: ")
                + QString::fromStdString(s.meta.at("gpu_status"))));
    }

private slots:
    void initTestCase()
    {
        if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        for (const char* name : {"ws-example-gemm-relu", "ws-example-graphs", "ws-example-launch-bound"})
            WS_REQUIRE_CUDA_PROGRAM(example(name));
    }

    void gemmRelu()
    {
        SessionData s;
        record(s, QStringLiteral("gemm.wscope"), {},
            {example("ws-example-gemm-relu"), QStringLiteral("--iters"), QStringLiteral("10")});
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(s.processes[0].exitCode, 0);
        const auto k = kernelCounts(s);
        QCOMPARE(k.at("relu_kernel"), 14); // check + 3 warm-up + 10 timed
        QCOMPARE(k.at("fill_kernel"), 2);
        int gemms = 0;
        for (const auto& [name, n] : k)
            if (name != "relu_kernel" && name != "fill_kernel")
                gemms += n;
        QCOMPARE(gemms, 14);
        QCOMPARE(s.meta.at("kernels_joined_to_api"), std::to_string(s.kernels.size()));
        QCOMPARE(s.meta.at("dropped_records"), std::string("0"));
        QCOMPARE(s.devices.size(), size_t(1));
        QVERIFY(s.devices[0].smCount > 0);
        QVERIFY(s.devices[0].dramBandwidthBytesPerS > 0);
        int gemmRanges = 0;
        for (const auto& r : s.nvtxRanges)
            gemmRanges += s.str(r.name) == "gemm" ? 1 : 0;
        QCOMPARE(gemmRanges, 14);
    }

    void graphs()
    {
        SessionData s;
        record(s, QStringLiteral("graphs.wscope"), {}, {example("ws-example-graphs")});
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(s.kernels.size(), size_t(20));
        for (const auto& k : s.kernels)
            QVERIFY(k.graphId != 0 && k.graphNodeId != 0);
    }

    void captureRangeCudaProfilerApi()
    {
        // Activity switched on at cudaProfilerStart, mid-run: API calls must still be there.
        SessionData s;
        record(s, QStringLiteral("capture.wscope"), {QStringLiteral("--capture-range=cudaProfilerApi")},
            {example("ws-example-gemm-relu"), QStringLiteral("--iters"), QStringLiteral("5")});
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(s.kernels.size(), size_t(10));
        QCOMPARE(s.meta.at("kernels_joined_to_api"), std::string("10"));
    }

    void hundredThousandLaunches()
    {
        SessionData s;
        record(s, QStringLiteral("launch.wscope"), {},
            {example("ws-example-launch-bound"), QStringLiteral("--launches"), QStringLiteral("100000")});
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.kernels.size(), size_t(101000));
        QCOMPARE(s.meta.at("dropped_records"), std::string("0"));
        QCOMPARE(s.meta.at("processes_without_end_record"), std::string());
    }
};

QTEST_GUILESS_MAIN(TestRecordGpu)
#include "tst_record_gpu.moc"

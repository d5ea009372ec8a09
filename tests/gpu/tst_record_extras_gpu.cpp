// SPDX-License-Identifier: MIT
// `record --nvtx-timing` and `record --gpu-metrics` on a real GPU (label `gpu`): the recorder's
// per-instance GPU-stream time of the NVTX range "step" against the events ws-example-nvtx-timing
// places around the same work itself (median within 1 %), and PM sampling counter tracks at the
// requested period. Skips, saying why, without a GPU (decided up front, tests/support/gpuprobe.h),
// without the example, or where the sampler itself says this device or user cannot sample (no PM
// sampling API, device not supported, no counter permission). Zero samples otherwise fail.
#include "clirun.h"
#include "core/analysis/nvtxtimingreport.h"
#include "core/store/sessionreader.h"
#include "gpuprobe.h"

#include <QtTest>

#include <algorithm>

using namespace ws;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args, 300000);
}

QString example()
{
    return QStringLiteral(WS_BUILD_DIR "/bin/ws-example-nvtx-timing");
}

} // namespace

class TestRecordExtrasGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        WS_REQUIRE_CUDA_PROGRAM(example());
    }

    void nvtxTimingMatchesTheProgramsEvents()
    {
        const QString out = m_dir.filePath(QStringLiteral("timing.wscope"));
        const Run r = cli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--nvtx-timing"),
            QStringLiteral("step"), QStringLiteral("--"), example()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const SessionReader reader(out.toStdString());
        QVERIFY2(reader.meta().at("host_only") == "0",
            qPrintable(QStringLiteral("a GPU is present but the recording is host-only: ")
                + QString::fromStdString(reader.meta().at("gpu_status"))));
        const QRegularExpressionMatch m
            = QRegularExpression(QStringLiteral("step_event_median_ms=([0-9.]+)")).match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        const double own = m.captured(1).toDouble() * 1e6;
        const ReportTable t = nvtxTimingSum(reader);
        QCOMPARE(t.rows.size(), size_t(1));
        QCOMPARE(std::get<int64_t>(t.rows[0][1]), int64_t(30));
        const double median = std::get<double>(t.rows[0][2]);
        qInfo("recorder median %.0f ns, program's own events %.0f ns (%+.3f %%)", median, own,
            (median - own) / own * 100);
        QVERIFY(std::abs(median - own) / own < 0.01);
    }

    void gpuMetricsTracks()
    {
        const QString out = m_dir.filePath(QStringLiteral("pm.wscope"));
        const Run r = cli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--gpu-metrics"),
            QStringLiteral("--gpu-metrics-period"), QStringLiteral("20"), QStringLiteral("--"), example(),
            QStringLiteral("--iters"), QStringLiteral("10")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QVERIFY2(s.meta.at("host_only") == "0",
            qPrintable(QStringLiteral("a GPU is present but the recording is host-only: ")
                + QString::fromStdString(s.meta.at("gpu_status"))));
        if (const QString why = ws::test::pmSamplingUnavailable(r.err); !why.isEmpty() && s.counterSamples.empty())
            QSKIP(qPrintable(QStringLiteral("PM sampling unavailable here: ") + why));
        QVERIFY2(!s.counterSamples.empty(), qPrintable(QStringLiteral("no counter samples: ") + r.err));
        QCOMPARE(s.counterTracks.size(), size_t(3));
        std::vector<TimeNs> ts;
        for (const auto& c : s.counterSamples)
            if (c.trackId == s.counterTracks[0].id)
                ts.push_back(c.ts);
        QVERIFY(ts.size() > 100);
        std::vector<TimeNs> gaps;
        for (size_t i = 1; i < ts.size(); ++i)
            gaps.push_back(ts[i] - ts[i - 1]);
        std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
        const TimeNs period = gaps[gaps.size() / 2];
        qInfo("%zu samples per track, median period %lld ns", ts.size(), static_cast<long long>(period));
        QVERIFY(period > 18'000 && period < 22'000);
    }
};

QTEST_GUILESS_MAIN(TestRecordExtrasGpu)
#include "tst_record_extras_gpu.moc"

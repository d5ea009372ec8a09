// SPDX-License-Identifier: MIT
// `warpscope-cli info` on a `record --gpu-metrics` session (issue 23): the GPU metrics section
// says how much of the kernel span the samples cover, how many gaps there are, how long, where
// and why, and how fast sampling stopped. The session is a hand-built raw file (samples with a
// reported overflow gap and a hole during a kernel) through the real RawIngest and SessionWriter.
#include "clirun.h"
#include "core/ingest/rawingest.h"
#include "core/raw/pmsampling.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QtTest>

using namespace ws;

namespace {

std::string rawFile()
{
    raw::FileHeader h {};
    std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(h);
    h.pid = 300;
    h.parentPid = 1;
    std::string b(reinterpret_cast<const char*>(&h), sizeof(h));
    for (uint32_t i = 0; i < std::size(raw::kPmMetrics); ++i)
        raw::appendFrame(b, raw::RecordType::PmMetric, raw::PmMetricRecord {0, i, 20'000}, raw::kPmMetrics[i].name);
    const auto samples = [&b](int64_t from, int64_t to) {
        for (int64_t t = from; t + 20'000 <= to; t += 20'000) {
            const double v[3] = {90, 20, 30};
            raw::appendFrame(b, raw::RecordType::PmSample, raw::PmSampleRecord {t, t + 20'000, 0, 3},
                std::string_view(reinterpret_cast<const char*>(v), sizeof v));
        }
    };
    samples(1'000'000, 2'000'000);
    samples(2'500'000, 3'000'000); // 2.0 .. 2.5 ms: found during the kernel
    samples(4'000'000, 5'000'000); // 3.0 .. 4.0 ms: reported overflow
    raw::appendFrame(
        b, raw::RecordType::PmGap, raw::PmGapRecord {3'000'000, 4'000'000, 0, uint32_t(raw::PmGapReason::Overflow)});
    raw::appendFrame(b, raw::RecordType::String, raw::StringDef {1, 0}, std::string_view("nvjet_gemm"));
    raw::KernelRecord k {};
    k.start = 1'100'000;
    k.end = 4'900'000;
    k.name = 1;
    k.correlationId = 1;
    raw::appendFrame(b, raw::RecordType::Kernel, k);
    const auto env = [&b](uint32_t key, const char* ks, uint32_t val, const char* vs) {
        raw::appendFrame(b, raw::RecordType::String, raw::StringDef {key, 0}, std::string_view(ks));
        raw::appendFrame(b, raw::RecordType::String, raw::StringDef {val, 0}, std::string_view(vs));
        raw::appendFrame(b, raw::RecordType::Environment, raw::EnvironmentRecord {key, val});
    };
    env(10, "gpu_metrics.stop_latency_ms", 11, "0.350");
    env(12, "gpu_metrics.drain_ms", 13, "4.100");
    raw::appendFrame(b, raw::RecordType::End, raw::EndRecord {});
    return b;
}

} // namespace

class TestInfoGpuMetrics : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void gapsAndCoverage()
    {
        RawIngest in;
        in.addFile(raw::RawFile::fromBytes(rawFile(), "ws-300.raw"));
        const SessionData s = in.finish();
        const QString path = m_dir.filePath(QStringLiteral("pm.wscope"));
        {
            SessionWriter w(path.toStdString());
            attachLaneCache(w);
            w.write(s);
            w.commit();
        }
        const ws::test::CliRun r = ws::test::runCli({QStringLiteral("info"), path});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString out = r.out;
        // The first sample is dropped: 49 + 25 + 50 = 124 samples; the kernel span 1.1 .. 4.9 ms
        // (3.8 ms) is covered but for 2.0-2.5 and 3.0-4.0 ms: 2.3 / 3.8 = 60.53 %.
        QVERIFY2(out.contains(QStringLiteral("GPU metrics\n  124 samples per track, every 20 us; they cover 60.53 % "
                                             "of the kernel span (3.800 ms)")),
            qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("2 gap(s) without samples, 1.500 ms in all (longest 1.000 ms): hardware "
                                             "buffer overflow, samples missing from the hardware buffer")),
            qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("sampling stopped 0.350 ms after the program's end")), qPrintable(out));
        // Where: the longest first, relative to the session start (the kernel, 1.1 ms).
        const qsizetype first = out.indexOf(QStringLiteral("gap: pid 300 GPU 0  +1.900 ms .. +2.900 ms  (1.000 ms)  "
                                                           "hardware buffer overflow"));
        const qsizetype second = out.indexOf(QStringLiteral("gap: pid 300 GPU 0  +900.000 us .. +1.400 ms  (500.000 "
                                                            "us)  samples missing from the hardware buffer"));
        QVERIFY2(first > 0 && second > first, qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestInfoGpuMetrics)
#include "tst_info_gpu_metrics.moc"

// SPDX-License-Identifier: MIT
// `record --gpu-metrics` on a longer program (issue 23), on a real GPU (label `gpu`):
// ws-example-gpu-mix runs over 5 s of GPU work of four kinds (cuBLAS GEMMs, a 1 GiB copy, a
// pointer chase, a transpose). The counter tracks must cover >= 99 % of the span from the first
// kernel's start to the last kernel's end, each long kernel's samples must show its character
// (tensor pipe busy during GEMMs, DRAM throughput high during the copy, both idle during the
// chase), the sampler must stop within 100 ms of the program's end with no idle samples after
// it, and any gap must be reported (meta gpu_metrics.gaps) -- the coverage here is computed from
// the samples themselves, not taken from that meta. Skips without a GPU, without the example,
// or where the sampler says this device or user cannot sample.
#include "clirun.h"
#include "core/store/sessionreader.h"
#include "gpuprobe.h"

#include <QtTest>

#include <algorithm>
#include <numeric>

using namespace ws;

namespace {

QString example()
{
    return QStringLiteral(WS_BUILD_DIR "/bin/ws-example-gpu-mix");
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

} // namespace

class TestGpuMetricsGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    SessionData m_session;
    QString m_err;
    double m_wallS = 0;

    std::vector<std::pair<TimeNs, double>> track(const std::string& name) const
    {
        std::vector<std::pair<TimeNs, double>> out;
        for (const auto& t : m_session.counterTracks)
            if (t.name == name)
                for (const auto& c : m_session.counterSamples)
                    if (c.trackId == t.id)
                        out.emplace_back(c.ts, c.value);
        std::sort(out.begin(), out.end());
        return out;
    }
    uint64_t period() const { return std::stoull(m_session.meta.at("gpu_metrics.period_ns")); }

    // Mean of a track over the samples lying wholly inside kernels whose name contains one of `keys`.
    std::pair<double, size_t> meanInside(const std::string& trackName, std::initializer_list<const char*> keys) const
    {
        std::vector<std::pair<TimeNs, TimeNs>> ks;
        for (const auto& k : m_session.kernels) {
            const std::string n = lower(m_session.str(k.shortName) + " " + m_session.str(k.demangledName));
            for (const char* key : keys)
                if (n.find(key) != std::string::npos) {
                    ks.emplace_back(k.start, k.end);
                    break;
                }
        }
        std::sort(ks.begin(), ks.end());
        double sum = 0;
        size_t n = 0;
        const auto p = static_cast<TimeNs>(period());
        for (const auto& [ts, v] : track(trackName)) {
            auto it = std::upper_bound(ks.begin(), ks.end(), std::make_pair(ts, INT64_MAX));
            if (it == ks.begin())
                continue;
            --it;
            if (ts >= it->first && ts + p <= it->second) {
                sum += v;
                ++n;
            }
        }
        return {n ? sum / double(n) : 0.0, n};
    }

private slots:
    void initTestCase()
    {
        if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        if (!QFileInfo::exists(example()))
            QSKIP("ws-example-gpu-mix was not built (no nvcc)");
        const QString out = m_dir.filePath(QStringLiteral("mix.wscope"));
        QElapsedTimer wall;
        wall.start();
        const ws::test::CliRun r
            = ws::test::runCli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--gpu-metrics"),
                                   QStringLiteral("--"), example(), QStringLiteral("--seconds"), QStringLiteral("1.5")},
                300000);
        m_wallS = double(wall.elapsed()) / 1000;
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        m_err = r.err;
        m_session = SessionReader(out.toStdString()).readAll();
        QVERIFY2(m_session.meta.at("host_only") == "0", "a GPU is present but the recording is host-only");
        if (const QString why = ws::test::pmSamplingUnavailable(r.err);
            !why.isEmpty() && m_session.counterSamples.empty())
            QSKIP(qPrintable(QStringLiteral("PM sampling unavailable here: ") + why));
        QVERIFY2(!m_session.counterSamples.empty(), qPrintable(QStringLiteral("no counter samples: ") + r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("did not finish")), qPrintable(r.err));
        qInfo("record took %.1f s; %zu kernels; %zu counter samples", m_wallS, m_session.kernels.size(),
            m_session.counterSamples.size());
        for (const QString& line : r.err.split(QLatin1Char('\n')))
            if (line.contains(QStringLiteral("GPU metrics")))
                qInfo("%s", qPrintable(line));
    }

    void coversTheKernelSpan()
    {
        TimeNs k0 = INT64_MAX, k1 = INT64_MIN;
        for (const auto& k : m_session.kernels) {
            k0 = std::min(k0, k.start);
            k1 = std::max(k1, k.end);
        }
        QVERIFY(k1 - k0 > 5'000'000'000); // over 5 s of GPU work
        const auto samples = track("Tensor pipe active");
        const auto p = static_cast<TimeNs>(period());
        // Each sample holds until the next one when that follows within 1.5 periods.
        TimeNs covered = 0, reached = k0, longest = 0, gapStart = k0;
        for (size_t i = 0; i < samples.size(); ++i) {
            const TimeNs t = samples[i].first;
            const bool close = i + 1 < samples.size() && samples[i + 1].first - t <= p + p / 2;
            const TimeNs end = close ? samples[i + 1].first : t + p;
            const TimeNs from = std::max({t, k0, reached}), to = std::min(end, k1);
            if (to > from) {
                longest = std::max(longest, from - gapStart);
                covered += to - from;
                reached = to;
                gapStart = to;
            }
        }
        longest = std::max(longest, k1 - gapStart);
        const double pct = 100.0 * double(covered) / double(k1 - k0);
        qInfo("coverage %.3f %% of %.1f ms; longest stretch without samples %.3f ms; reported gaps %s (%s ns)", pct,
            double(k1 - k0) / 1e6, double(longest) / 1e6, m_session.meta.at("gpu_metrics.gaps").c_str(),
            m_session.meta.at("gpu_metrics.gap_ns").c_str());
        QVERIFY2(pct >= 99.0, qPrintable(QString::number(pct)));
        // Whatever is missing is reported: a stretch of more than two periods without samples
        // inside the span means a reported gap.
        if (longest > 2 * p)
            QVERIFY(std::stoll(m_session.meta.at("gpu_metrics.gaps")) > 0);
    }

    void kernelsShowTheirCharacter()
    {
        const auto [gemmTensor, gemmN] = meanInside("Tensor pipe active", {"gemm", "nvjet", "xmma", "cutlass"});
        const auto [copyDram, copyN] = meanInside("DRAM throughput", {"ws_copy"});
        const auto [copyTensor, copyTN] = meanInside("Tensor pipe active", {"ws_copy"});
        const auto [chaseDram, chaseN] = meanInside("DRAM throughput", {"ws_chase"});
        const auto [chaseWarps, chaseWN] = meanInside("Warps active", {"ws_chase"});
        const auto [trDram, trN] = meanInside("DRAM throughput", {"ws_transpose"});
        qInfo("GEMM: tensor %.1f %% (%zu samples); copy: DRAM %.1f %%, tensor %.1f %% (%zu); chase: DRAM %.2f %%, "
              "warps %.2f %% (%zu); transpose: DRAM %.1f %% (%zu)",
            gemmTensor, gemmN, copyDram, copyTensor, copyN, chaseDram, chaseWarps, chaseN, trDram, trN);
        QVERIFY(gemmN > 1000 && copyN > 1000 && chaseN > 1000 && trN > 1000);
        QVERIFY(gemmTensor > 50);
        QVERIFY(copyDram > 50);
        QVERIFY(copyTensor < 1);
        QVERIFY(chaseDram < 10 && chaseWarps < 5);
        QVERIFY(trDram > 20);
        (void)copyTN;
        (void)chaseWN;
    }

    void stopsPromptly()
    {
        const auto& env = m_session.environment;
        QVERIFY(env.count("gpu_metrics.stop_latency_ms"));
        const double stop = std::stod(env.at("gpu_metrics.stop_latency_ms"));
        const double drain = std::stod(env.at("gpu_metrics.drain_ms"));
        TimeNs lastKernel = INT64_MIN;
        for (const auto& k : m_session.kernels)
            lastKernel = std::max(lastKernel, k.end);
        const auto samples = track("DRAM throughput");
        const double tailMs = double(samples.back().first - lastKernel) / 1e6;
        qInfo("stop latency %.3f ms, drain %.3f ms, last sample %.3f ms after the last kernel's end", stop, drain,
            tailMs);
        QVERIFY(stop <= 100);
        QVERIFY(tailMs <= 100);
        QVERIFY(drain <= 1000);
    }
};

QTEST_GUILESS_MAIN(TestGpuMetricsGpu)
#include "tst_gpu_metrics_gpu.moc"

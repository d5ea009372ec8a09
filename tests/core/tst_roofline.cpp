// SPDX-License-Identifier: MIT
// Roofline (core/roofline): ceilings from a real H200 device record, point coordinates from
// metrics worked out by hand (including ncu's per-cycle counter form), and the reasons a kernel
// gets no point.
#include "core/analysis/sessionfilesource.h"
#include "core/roofline/roofline.h"
#include "core/store/sessionreader.h"

#include <map>

#include <QtTest>

using namespace ws;

namespace {

// One kernel's stored metric values read row by row from the store, independent of SessionMetrics.
class StoredMetrics {
public:
    StoredMetrics(const std::string& path, qint64 kernel)
    {
        const SessionReader reader(path);
        std::map<uint32_t, std::string> names;
        for (const MetricDef& d : reader.readMetricDefs())
            names[d.id] = d.name;
        reader.forEachRow<KernelMetric>([&](const KernelMetric& m) {
            if (m.kernelId == kernel)
                m_values[names.at(m.metricId)] = m.value;
        });
    }
    double value(const std::string& name) const { return m_values.at(name); }

private:
    std::map<std::string, double> m_values;
};

DeviceInfo h200()
{
    const SessionReader reader(std::string(WS_FIXTURES_DIR) + "/recorder/sessions/gemm_relu.wscope");
    const auto devices = reader.readDevices();
    return devices.at(0);
}

} // namespace

class TestRoofline : public QObject {
    Q_OBJECT
private slots:
    void ceilingsFromH200Record()
    {
        const DeviceInfo d = h200();
        QCOMPARE(QString::fromStdString(d.name), QStringLiteral("NVIDIA H200"));
        const RooflineCeilings c = RooflineCeilings::fromDevice(d);
        // The recorder's H200 record: FP8 2.14e15, BF16 = FP16 1.07e15, TF32 5.35e14, FP32 6.69e13,
        // FP64 3.35e13; DRAM 4.81e12 B/s, L1 3.35e13 B/s, and no L2 figure.
        QCOMPARE(c.compute.size(), size_t {6});
        QCOMPARE(QString::fromStdString(c.compute.front().precision), QStringLiteral("tensor_fp8"));
        QCOMPARE(c.compute.front().flopsPerS, d.peakFp8TensorFlopsPerS);
        QCOMPARE(*c.peakFor("fp32"), d.peakFp32FlopsPerS);
        QCOMPARE(*c.peakFor("tensor_bf16"), d.peakBf16TensorFlopsPerS);
        QCOMPARE(*c.peakFor("tensor"), d.peakBf16TensorFlopsPerS);
        QVERIFY(!c.peakFor("fp16")); // no CUDA-core FP16 peak in the record: no roof
        QCOMPARE(*c.bandwidthOf(MemoryLevel::Dram), d.dramBandwidthBytesPerS);
        QCOMPARE(*c.bandwidthOf(MemoryLevel::L1), d.l1BandwidthBytesPerS);
        QVERIFY(!c.bandwidthOf(MemoryLevel::L2));
        QVERIFY(c.missing == std::vector<std::string> {"L2 bandwidth"});
        for (std::size_t i = 1; i < c.compute.size(); ++i)
            QVERIFY(c.compute[i - 1].flopsPerS >= c.compute[i].flopsPerS);
    }

    void pointsByHand()
    {
        DeviceInfo d = h200();
        d.l2BandwidthBytesPerS = 12e12; // give L2 a roof so all three levels have one
        const RooflineCeilings c = RooflineCeilings::fromDevice(d);
        KernelMetrics m;
        // 2 ms; FP32: 1e9 fadd + 1e9 fmul + 4e9 ffma = 1e9 + 1e9 + 8e9 = 1e10 FLOP.
        m.set("gpu__time_duration.sum", 2.0, "msecond");
        m.set("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1e9);
        m.set("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1e9);
        m.set("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 4e9);
        m.set("dram__bytes.sum", 2e9, "byte");
        m.set("lts__t_bytes.sum", 5e9, "byte");
        m.set("l1tex__t_bytes.sum", 20, "Gbyte");
        const KernelFacts f = kernelFacts(m);
        QCOMPARE(*f.flop.fp32, 1e10);
        std::string why;
        const auto points = rooflinePoints(7, f, c, &why);
        QCOMPARE(points.size(), size_t {3});
        // FLOP/s = 1e10 / 2e-3 = 5e12 at every level; intensity 1e10 / bytes.
        const double expectIntensity[] = {5.0, 2.0, 0.5};
        const double bw[] = {d.dramBandwidthBytesPerS, 12e12, d.l1BandwidthBytesPerS};
        for (std::size_t i = 0; i < 3; ++i) {
            const RooflinePoint& p = points[i];
            QCOMPARE(p.kernelId, int64_t {7});
            QCOMPARE(static_cast<int>(p.level), static_cast<int>(i));
            QCOMPARE(p.flopsPerS, 5e12);
            QCOMPARE(p.intensity, expectIntensity[i]);
            QCOMPARE(QString::fromStdString(p.precision), QStringLiteral("fp32"));
            const double roof = std::min(d.peakFp32FlopsPerS, expectIntensity[i] * bw[i]);
            QCOMPARE(p.attainableFlopsPerS, roof);
            QCOMPARE(p.ridgeIntensity, d.peakFp32FlopsPerS / bw[i]);
            QCOMPARE(p.pctOfRoof(), 100.0 * 5e12 / roof);
        }
        // DRAM at 5 FLOP/B: 5 * 4.81e12 = 2.4e13 < FP32 peak 6.69e13 -> bandwidth-bound there.
        QVERIFY(points[0].attainableFlopsPerS < d.peakFp32FlopsPerS);
    }

    // ncu's SpeedOfLight_RooflineChart collects work per elapsed cycle (summed over SMSPs) and
    // traffic per second; count = rate x cycles/s x duration.
    void perCycleForm()
    {
        KernelMetrics m;
        m.set("gpu__time_duration.sum", 1000, "nsecond");
        m.set("smsp__cycles_elapsed.avg.per_second", 1.98, "Ghz");
        m.set("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", 100);
        m.set("dram__bytes.sum.per_second", 2, "Tbyte/second");
        const KernelFacts f = kernelFacts(m);
        // dfma: 100 per cycle x 1.98e9 cycles/s x 1e-6 s = 198000 instructions -> 396000 FLOP.
        QVERIFY(qFuzzyCompare(*f.flop.fp64, 396000.0));
        // 2e12 B/s x 1e-6 s = 2e6 bytes.
        QVERIFY(qFuzzyCompare(*f.dramBytes, 2e6));
        QCOMPARE(f.flop.dominant(), std::string("fp64"));
    }

    void tensorPrecisionPicksItsRoof()
    {
        const RooflineCeilings c = RooflineCeilings::fromDevice(h200());
        KernelMetrics m;
        m.set("gpu__time_duration.sum", 100, "usecond");
        m.set("sm__ops_path_tensor_src_bf16_dst_fp32.sum", 5e10);
        m.set("derived__tensor_flop", 5e10);
        m.set("derived__fp32_flop", 1e8);
        m.set("dram__bytes.sum", 1e8);
        const KernelFacts f = kernelFacts(m);
        QCOMPARE(f.flop.dominant(), std::string("tensor_bf16"));
        QCOMPARE(f.flop.total(), 5e10 + 1e8); // the total counter is not added on top
        const auto p = rooflinePoints(1, f, c);
        QCOMPARE(p.size(), size_t {1});
        // 500 FLOP/B x 4.81e12 B/s > BF16 peak: the compute roof caps it.
        QCOMPARE(p[0].attainableFlopsPerS, *c.peakFor("tensor_bf16"));
    }

    // Profile sessions store no peaks (only what the driver reports): the roofs are computed
    // from the record's SM count, clock and compute capability, and the panel says so.
    void profileRecordGetsComputedPeaks()
    {
        const SessionReader reader(std::string(WS_FIXTURES_DIR) + "/metrics/gemm_relu.wscope");
        const DeviceInfo d = reader.readDevices().at(0);
        QCOMPARE(d.peakBf16TensorFlopsPerS, 0.0);
        const RooflineCeilings c = RooflineCeilings::fromDevice(d);
        QVERIFY(c.computedPeaks);
        // 132 SMs x 1.98 GHz x 4096 FLOP per SM-clock (devicepeaks.cpp, Hopper).
        QCOMPARE(*c.peakFor("tensor_bf16"), 132 * 1.98e9 * 4096);
        QCOMPARE(*c.bandwidthOf(MemoryLevel::Dram), d.dramBandwidthBytesPerS); // recorded, kept
        QVERIFY(!c.bandwidthOf(MemoryLevel::L2));
    }

    // The H200 fixtures' kernels, against the numbers read straight from the file (SQL, not
    // through SessionMetrics) and combined by hand as the Roofline section defines them:
    // FLOP = derived__fp32_flop + derived__fp64_flop + derived__fp16_flop + derived__tensor_flop,
    // x = FLOP / bytes of the level, y = FLOP / gpu__time_duration.sum.
    void fixturePointsByHand_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("kernel");
        QTest::addColumn<QString>("precision");
        // nvjet BF16 GEMM 4096^3: 2 x 4096^3 = 137438953472 FLOP in 175424 ns = 783 TFLOP/s;
        // DRAM 197372160 B -> 696 FLOP/B, L2 1066655520 B -> 129, L1 12160 B (TMA bypasses L1).
        QTest::newRow("gemm_relu nvjet") << "gemm_relu" << qint64(3) << "tensor_bf16";
        // fill_kernel: 33554432 FP32 FLOP, 28460544 DRAM bytes, 41408 ns.
        QTest::newRow("gemm_relu fill") << "gemm_relu" << qint64(1) << "fp32";
        // softmax: 1150550016 FP32 + 167772160 FP16 FLOP, 268987392 DRAM bytes, 108416 ns.
        QTest::newRow("torch softmax") << "torch_softmax" << qint64(1) << "fp32";
    }
    void fixturePointsByHand()
    {
        QFETCH(QString, file);
        QFETCH(qint64, kernel);
        QFETCH(QString, precision);
        const std::string path = std::string(WS_FIXTURES_DIR) + "/metrics/" + file.toStdString() + ".wscope";
        StoredMetrics raw(path, kernel);
        const double flop = raw.value("derived__fp32_flop") + raw.value("derived__fp64_flop")
            + raw.value("derived__fp16_flop") + raw.value("derived__tensor_flop");
        const double seconds = raw.value("gpu__time_duration.sum") * 1e-9;

        const SessionReader reader(path);
        const SessionMetrics metrics = SessionMetrics::read(reader);
        const auto* k = metrics.find(kernel);
        QVERIFY(k);
        const RooflineCeilings c = RooflineCeilings::fromDevice(reader.readDevices().at(0));
        const auto points = rooflinePoints(kernel, kernelFacts(k->metrics), c);
        QCOMPARE(points.size(), size_t {3});
        const char* bytes[] = {"dram__bytes.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"};
        for (size_t i = 0; i < 3; ++i) {
            QVERIFY(qFuzzyCompare(points[i].intensity, flop / raw.value(bytes[i])));
            QVERIFY(qFuzzyCompare(points[i].flopsPerS, flop / seconds));
            QCOMPARE(QString::fromStdString(points[i].precision), precision);
        }
        const double roof = std::min(*c.peakFor(precision.toStdString()),
            flop / raw.value("dram__bytes.sum") * *c.bandwidthOf(MemoryLevel::Dram));
        QVERIFY(qFuzzyCompare(points[0].attainableFlopsPerS, roof));
        if (kernel == 3 && file == "gemm_relu") // 783 / 1071 TFLOP/s
            QCOMPARE(qRound(points[0].pctOfRoof()), 73);
    }

    void noPointAndWhy_data()
    {
        QTest::addColumn<bool>("duration");
        QTest::addColumn<bool>("flop");
        QTest::addColumn<double>("flopValue");
        QTest::addColumn<bool>("bytes");
        QTest::addColumn<QString>("why");
        QTest::newRow("no duration") << false << true << 1.0 << true << "no duration";
        QTest::newRow("no counters") << true << false << 0.0 << true << "no FLOP counters";
        QTest::newRow("data movement only") << true << true << 0.0 << true << "0 FLOP";
        QTest::newRow("no bytes") << true << true << 1.0 << false << "no bytes";
    }
    void noPointAndWhy()
    {
        QFETCH(bool, duration);
        QFETCH(bool, flop);
        QFETCH(double, flopValue);
        QFETCH(bool, bytes);
        QFETCH(QString, why);
        KernelMetrics m;
        if (duration)
            m.set("gpu__time_duration.sum", 10, "usecond");
        if (flop)
            m.set("derived__fp32_flop", flopValue);
        if (bytes)
            m.set("dram__bytes.sum", 100);
        std::string reason;
        QVERIFY(rooflinePoints(1, kernelFacts(m), RooflineCeilings::fromDevice(h200()), &reason).empty());
        QVERIFY2(QString::fromStdString(reason).contains(why), reason.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "tst_roofline.moc"

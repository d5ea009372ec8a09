// SPDX-License-Identifier: MIT
// Occupancy curves (core/diagnosis/occupancycurves): every point is the calculator's answer
// for the varied launch, the launch's own point lies on all three curves, and the curves agree
// with cudaOccupancyMaxActiveBlocksPerMultiprocessor measured on an H200
// (tests/fixtures/metrics/occupancy-h200.txt) wherever a curve passes through a measured
// configuration.
#include "core/diagnosis/occupancycurves.h"
#include "core/model/records.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace ws;

namespace {

struct GridRow {
    int regs = 0;
    int64_t staticSmem = 0;
    int64_t maxDyn = 0;
    int carveout = -1;
    int block = 0;
    int64_t dyn = 0;
    int blocks = 0;
};

struct Grid {
    DeviceInfo device;
    std::vector<GridRow> rows;
};

Grid loadGrid()
{
    Grid g;
    std::ifstream in(WS_FIXTURES_DIR "/metrics/occupancy-h200.txt");
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        if (line.rfind("device ", 0) == 0) {
            std::istringstream s(line.substr(7));
            std::string kv;
            while (s >> kv) {
                const auto eq = kv.find('=');
                const std::string k = kv.substr(0, eq);
                const std::string v = kv.substr(eq + 1);
                if (k == "cc") {
                    g.device.ccMajor = std::stoi(v.substr(0, v.find('.')));
                    g.device.ccMinor = std::stoi(v.substr(v.find('.') + 1));
                } else if (k == "sms")
                    g.device.smCount = std::stoi(v);
                else if (k == "regs_per_sm")
                    g.device.regsPerSm = std::stoi(v);
                else if (k == "regs_per_block")
                    g.device.regsPerBlock = std::stoi(v);
                else if (k == "smem_per_sm")
                    g.device.smemPerSm = std::stoll(v);
                else if (k == "smem_per_block")
                    g.device.smemPerBlock = std::stoll(v);
                else if (k == "smem_optin")
                    g.device.smemPerBlockOptin = std::stoll(v);
                else if (k == "smem_reserved")
                    g.device.smemReservedPerBlock = std::stoll(v);
                else if (k == "max_threads_per_sm")
                    g.device.maxWarpsPerSm = std::stoi(v) / 32;
                else if (k == "max_blocks_per_sm")
                    g.device.maxBlocksPerSm = std::stoi(v);
                else if (k == "max_threads_per_block")
                    g.device.maxThreadsPerBlock = std::stoi(v);
            }
            continue;
        }
        GridRow r;
        std::istringstream s(line);
        if (s >> r.regs >> r.staticSmem >> r.maxDyn >> r.carveout >> r.block >> r.dyn >> r.blocks)
            g.rows.push_back(r);
    }
    return g;
}

const OccupancyCurvePoint* at(const std::vector<OccupancyCurvePoint>& curve, double x)
{
    for (const auto& p : curve) {
        if (p.x == x)
            return &p;
    }
    return nullptr;
}

} // namespace

class TestDiagnosisOccupancy : public QObject {
    Q_OBJECT
private slots:
    void curvesAreTheCalculator()
    {
        const Grid g = loadGrid();
        ArchitectureLimits limits;
        QVERIFY(ArchitectureLimits::forDevice(g.device, limits));
        const OccupancyCalculator calc(limits);
        LaunchConfig launch;
        launch.block = {256, 1, 1};
        launch.registersPerThread = 44;
        launch.staticSmemBytes = 1024;
        launch.dynamicSmemBytes = 0;
        const OccupancyInput in = occupancyInput(launch, limits);
        QCOMPARE(in.blockSize, 256);
        QCOMPARE(in.maxDynamicSmemBytes, int64_t {0}); // within the default 48 KiB: no opt-in
        const OccupancyCurves c = occupancyCurves(calc, in);
        QCOMPARE(c.byRegisters.size(), size_t {255});
        QCOMPARE(c.byBlockSize.size(), size_t {32});
        QCOMPARE(c.bySharedMem.size(), static_cast<size_t>(limits.smemPerBlockOptin / 1024 + 1));
        // The launch's own point on each curve.
        QCOMPARE(at(c.byRegisters, 44)->occupancyPct, c.current.occupancyPct);
        QCOMPARE(at(c.byBlockSize, 256)->occupancyPct, c.current.occupancyPct);
        QCOMPARE(c.current.occupancyPct, 62.5); // ncu reported 62.50 % for this launch (ncu_raw.csv)
        QCOMPARE(c.current.limitRegisters, 5);
        // Every point is the calculator's own answer.
        for (const auto& p : c.byRegisters) {
            OccupancyInput v = in;
            v.registersPerThread = static_cast<int>(p.x);
            QCOMPARE(p.occupancyPct, calc.compute(v).occupancyPct);
        }
        for (const auto& p : c.byBlockSize) {
            OccupancyInput v = in;
            v.blockSize = static_cast<int>(p.x);
            QCOMPARE(p.blocksPerSm, calc.compute(v).blocksPerSm);
        }
        // Monotone: more registers or more shared memory never raise occupancy.
        for (size_t i = 1; i < c.byRegisters.size(); ++i)
            QVERIFY(c.byRegisters[i].occupancyPct <= c.byRegisters[i - 1].occupancyPct);
        for (size_t i = 1; i < c.bySharedMem.size(); ++i)
            QVERIFY(c.bySharedMem[i].occupancyPct <= c.bySharedMem[i - 1].occupancyPct);
    }

    void optInAboveDefault()
    {
        ArchitectureLimits limits = *ArchitectureLimits::find(9, 0);
        LaunchConfig launch;
        launch.block = {128, 1, 1};
        launch.registersPerThread = 128;
        launch.dynamicSmemBytes = 200 * 1024;
        const OccupancyInput in = occupancyInput(launch, limits);
        QCOMPARE(in.maxDynamicSmemBytes, int64_t {200 * 1024});
        const OccupancyCurves c = occupancyCurves(OccupancyCalculator(limits), in);
        QCOMPARE(c.current.blocksPerSm, 1);
        QVERIFY(c.current.error.empty());
    }

    // Where the fixture measured a configuration that a curve passes through, the curve's
    // blocks per SM equal the driver's answer.
    void curvesMatchH200Measurements()
    {
        const Grid g = loadGrid();
        QVERIFY(g.rows.size() > 6000);
        ArchitectureLimits limits;
        QVERIFY(ArchitectureLimits::forDevice(g.device, limits));
        const OccupancyCalculator calc(limits);
        int checked = 0;
        for (const GridRow& r : g.rows) {
            if (r.staticSmem != 0 || r.carveout != -1 || r.maxDyn == 0)
                continue;
            OccupancyInput in;
            in.blockSize = r.block;
            in.registersPerThread = r.regs;
            in.dynamicSmemBytes = r.dyn;
            in.maxDynamicSmemBytes = r.maxDyn;
            const OccupancyCurves c = occupancyCurves(calc, in);
            const int expected = std::max(r.blocks, 0);
            const auto* byRegs = at(c.byRegisters, r.regs);
            const auto* byBlock = at(c.byBlockSize, r.block);
            QVERIFY(byRegs && byBlock);
            QCOMPARE(byRegs->blocksPerSm, expected);
            QCOMPARE(byBlock->blocksPerSm, expected);
            if (r.dyn % 1024 == 0 && r.dyn <= limits.smemPerBlockOptin) {
                const auto* bySmem = at(c.bySharedMem, static_cast<double>(r.dyn));
                QVERIFY(bySmem);
                QCOMPARE(bySmem->blocksPerSm, expected);
            }
            ++checked;
        }
        QCOMPARE(checked, 4845); // every opted-in configuration without a carveout preference
    }
};

QTEST_GUILESS_MAIN(TestDiagnosisOccupancy)
#include "tst_diagnosis_occupancy.moc"

// SPDX-License-Identifier: MIT
// core/occupancy: the architecture table, hand-computed block limits per resource, invalid
// launches, and agreement with cudaOccupancyMaxActiveBlocksPerMultiprocessor over the grid of
// configurations recorded on an H200 (tests/fixtures/metrics/occupancy-h200.txt, written by
// collectors/profiler/occupancygrid.cu through scripts/h200/metrics-compare.sh).
#include "core/model/records.h"
#include "core/occupancy/architecture.h"
#include "core/occupancy/occupancycalculator.h"

#include <QtTest>

#include <climits>
#include <fstream>
#include <sstream>

using namespace ws;

namespace {

DeviceInfo h200()
{
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.ccMajor = 9;
    d.ccMinor = 0;
    d.smCount = 132;
    d.regsPerSm = 65536;
    d.regsPerBlock = 65536;
    d.smemPerSm = 233472;
    d.smemPerBlock = 49152;
    d.smemPerBlockOptin = 232448;
    d.smemReservedPerBlock = 1024;
    d.maxWarpsPerSm = 64;
    d.maxBlocksPerSm = 32;
    d.maxThreadsPerBlock = 1024;
    return d;
}

OccupancyCalculator calculatorFor(int major, int minor)
{
    const ArchitectureLimits* a = ArchitectureLimits::find(major, minor);
    if (!a)
        qFatal("no architecture %d.%d", major, minor);
    return OccupancyCalculator(*a);
}

} // namespace

class TestOccupancy : public QObject {
    Q_OBJECT

private slots:
    void tableCoversVoltaToBlackwell_data()
    {
        QTest::addColumn<int>("major");
        QTest::addColumn<int>("minor");
        QTest::addColumn<int>("maxWarps");
        QTest::addColumn<int>("maxBlocks");
        QTest::addColumn<qint64>("smemPerSm");
        QTest::newRow("sm_70") << 7 << 0 << 64 << 32 << qint64(96 * 1024);
        QTest::newRow("sm_72") << 7 << 2 << 64 << 32 << qint64(96 * 1024);
        QTest::newRow("sm_75") << 7 << 5 << 32 << 16 << qint64(64 * 1024);
        QTest::newRow("sm_80") << 8 << 0 << 64 << 32 << qint64(164 * 1024);
        QTest::newRow("sm_86") << 8 << 6 << 48 << 16 << qint64(100 * 1024);
        QTest::newRow("sm_87") << 8 << 7 << 48 << 16 << qint64(164 * 1024);
        QTest::newRow("sm_89") << 8 << 9 << 48 << 24 << qint64(100 * 1024);
        QTest::newRow("sm_90") << 9 << 0 << 64 << 32 << qint64(228 * 1024);
        QTest::newRow("sm_100") << 10 << 0 << 64 << 32 << qint64(228 * 1024);
    }
    void tableCoversVoltaToBlackwell()
    {
        QFETCH(int, major);
        QFETCH(int, minor);
        QFETCH(int, maxWarps);
        QFETCH(int, maxBlocks);
        QFETCH(qint64, smemPerSm);
        const ArchitectureLimits* a = ArchitectureLimits::find(major, minor);
        QVERIFY(a);
        QCOMPARE(a->maxWarpsPerSm, maxWarps);
        QCOMPARE(a->maxBlocksPerSm, maxBlocks);
        QCOMPARE(a->smemPerSm, smemPerSm);
        QCOMPARE(a->regsPerSm, 65536);
        QCOMPARE(a->regAllocUnit, 256);
        // The largest carveout is the SM's shared memory.
        QVERIFY(!a->carveoutsKib.empty());
        QCOMPARE(static_cast<qint64>(a->carveoutsKib.back()) * 1024, smemPerSm);
        QCOMPARE(a->smemAllocUnit, major >= 8 ? 128 : 256);
        QCOMPARE(a->smemReservedPerBlock, major >= 8 ? qint64(1024) : qint64(0));
    }

    void deviceAttributesOverrideTheTable()
    {
        DeviceInfo d = h200();
        d.smemPerSm = 100 * 1024; // a hypothetical part with less shared memory
        ArchitectureLimits a;
        QVERIFY(ArchitectureLimits::forDevice(d, a));
        QCOMPARE(a.smemPerSm, qint64(100 * 1024));
        QCOMPARE(a.maxWarpsPerSm, 64);
        // An unlisted minor version falls back to its major's newest older entry.
        d.ccMinor = 4;
        QVERIFY(ArchitectureLimits::forDevice(d, a));
        QCOMPARE(a.ccMajor, 9);
        d.ccMajor = 6;
        d.ccMinor = 0;
        QVERIFY(!ArchitectureLimits::forDevice(d, a));
    }

    void blockLimits_data()
    {
        QTest::addColumn<int>("major");
        QTest::addColumn<int>("minor");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("regs");
        QTest::addColumn<int>("dynSmem");
        QTest::addColumn<int>("maxDyn");
        QTest::addColumn<int>("limitRegs");
        QTest::addColumn<int>("limitSmem");
        QTest::addColumn<int>("limitWarps");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<double>("occupancy");
        QTest::addColumn<int>("limiter");
        // 32 regs x 32 threads = 1024 per warp; 16384 per scheduler -> 16 warps x 4 = 64 warps.
        QTest::newRow("sm_90 256 threads 32 regs")
            << 9 << 0 << 256 << 32 << 0 << 0 << 8 << 32 << 8 << 8 << 100.0 << int(OccupancyLimiter::Registers);
        // The cuBLAS GEMM of the seed workload: 168 regs (5376 per warp, 3 warps per scheduler),
        // 213188 B dynamic shared memory; ncu reports 1 / 1 / 5 and 18.75 %.
        QTest::newRow("sm_90 nvjet gemm") << 9 << 0 << 384 << 168 << 213188 << 232448 << 1 << 1 << 5 << 1 << 18.75
                                          << int(OccupancyLimiter::Registers);
        // 8 registers are allocated as 16 (ncu: 16 registers, block limit 16).
        QTest::newRow("sm_90 8 regs allocate 16")
            << 9 << 0 << 256 << 8 << 0 << 0 << 16 << 32 << 8 << 8 << 100.0 << int(OccupancyLimiter::Warps);
        // The pointer chase: 22 regs (768 per warp, 21 warps per scheduler), 32 threads.
        QTest::newRow("sm_90 chase") << 9 << 0 << 32 << 22 << 0 << 0 << 84 << 32 << 64 << 32 << 50.0
                                     << int(OccupancyLimiter::Blocks);
        // 40 KiB per block (+1 KiB reserved = 41 KiB): 228 / 41 = 5 blocks.
        QTest::newRow("sm_90 smem bound") << 9 << 0 << 128 << 32 << 40960 << 232448 << 16 << 5 << 16 << 5 << 31.25
                                          << int(OccupancyLimiter::SharedMemory);
        // sm_86: 48 warps; a 1024-thread block with 64 regs holds 32 warps -> one block, 66.7 %.
        QTest::newRow("sm_86 1024 threads 64 regs") << 8 << 6 << 1024 << 64 << 0 << 0 << 1 << 16 << 1 << 1
                                                    << 100.0 * 32 / 48 << int(OccupancyLimiter::Registers);
        // sm_75: 32 warps and 16 blocks per SM; no reserved shared memory, so no smem limit.
        QTest::newRow("sm_75 128 threads")
            << 7 << 5 << 128 << 32 << 0 << 0 << 16 << INT_MAX << 8 << 8 << 100.0 << int(OccupancyLimiter::Warps);
        // sm_70: 256-byte shared-memory granularity, no reserved share: 96 KiB / 24.25 KiB -> 3.
        QTest::newRow("sm_70 smem granularity") << 7 << 0 << 64 << 32 << 24800 << 98304 << 32 << 3 << 32 << 3
                                                << 100.0 * 6 / 64 << int(OccupancyLimiter::SharedMemory);
    }
    void blockLimits()
    {
        QFETCH(int, major);
        QFETCH(int, minor);
        QFETCH(int, block);
        QFETCH(int, regs);
        QFETCH(int, dynSmem);
        QFETCH(int, maxDyn);
        QFETCH(int, limitRegs);
        QFETCH(int, limitSmem);
        QFETCH(int, limitWarps);
        QFETCH(int, blocks);
        QFETCH(double, occupancy);
        QFETCH(int, limiter);
        OccupancyInput in;
        in.blockSize = block;
        in.registersPerThread = regs;
        in.dynamicSmemBytes = dynSmem;
        in.maxDynamicSmemBytes = maxDyn;
        const auto r = calculatorFor(major, minor).compute(in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.limitRegisters, limitRegs);
        QCOMPARE(r.limitSharedMem, limitSmem);
        QCOMPARE(r.limitWarps, limitWarps);
        QCOMPARE(r.blocksPerSm, blocks);
        QVERIFY(std::abs(r.occupancyPct - occupancy) < 1e-9);
        QCOMPARE(int(r.limiter), limiter);
    }

    void sharedMemoryConfigurationMatchesNcu_data()
    {
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("regs");
        QTest::addColumn<int>("staticSmem");
        QTest::addColumn<int>("dynSmem");
        QTest::addColumn<qint64>("config");
        // Figures ncu 2025.3 reported on an H200 for the kernels of the comparison run.
        QTest::newRow("relu 256x8regs") << 256 << 8 << 0 << 0 << qint64(32768);
        QTest::newRow("copy 256x14regs") << 256 << 14 << 0 << 0 << qint64(32768);
        QTest::newRow("chase 32x22regs") << 32 << 22 << 0 << 0 << qint64(32768);
        QTest::newRow("nvjet gemm") << 384 << 168 << 0 << 213188 << qint64(233472);
        // ATen's cunn_SoftMaxForwardReg: 128 B of dynamic shared memory, 2 blocks per SM, so the
        // driver picks the 8 KiB carveout (ncu: limit 7 blocks).
        QTest::newRow("softmax 1024x30regs 128B") << 1024 << 30 << 0 << 128 << qint64(8192);
        // The fidelity suite (docs/evidence/2026-12-02-fidelity-all): static shared memory; the
        // carveout holds twice the blocks placed (8 x 1152 B -> 32 KiB, not 16).
        QTest::newRow("l2_reuse 256x21regs 32B static") << 256 << 21 << 32 << 0 << qint64(32768);
        QTest::newRow("persistent_axpy 512x32regs 4B static") << 512 << 32 << 4 << 0 << qint64(16384);
        QTest::newRow("cluster_dsmem 256x20regs 1056B static") << 256 << 20 << 1056 << 0 << qint64(65536);
    }
    void sharedMemoryConfigurationMatchesNcu()
    {
        QFETCH(int, block);
        QFETCH(int, regs);
        QFETCH(int, staticSmem);
        QFETCH(int, dynSmem);
        QFETCH(qint64, config);
        ArchitectureLimits a;
        QVERIFY(ArchitectureLimits::forDevice(h200(), a));
        OccupancyInput in;
        in.blockSize = block;
        in.registersPerThread = regs;
        in.staticSmemBytes = staticSmem;
        in.dynamicSmemBytes = dynSmem;
        in.maxDynamicSmemBytes = dynSmem > 48 * 1024 ? 232448 : 0;
        const auto r = OccupancyCalculator(a).compute(in);
        QCOMPARE(r.smemConfigBytes, config);
        QCOMPARE(r.limitSharedMem, static_cast<int>(config / r.allocatedSmemPerBlock));
    }

    void invalidLaunches_data()
    {
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("regs");
        QTest::addColumn<int>("dynSmem");
        QTest::addColumn<int>("maxDyn");
        QTest::addColumn<QString>("why");
        QTest::newRow("block too large") << 2048 << 32 << 0 << 0 << "block size";
        QTest::newRow("no threads") << 0 << 32 << 0 << 0 << "block size";
        QTest::newRow("registers per block") << 1024 << 255 << 0 << 0 << "registers";
        QTest::newRow("dynamic smem without opt-in") << 128 << 32 << 64 * 1024 << 0 << "opt in";
        QTest::newRow("dynamic smem over the attribute") << 128 << 32 << 100 * 1024 << 64 * 1024 << "shared memory";
        QTest::newRow("dynamic smem over the optin limit") << 128 << 32 << 228 * 1024 << 228 * 1024 << "shared memory";
    }
    void invalidLaunches()
    {
        QFETCH(int, block);
        QFETCH(int, regs);
        QFETCH(int, dynSmem);
        QFETCH(int, maxDyn);
        QFETCH(QString, why);
        OccupancyInput in;
        in.blockSize = block;
        in.registersPerThread = regs;
        in.dynamicSmemBytes = dynSmem;
        in.maxDynamicSmemBytes = maxDyn;
        const auto r = calculatorFor(9, 0).compute(in);
        QCOMPARE(r.blocksPerSm, 0);
        QCOMPARE(r.limiter, OccupancyLimiter::Invalid);
        QVERIFY2(QString::fromStdString(r.error).contains(why), r.error.c_str());
    }

    void waves()
    {
        QCOMPARE(OccupancyCalculator::waves(65536, 8, 132), 65536.0 / (8 * 132));
        QCOMPARE(OccupancyCalculator::waves(132, 1, 132), 1.0);
        QCOMPARE(OccupancyCalculator::waves(100, 0, 132), 0.0);
    }

    // cudaOccupancyMaxActiveBlocksPerMultiprocessor on an H200, over register counts x block
    // sizes x dynamic shared memory x carveout preferences, with and without the opt-in.
    void equalsCudaOnH200Grid()
    {
        const QString path = QStringLiteral(WS_FIXTURES_DIR "/metrics/occupancy-h200.txt");
        std::ifstream in(path.toStdString());
        QVERIFY2(in, qPrintable(path + " is missing"));
        DeviceInfo d;
        std::string line;
        int rows = 0, mismatches = 0;
        std::string first;
        bool haveDevice = false;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#')
                continue;
            if (line.rfind("device ", 0) == 0) {
                std::istringstream s(line.substr(7));
                std::string kv;
                while (s >> kv) {
                    const auto eq = kv.find('=');
                    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
                    if (k == "cc") {
                        d.ccMajor = std::stoi(v.substr(0, v.find('.')));
                        d.ccMinor = std::stoi(v.substr(v.find('.') + 1));
                    } else if (k == "sms")
                        d.smCount = std::stoi(v);
                    else if (k == "regs_per_sm")
                        d.regsPerSm = std::stoi(v);
                    else if (k == "regs_per_block")
                        d.regsPerBlock = std::stoi(v);
                    else if (k == "smem_per_sm")
                        d.smemPerSm = std::stoll(v);
                    else if (k == "smem_per_block")
                        d.smemPerBlock = std::stoll(v);
                    else if (k == "smem_optin")
                        d.smemPerBlockOptin = std::stoll(v);
                    else if (k == "smem_reserved")
                        d.smemReservedPerBlock = std::stoll(v);
                    else if (k == "max_threads_per_sm")
                        d.maxWarpsPerSm = std::stoi(v) / 32;
                    else if (k == "max_blocks_per_sm")
                        d.maxBlocksPerSm = std::stoi(v);
                    else if (k == "max_threads_per_block")
                        d.maxThreadsPerBlock = std::stoi(v);
                    else if (k == "name")
                        break;
                }
                haveDevice = true;
                continue;
            }
            QVERIFY2(haveDevice, "the device line must precede the rows");
            std::istringstream s(line);
            int regs = 0, block = 0, carveout = 0, expected = 0;
            long long staticSmem = 0, maxDyn = 0, dyn = 0;
            QVERIFY2(s >> regs >> staticSmem >> maxDyn >> carveout >> block >> dyn >> expected, line.c_str());
            ArchitectureLimits a;
            QVERIFY(ArchitectureLimits::forDevice(d, a));
            OccupancyInput i;
            i.blockSize = block;
            i.registersPerThread = regs;
            i.staticSmemBytes = staticSmem;
            i.dynamicSmemBytes = dyn;
            i.maxDynamicSmemBytes = maxDyn;
            i.carveoutPercent = carveout;
            const auto r = OccupancyCalculator(a).compute(i);
            ++rows;
            // -1: CUDA refused the configuration; the calculator must say it cannot run.
            if (r.blocksPerSm != std::max(expected, 0)) {
                if (++mismatches == 1)
                    first = line + " -> " + std::to_string(r.blocksPerSm);
            }
        }
        QVERIFY2(rows > 5000, qPrintable(QStringLiteral("only %1 rows").arg(rows)));
        QVERIFY2(mismatches == 0,
            qPrintable(QStringLiteral("%1 of %2 configurations differ, first: %3")
                           .arg(mismatches)
                           .arg(rows)
                           .arg(QString::fromStdString(first))));
        qInfo("%d configurations equal cudaOccupancyMaxActiveBlocksPerMultiprocessor on %s", rows,
            d.ccMajor == 9 ? "the H200" : "the device");
    }
};

QTEST_GUILESS_MAIN(TestOccupancy)
#include "tst_occupancy.moc"

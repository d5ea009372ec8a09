// SPDX-License-Identifier: MIT
// `warpscope-cli profile` with the real injection library on a GPU (label `gpu`): the copy
// workload profiled, and replay keeping the program's memory. Skips, saying why, without a GPU
// (tests/support/gpuprobe.h) or without the library and workload built. The GPU-free cases
// (stand-in target, configuration hand-off, errors, bad options) are tests/cli/tst_profile_cli.
#include "core/store/sessionreader.h"
#include "gpuprobe.h"

#include "clirun.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

using test::runCli;

const QString kProfilerLib = QStringLiteral(WS_BUILD_DIR "/lib/libwarpscope-profiler.so");
const QString kWorkload = QStringLiteral(WS_BUILD_DIR "/bin/warpscope-metricsworkload");

// Why the profiler cannot run the workload on this machine; empty when it can.
QString whyNoGpuRun()
{
    if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
        return why;
    if (!QFile::exists(kProfilerLib) || !QFile::exists(kWorkload))
        return QStringLiteral("libwarpscope-profiler.so or warpscope-metricsworkload not built (no CUDA toolkit)");
    return {};
}

// Why the driver refused to profile here (no counters for this GPU, or profiling restricted to
// admin users); empty when it profiled.
QString profilingUnavailable(const test::CliRun& r)
{
    if (r.err.contains("not supported") || r.err.contains("NVreg_RestrictProfilingToAdminUsers"))
        return "profiling unavailable here: " + r.err;
    return {};
}

// Why a profile run did not end cleanly: the CLI failed, the program crashed (a crash report or a
// signal) or exited non-zero. Empty when it ended cleanly.
QString uncleanEnd(const test::CliRun& r)
{
    if (r.exitCode != 0)
        return "warpscope-cli exited with " + QString::number(r.exitCode) + ":\n" + r.err;
    if (r.err.contains("received signal") || r.err.contains("warning: the program"))
        return "the program did not end cleanly:\n" + r.err;
    return {};
}

QProcessEnvironment gpuRunEnvironment()
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("WS_PROFILER_LIB", kProfilerLib);
    return env;
}

} // namespace

class TestProfileGpu : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        WS_REQUIRE_CUDA_PROGRAM(kProfilerLib);
        WS_REQUIRE_CUDA_PROGRAM(kWorkload);
    }

    void profilesCopyKernelOnGpu()
    {
        if (const QString why = whyNoGpuRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString out = dir.filePath("copy.wscope");
        const auto r = runCli({"profile", "-o", out, "--section", "SpeedOfLight", "--", kWorkload, "copy", "--warmup",
                                  "0", "--iters", "2"},
            gpuRunEnvironment());
        if (const QString why = profilingUnavailable(r); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(2));
        for (const auto& k : s.kernels) {
            QCOMPARE(k.gridX, 132 * 16);
            QCOMPARE(k.blockX, 256);
            QVERIFY(k.end > k.start); // gpu__time_duration.sum was collected
        }
    }

    // Every replay pass must start from the program's memory, and the program's own launch must
    // see it unchanged: the accumulate workload (x = 3x + 1 per launch) checks its result on the
    // host and exits non-zero when any launch was applied more than once.
    void replayKeepsTheProgramsMemoryOnGpu_data()
    {
        QTest::addColumn<QString>("cacheControl");
        QTest::newRow("all (our checkpoint replay)") << "all";
        QTest::newRow("none (our changed-memory replay)") << "none";
    }
    void replayKeepsTheProgramsMemoryOnGpu()
    {
        QFETCH(QString, cacheControl);
        if (const QString why = whyNoGpuRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString out = dir.filePath("acc.wscope");
        const auto r = runCli({"profile", "-o", out, "--set", "full", "--cache-control", cacheControl, "--", kWorkload,
                                  "accumulate", "--warmup", "1", "--iters", "2"},
            gpuRunEnvironment());
        if (const QString why = profilingUnavailable(r); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY2(uncleanEnd(r).isEmpty(), qPrintable(uncleanEnd(r)));
        // The program's own check (its stderr is ours).
        QVERIFY2(!r.err.contains("accumulate: element"), qPrintable(r.err));
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(3));
        QCOMPARE(QString::fromStdString(s.meta.at("profile_cache_control")), cacheControl);
        // The replay is the cache control's: `all` restores everything and evicts L2 before every
        // pass; only `none` restores the changed blocks (from 2026-12-02 to 12-03 `none`'s replay
        // ran under `all` too).
        QString replay;
        for (const auto& [key, value] : s.environment)
            if (QString::fromStdString(key).endsWith(".replay"))
                replay = QString::fromStdString(value);
        QCOMPARE(replay,
            cacheControl == "all"
                ? QStringLiteral("ours, L2 evicted")
                : QStringLiteral("ours, only the blocks the kernel changes restored; passes after the "
                                 "first back to back while it changes nothing"));
        // Every pass of the full set ran: values for every launch.
        QVERIFY(s.kernelMetrics.size() >= 3 * 150);
    }

    // A program that allocates and frees device memory between its profiled launches (PyTorch's
    // caching allocator, cuDNN's workspace): every replay must checkpoint the memory as it is at
    // that launch, and nothing saved in the checkpoint may be freed before its final restore. The
    // replay freed its own outgrown compare flags in between, which crashed a PyTorch convolution
    // in that restore (H200, 2026-12-03, docs/evidence/2026-12-03-checkpoint-diag).
    void allocationsBetweenProfiledLaunchesOnGpu_data() { replayKeepsTheProgramsMemoryOnGpu_data(); }
    void allocationsBetweenProfiledLaunchesOnGpu()
    {
        QFETCH(QString, cacheControl);
        if (const QString why = whyNoGpuRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString out = dir.filePath("growing.wscope");
        const auto r = runCli({"profile", "-o", out, "--section", "SpeedOfLight", "--cache-control", cacheControl, "--",
                                  kWorkload, "growing", "--warmup", "0", "--iters", "2"},
            gpuRunEnvironment());
        if (const QString why = profilingUnavailable(r); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY2(uncleanEnd(r).isEmpty(), qPrintable(uncleanEnd(r)));
        QVERIFY2(!r.err.contains("growing: "), qPrintable(r.err)); // the program's own check
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(6));     // 3 allocations x 2 launches, each profiled
        QVERIFY(s.kernelMetrics.size() >= 6 * 10); // every launch has values
    }

    // A user's program hands its kernels memory of every kind, not only cudaMalloc's: stream-ordered
    // pools (cudaMallocAsync), managed memory, virtual-memory mappings (PyTorch's expandable
    // segments), pinned host memory, and data reached through a device array of pointers, which no
    // argument points at. Whatever the replay does to each kind, every launch must be applied to
    // the program's memory exactly once (the workload checks x = 3x + 1 per launch on the host) and
    // every launch must have its values.
    void replayKeepsEveryKindOfMemoryOnGpu_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("cacheControl");
        for (const char* kind : {"device", "async", "pool", "managed", "vmm", "mapped", "indirect"})
            for (const char* cache : {"all", "none"})
                QTest::addRow("%s, %s", kind, cache) << QString::fromLatin1(kind) << QString::fromLatin1(cache);
    }
    void replayKeepsEveryKindOfMemoryOnGpu()
    {
        QFETCH(QString, kind);
        QFETCH(QString, cacheControl);
        if (const QString why = whyNoGpuRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString out = dir.filePath("memkind.wscope");
        const auto r = runCli({"profile", "-o", out, "--section", "SpeedOfLight", "--cache-control", cacheControl, "--",
                                  kWorkload, "memkind", kind, "--warmup", "1", "--iters", "2"},
            gpuRunEnvironment());
        if (const QString why = profilingUnavailable(r); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY2(uncleanEnd(r).isEmpty(), qPrintable(uncleanEnd(r)));
        QVERIFY2(!r.err.contains("memkind " + kind + ": element"), qPrintable(r.err)); // the program's own check
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(3));
        QVERIFY2(s.kernelMetrics.size() >= 3 * 10, qPrintable(r.err)); // every launch has values
    }

    // A program whose other threads copy, allocate and free while one thread's launch is replayed:
    // the replay's final restore must not undo another thread's copy, nor fault on its free
    // (ReplayGate holds those calls back until the replay ends; tst_replaygate checks the gate).
    void otherThreadsMemoryCallsDuringReplayOnGpu_data() { replayKeepsTheProgramsMemoryOnGpu_data(); }
    void otherThreadsMemoryCallsDuringReplayOnGpu()
    {
        QFETCH(QString, cacheControl);
        if (const QString why = whyNoGpuRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString out = dir.filePath("threads.wscope");
        const auto r = runCli(
            {"profile", "-o", out, "--section", "SpeedOfLight", "--cache-control", cacheControl, "--kernel-name",
                "regex:accumulate_add", "--", kWorkload, "threads", "--warmup", "1", "--iters", "2"},
            gpuRunEnvironment());
        if (const QString why = profilingUnavailable(r); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY2(uncleanEnd(r).isEmpty(), qPrintable(uncleanEnd(r)));
        QVERIFY2(!r.err.contains("threads: thread"), qPrintable(r.err));    // the program's own check
        QVERIFY2(!r.err.contains("did not end within"), qPrintable(r.err)); // every replay held the gate
        QVERIFY2(!r.err.contains("then ran during it"), qPrintable(r.err)); // no call went on during one
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(4 * 3)); // 4 threads x 3 launches, each profiled
        QVERIFY2(s.kernelMetrics.size() >= 12 * 10, qPrintable(r.err));
    }

    // ncu's --profile-from-start off: only the launches between cudaProfilerStart and Stop match,
    // and --launch-skip counts those (the workload makes 2 launches before, 3 inside, 2 after).
    void profilesOnlyInsideTheCaptureRangeOnGpu_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<int>("profiled");
        QTest::newRow("from the start") << QStringList {} << 7;
        QTest::newRow("--profile-from-start off") << QStringList {"--profile-from-start", "off"} << 3;
        QTest::newRow("--capture-range, skipping the first inside")
            << QStringList {"--capture-range", "cudaProfilerApi", "--launch-skip", "1"} << 2;
    }
    void profilesOnlyInsideTheCaptureRangeOnGpu()
    {
        QFETCH(QStringList, options);
        QFETCH(int, profiled);
        if (const QString why = whyNoGpuRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString out = dir.filePath("capture.wscope");
        const auto r = runCli(QStringList {"profile", "-o", out, "--section", "SpeedOfLight"} + options
                + QStringList {"--", kWorkload, "capture"},
            gpuRunEnvironment());
        if (const QString why = profilingUnavailable(r); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY2(uncleanEnd(r).isEmpty(), qPrintable(uncleanEnd(r)));
        QVERIFY2(!r.err.contains("capture: element"), qPrintable(r.err)); // the program's own check
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(profiled));
    }

    // The program that found it: PyTorch's cuDNN convolution after two copy kernels, profiled
    // whole (examples/python/fidelity_ops.py checks the result on the host). Skips without
    // PyTorch.
    void pytorchConvolutionAfterAllocationsOnGpu_data() { replayKeepsTheProgramsMemoryOnGpu_data(); }
    void pytorchConvolutionAfterAllocationsOnGpu()
    {
        QFETCH(QString, cacheControl);
        if (const QString why = whyNoGpuRun(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QProcess probe;
        probe.start(QStringLiteral("python3"), {QStringLiteral("-c"), QStringLiteral("import torch")});
        if (!probe.waitForFinished(60000) || probe.exitCode() != 0)
            QSKIP("python3 with PyTorch is not available here");
        const QString script = QStringLiteral(WS_FIXTURES_DIR "/../../examples/python/fidelity_ops.py");
        QTemporaryDir dir;
        const QString out = dir.filePath("conv.wscope");
        const auto r = runCli({"profile", "-o", out, "--section", "SpeedOfLight", "--cache-control", cacheControl, "--",
                                  "python3", script, "conv2d_fp16", "--launches", "2"},
            gpuRunEnvironment());
        QVERIFY2(uncleanEnd(r).isEmpty(), qPrintable(uncleanEnd(r)));
        const SessionData s = SessionReader(out.toStdString()).readAll();
        // The two layout copies and both convolutions (cuDNN may add transforms of its own).
        size_t notCopies = 0;
        for (const auto& k : s.kernels)
            notCopies += s.str(k.shortName).find("elementwise") == std::string::npos ? 1 : 0;
        QVERIFY2(s.kernels.size() >= 4 && notCopies >= 2, qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestProfileGpu)
#include "tst_profile_gpu.moc"

// SPDX-License-Identifier: MIT
// Golden tests: each importer on a real fixture. Expected figures were computed independently
// of this code with Python's json / csv modules over the same files (tests/fixtures/import/
// README.md lists the commands); they are not outputs of the importers.
//
// Fixture provenance (scripts/h200/import-fixtures.sh on an NVIDIA H200, torch 2.11.0+cu130,
// triton 3.6.0, ncu 2025.3.1): kineto_mm_relu.json (torch.profiler export_chrome_trace of an
// mm+relu loop), ncu_raw.csv (--log-file), ncu_mixed.txt (stdout mixed with the program's
// output), ncu_import.csv (ncu --import of a report of the same run as ncu_raw.csv),
// proton_mm_relu.hatchet (triton.profiler). nsys cannot produce reports on that machine, so the
// nsys fixture nsys-3.16-small.sql is written by hand from the documented schema 3.16.1.
#include "core/import/importer.h"
#include "core/import/ncuimporter.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/store/sqlite.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <numeric>

using namespace ws;

namespace {

std::string fixture(const char* name)
{
    return std::string(WS_FIXTURES_DIR) + "/import/" + name;
}

std::string readText(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

// Builds the nsys fixture database from its SQL text.
std::string buildNsysDatabase(const QTemporaryDir& dir, const char* sqlFile = "nsys-3.16-small.sql")
{
    const std::string path = dir.filePath("report.sqlite").toStdString();
    sqlite::Database db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    db.exec(readText(fixture(sqlFile)).c_str());
    return path;
}

template <typename Records> int64_t totalDuration(const Records& rows)
{
    return std::accumulate(
        rows.begin(), rows.end(), int64_t(0), [](int64_t s, const auto& r) { return s + (r.end - r.start); });
}

const ThreadInfo* findThread(const SessionData& d, int64_t pid, int64_t tid)
{
    for (const auto& t : d.threads) {
        if (t.pid == pid && t.tid == tid)
            return &t;
    }
    return nullptr;
}

uint32_t metricId(const SessionData& d, const std::string& name)
{
    for (const auto& m : d.metricDefs) {
        if (m.name == name)
            return m.id;
    }
    return 0;
}

double metricValue(const SessionData& d, int64_t kernelId, const std::string& name)
{
    const uint32_t id = metricId(d, name);
    for (const auto& m : d.kernelMetrics) {
        if (m.kernelId == kernelId && m.metricId == id)
            return m.value;
    }
    return -1;
}

} // namespace

class TestImportGolden : public QObject {
    Q_OBJECT

private slots:
    void kineto()
    {
        const SessionData d = importSession(fixture("kineto_mm_relu.json"), ImportFormat::Auto, {});
        QCOMPARE(d.meta.at("import.format"), std::string("kineto"));
        // X events per cat (python): kernel 48, cuda_runtime 90, gpu_memcpy 16, gpu_memset 8,
        // cuda_sync 10, gpu_user_annotation 8, user_annotation 8, cpu_op 136, overhead 1, Trace 1;
        // instants: 2.
        QCOMPARE(d.kernels.size(), size_t(48));
        QCOMPARE(d.apiCalls.size(), size_t(90));
        QCOMPARE(d.memcpys.size(), size_t(16));
        QCOMPARE(d.memsets.size(), size_t(8));
        QCOMPARE(d.syncs.size(), size_t(10));
        QCOMPARE(d.overheads.size(), size_t(1));
        QCOMPARE(d.nvtxRanges.size(), size_t(8 + 8 + 136 + 1));
        QCOMPARE(d.nvtxMarks.size(), size_t(2));
        // Sum of kernel durations, exact in ns (Decimal arithmetic on the "dur" text): 177214.
        QCOMPARE(totalDuration(d.kernels), int64_t(177214));

        // The first kernel by ts: ts 5085649816964.901 us, dur 10.24 us.
        const KernelRecord& k = d.kernels.front();
        QCOMPARE(k.id, int64_t(1));
        QCOMPARE(k.start, int64_t(5085649816964901));
        QCOMPARE(k.end, int64_t(5085649816975141));
        QCOMPARE(d.str(k.demangledName),
            std::string("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_"
                        "alignc4_execute_kernel__5x_cublas"));
        QCOMPARE(k.correlationId, 11u);
        QCOMPARE(k.streamId, 7u);
        QCOMPARE(k.deviceId, 0u);
        QCOMPARE(k.pid, int64_t(462)); // the host process, through correlation 11 (cudaLaunchKernelExC)
        QCOMPARE(std::tie(k.gridX, k.gridY, k.gridZ), std::make_tuple(8, 8, 4));
        QCOMPARE(std::tie(k.blockX, k.blockY, k.blockZ), std::make_tuple(128, 1, 1));
        QCOMPARE(k.registersPerThread, 121);
        QCOMPARE(k.staticSmemBytes, 12672);
        QCOMPARE(d.str(d.kernels[1].demangledName),
            std::string("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_"
                        "alignc4_execute_split_k_kernel__5x_cublas"));
        QCOMPARE(d.kernels[1].start, int64_t(5085649816986341));
        QCOMPARE(d.kernels[1].end, int64_t(5085649816989509));
        // Kernels named "void at::native::reduce_kernel<512, ...>": 16 (python Counter).
        const auto reduce = std::count_if(
            d.kernels.begin(), d.kernels.end(), [&](const auto& r) { return d.str(r.shortName) == "reduce_kernel"; });
        QCOMPARE(reduce, 16);

        // Copies: 8 "Memcpy HtoD (Pinned -> Device)" + 8 DtoH, 131104 bytes in all.
        const MemcpyRecord& m = d.memcpys.front();
        QCOMPARE(m.start, int64_t(5085649817301924));
        QCOMPARE(m.end - m.start, int64_t(1568));
        QCOMPARE(m.copyKind, CopyKind::HtoD);
        QCOMPARE(m.srcKind, 2); // CUPTI_ACTIVITY_MEMORY_KIND_PINNED
        QCOMPARE(m.dstKind, 3); // DEVICE
        QCOMPARE(m.bytes, int64_t(16384));
        QCOMPARE(std::accumulate(d.memcpys.begin(), d.memcpys.end(), int64_t(0),
                     [](int64_t s, const auto& r) { return s + r.bytes; }),
            int64_t(131104));
        QCOMPARE(std::count_if(
                     d.memcpys.begin(), d.memcpys.end(), [](const auto& r) { return r.copyKind == CopyKind::DtoH; }),
            8);

        // cuda_sync_kind: 8 "Stream Sync", 2 "Context Sync"; the thread comes from the API call.
        QCOMPARE(std::count_if(d.syncs.begin(), d.syncs.end(),
                     [](const auto& s) { return s.kind == SyncKind::StreamSynchronize; }),
            8);
        QCOMPARE(std::count_if(d.syncs.begin(), d.syncs.end(),
                     [](const auto& s) { return s.kind == SyncKind::ContextSynchronize; }),
            2);
        for (const auto& s : d.syncs) {
            QCOMPARE(s.pid, int64_t(462));
            QCOMPARE(s.tid, int64_t(462));
        }

        // Runtime calls: 32 cudaLaunchKernel, all on pid/tid 462.
        QCOMPARE(std::count_if(d.apiCalls.begin(), d.apiCalls.end(),
                     [&](const auto& a) { return d.str(a.name) == "cudaLaunchKernel"; }),
            32);
        QVERIFY(std::all_of(
            d.apiCalls.begin(), d.apiCalls.end(), [](const auto& a) { return a.pid == 462 && a.tid == 462; }));

        // Ranges: record_function "mm_relu" outermost, aten::matmul one level in, aten::mm two.
        for (const auto& r : d.nvtxRanges) {
            const std::string& name = d.str(r.name);
            if (r.tid != 462)
                continue;
            if (name == "mm_relu")
                QCOMPARE(r.depth, 0);
            else if (name == "aten::matmul")
                QCOMPARE(r.depth, 1);
            else if (name == "aten::mm")
                QCOMPARE(r.depth, 2);
        }
        // gpu_user_annotation: earliest at 5085649816964.900 us for 150.369 us, on its own thread.
        const auto gpuRange = std::find_if(
            d.nvtxRanges.begin(), d.nvtxRanges.end(), [](const auto& r) { return r.start == 5085649816964900; });
        QVERIFY(gpuRange != d.nvtxRanges.end());
        QCOMPARE(gpuRange->end - gpuRange->start, int64_t(150369));
        QCOMPARE(d.str(gpuRange->name), std::string("mm_relu"));
        const ThreadInfo* annotations = findThread(d, 462, gpuRange->tid);
        QVERIFY(annotations);
        QCOMPARE(annotations->name, std::string("GPU 0 stream 7 annotations"));

        // Metadata: process_name python3, thread_name, deviceProperties.
        const auto proc
            = std::find_if(d.processes.begin(), d.processes.end(), [](const auto& p) { return p.pid == 462; });
        QVERIFY(proc != d.processes.end());
        QCOMPARE(proc->name, std::string("python3"));
        QVERIFY(findThread(d, 462, 462));
        QCOMPARE(findThread(d, 462, 462)->name, std::string("thread 462 (python3)"));
        QCOMPARE(d.devices.size(), size_t(1));
        QCOMPARE(d.devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(d.devices[0].smCount, 132);
        QCOMPARE(d.devices[0].ccMajor, 9);
        QCOMPARE(d.devices[0].maxWarpsPerSm, 64); // maxThreadsPerMultiprocessor 2048 / warpSize 32
        QCOMPARE(d.devices[0].globalMemBytes, int64_t(150109880320));
        QCOMPARE(d.devices[0].pid, int64_t(462));
        QCOMPARE(d.environment.at("trace.baseTimeNanoseconds"), std::string("1790857026000000000"));
        const auto stream
            = std::find_if(d.streams.begin(), d.streams.end(), [](const auto& s) { return s.streamId == 7; });
        QVERIFY(stream != d.streams.end());
        QCOMPARE(stream->label, std::string("stream 7 "));

        // Without CPU ops only the 8 + 8 annotations and the profiler span remain.
        ImportOptions noCpu;
        noCpu.cpuOps = false;
        QCOMPARE(
            importSession(fixture("kineto_mm_relu.json"), ImportFormat::Kineto, noCpu).nvtxRanges.size(), size_t(17));
    }

    void proton()
    {
        const SessionData d = importSession(fixture("proton_mm_relu.hatchet"), ImportFormat::Auto, {});
        QCOMPARE(d.meta.at("import.format"), std::string("proton"));
        // Leaves (python json): counts 16 + 8 + 8 + 8 + 8 = 48, time (ns) 56927 + 7392 + 10432 + 79425
        // + 23167 = 177343.
        QCOMPARE(d.kernels.size(), size_t(48));
        QCOMPARE(totalDuration(d.kernels), int64_t(177343));
        std::map<std::string, std::pair<int, int64_t>> byName;
        for (const auto& k : d.kernels) {
            auto& [count, total] = byName[d.str(k.shortName)];
            ++count;
            total += k.end - k.start;
        }
        QCOMPARE(byName["reduce_kernel"], std::make_pair(16, int64_t(56927)));
        QCOMPARE(
            byName["sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_"
                   "execute_kernel__5x_cublas"],
            std::make_pair(8, int64_t(79425)));
        // 56927 ns over 16 launches: 15 of 3558 and one of 3557.
        for (const auto& k : d.kernels) {
            if (d.str(k.shortName) == "reduce_kernel")
                QVERIFY(k.end - k.start == 3558 || k.end - k.start == 3557);
        }
        // Mangled names are kept and demangled.
        const auto reduce = std::find_if(
            d.kernels.begin(), d.kernels.end(), [&](const auto& k) { return d.str(k.shortName) == "reduce_kernel"; });
        QVERIFY(d.str(reduce->mangledName).rfind("_ZN2at6native13reduce_kernel", 0) == 0);
        QVERIFY(d.str(reduce->demangledName).find("at::native::reduce_kernel<512, 1") != std::string::npos);
        // Scopes "loop" > "step" enclose every launch.
        QCOMPARE(d.nvtxRanges.size(), size_t(2));
        QCOMPARE(d.str(d.nvtxRanges[0].name), std::string("loop"));
        QCOMPARE(d.nvtxRanges[0].depth, 0);
        QCOMPARE(d.str(d.nvtxRanges[1].name), std::string("step"));
        QCOMPARE(d.nvtxRanges[1].depth, 1);
        QCOMPARE(d.nvtxRanges[1].end - d.nvtxRanges[1].start, int64_t(177343));
        // device_info: arch "90", 132 SMs, clock 1980000 kHz, memory 3201000 kHz x 6016 bits.
        QCOMPARE(d.devices.size(), size_t(1));
        QCOMPARE(d.devices[0].ccMajor, 9);
        QCOMPARE(d.devices[0].ccMinor, 0);
        QCOMPARE(d.devices[0].smCount, 132);
        QCOMPARE(d.devices[0].smClockKhz, int64_t(1980000));
        QCOMPARE(d.devices[0].dramBandwidthBytesPerS, 2.0 * 3201000e3 * 6016 / 8);
        QVERIFY(d.meta.at("import.timestamps").rfind("synthetic", 0) == 0);
    }

    void ncu_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<qint64>("totalNs");
        QTest::addColumn<int>("cells");
        QTest::addColumn<int>("skipped");
        QTest::addColumn<double>("smThroughputKernel3");
        // Figures from python csv: rows, sum of gpu__time_duration.sum, numeric metric cells,
        // lines that are not CSV records, sm__throughput...elapsed of ID 2.
        QTest::newRow("log-file") << "ncu_raw.csv" << 8 << qint64(43488) << 4392 << 4 << 53.79;
        QTest::newRow("stdout mixed with program output")
            << "ncu_mixed.txt" << 6 << qint64(38880) << 3294 << 7 << 53.75;
        QTest::newRow("ncu --import of the report") << "ncu_import.csv" << 8 << qint64(43488) << 4392 << 0 << 53.79;
    }

    void ncu()
    {
        QFETCH(QString, file);
        QFETCH(int, kernels);
        QFETCH(qint64, totalNs);
        QFETCH(int, cells);
        QFETCH(int, skipped);
        QFETCH(double, smThroughputKernel3);
        const SessionData d = importSession(fixture(file.toUtf8().constData()), ImportFormat::Auto, {});
        QCOMPARE(d.meta.at("import.format"), std::string("ncu-csv"));
        QCOMPARE(d.kernels.size(), size_t(kernels));
        QCOMPARE(totalDuration(d.kernels), int64_t(totalNs));
        QCOMPARE(d.metricDefs.size(), size_t(555)); // 566 columns - 11 identification columns
        QCOMPARE(d.kernelMetrics.size(), size_t(cells));
        QCOMPARE(d.meta.at("import.ncu.skippedLines"), std::to_string(skipped));
        // Kernel ID 2: the cuBLAS gemm, block (128, 1, 1), grid (8, 8, 4), 121 registers and
        // "12,672" bytes of dynamic shared memory (thousands separator in the CSV).
        const KernelRecord& k = d.kernels[2];
        QCOMPARE(d.str(k.demangledName),
            std::string("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_"
                        "alignc4_execute_kernel__5x_cublas"));
        QCOMPARE(std::tie(k.blockX, k.blockY, k.blockZ), std::make_tuple(128, 1, 1));
        QCOMPARE(std::tie(k.gridX, k.gridY, k.gridZ), std::make_tuple(8, 8, 4));
        QCOMPARE(k.registersPerThread, 121);
        QCOMPARE(k.dynamicSmemBytes, 12672);
        QCOMPARE(k.streamId, 7u);
        QCOMPARE(metricValue(d, k.id, "sm__throughput.avg.pct_of_peak_sustained_elapsed"), smThroughputKernel3);
        const auto sm = std::find_if(d.metricDefs.begin(), d.metricDefs.end(),
            [](const auto& m) { return m.name == "sm__throughput.avg.pct_of_peak_sustained_elapsed"; });
        QCOMPARE(sm->unit, std::string("%"));
        // Kernels are laid back to back: each starts where the previous ended.
        for (size_t i = 1; i < d.kernels.size(); ++i)
            QCOMPARE(d.kernels[i].start, d.kernels[i - 1].end);
        // device__attribute_*: "1,980,000" kHz, "150,109,880,320" bytes, 132 SMs.
        QCOMPARE(d.devices.size(), size_t(1));
        QCOMPARE(d.devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(d.devices[0].smClockKhz, int64_t(1980000));
        QCOMPARE(d.devices[0].globalMemBytes, int64_t(150109880320));
        QCOMPARE(d.devices[0].smCount, 132);
        QCOMPARE(d.devices[0].memBusWidthBits, 6016);
    }

    void ncuLogFileAndImportAgree()
    {
        // The same report read live (--log-file) and through ncu --import gives the same tables.
        const SessionData a = importSession(fixture("ncu_raw.csv"), ImportFormat::NcuCsv, {});
        const SessionData b = importSession(fixture("ncu_import.csv"), ImportFormat::NcuCsv, {});
        QCOMPARE(a.kernels, b.kernels);
        QCOMPARE(a.kernelMetrics, b.kernelMetrics);
        QCOMPARE(a.metricDefs, b.metricDefs);
    }

    void ncuReportThroughNcu()
    {
        // A .ncu-rep is read by running `ncu --import`. ncu is not installed here, so a stand-in
        // executable replays what the real ncu printed for the fixture's report on the H200.
        QTemporaryDir dir;
        const QString fake = dir.filePath("ncu");
        QFile script(fake);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(
            QByteArray("#!/bin/sh\n[ \"$1\" = --import ] && [ \"$4\" = --page ] && [ \"$5\" = raw ] || exit 3\ncat '")
            + QByteArray::fromStdString(fixture("ncu_import.csv")) + "'\n");
        script.close();
        script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const std::string report = dir.filePath("run.ncu-rep").toStdString();
        QFile rep(QString::fromStdString(report));
        QVERIFY(rep.open(QIODevice::WriteOnly));
        rep.write("binary report stand-in");
        rep.close();
        QCOMPARE(detectImportFormat(report), ImportFormat::NcuCsv);
        ImportOptions options;
        options.ncuExecutable = fake.toStdString();
        const SessionData d = importSession(report, ImportFormat::Auto, options);
        QCOMPARE(d.kernels.size(), size_t(8));
        QCOMPARE(d.meta.at("import.source"), report);

        options.ncuExecutable = dir.filePath("no-such-ncu").toStdString();
        try {
            importSession(report, ImportFormat::Auto, options);
            QFAIL("expected an error without ncu");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), SessionError::Kind::BadInput);
            QVERIFY(std::string(e.what()).find("ncu") != std::string::npos);
            QCOMPARE(e.path(), report);
        }
    }

    void nsys()
    {
        QTemporaryDir dir;
        const std::string path = buildNsysDatabase(dir);
        const SessionData d = importSession(path, ImportFormat::Auto, {});
        QCOMPARE(d.meta.at("import.format"), std::string("nsys-sqlite"));
        QCOMPARE(d.meta.at("import.nsys.EXPORT_SCHEMA_VERSION"), std::string("3.16.1"));
        QCOMPARE(d.environment.at("nsys.Hostname"), std::string("gpu-node-7"));

        // Kernels come back in start order with ids 1..3, whatever the table order.
        QCOMPARE(d.kernels.size(), size_t(3));
        const KernelRecord& k = d.kernels[0];
        QCOMPARE(k.id, int64_t(1));
        QCOMPARE(k.start, int64_t(1005000));
        QCOMPARE(k.end, int64_t(1007500));
        QCOMPARE(k.pid, int64_t(4242)); // globalPid 71168950272 >> 24
        QCOMPARE(k.correlationId, 101u);
        QCOMPARE(d.str(k.shortName), std::string("vectorized_elementwise_kernel"));
        QCOMPARE(d.str(k.mangledName),
            std::string("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_"
                        "addIfEESt5arrayIPcLm3EEEEviT0_T1_"));
        QCOMPARE(k.gridX, 256);
        QCOMPARE(k.registersPerThread, 28);
        QCOMPARE(d.kernels[1].graphNodeId, uint64_t(77));
        QCOMPARE(d.kernels[2].streamId, 13u);
        QCOMPARE(d.kernels[2].dynamicSmemBytes, 213000);
        QCOMPARE(d.kernels[2].mangledName, StringId(0)); // NULL mangledName

        // Runtime (5) + driver (1) calls; thread ids from globalTid.
        QCOMPARE(d.apiCalls.size(), size_t(6));
        QCOMPARE(std::count_if(
                     d.apiCalls.begin(), d.apiCalls.end(), [](const auto& a) { return a.domain == ApiDomain::Driver; }),
            1);
        const auto worker
            = std::find_if(d.apiCalls.begin(), d.apiCalls.end(), [](const auto& a) { return a.correlationId == 105; });
        QCOMPARE(worker->tid, int64_t(4250));
        QCOMPARE(d.str(worker->name), std::string("cudaLaunchKernel_v7000"));

        // Copies: nsys memory kinds (0 Pageable, 2 Device, 4 Managed) become CUPTI's (+1).
        QCOMPARE(d.memcpys.size(), size_t(2));
        QCOMPARE(d.memcpys[0].copyKind, CopyKind::HtoD);
        QCOMPARE(d.memcpys[0].bytes, int64_t(1048576));
        QCOMPARE(d.memcpys[0].srcKind, 1);
        QCOMPARE(d.memcpys[0].dstKind, 3);
        QCOMPARE(d.memcpys[1].copyKind, CopyKind::HtoD); // 11: unified host-to-device
        QCOMPARE(d.memcpys[1].srcKind, 5);
        QCOMPARE(d.memsets.size(), size_t(1));
        QCOMPARE(d.memsets[0].value, 255);
        QCOMPARE(d.memsets[0].bytes, int64_t(4096));

        // The sync row names only the process; its thread comes from cudaStreamSynchronize.
        QCOMPARE(d.syncs.size(), size_t(1));
        QCOMPARE(d.syncs[0].kind, SyncKind::StreamSynchronize);
        QCOMPARE(d.syncs[0].tid, int64_t(4242));

        // NVTX: push/pop nesting, a start/end range in a named domain ending on another thread,
        // a registered-string mark, and a range never popped that runs to the end of the capture.
        QCOMPARE(d.nvtxRanges.size(), size_t(4));
        QCOMPARE(d.str(d.nvtxRanges[0].name), std::string("train_step"));
        QCOMPARE(d.nvtxRanges[0].depth, 0);
        QCOMPARE(d.nvtxRanges[0].color, 4278255360u);
        QCOMPARE(d.nvtxRanges[0].category, 3);
        QCOMPARE(d.str(d.nvtxRanges[1].name), std::string("forward"));
        QCOMPARE(d.nvtxRanges[1].depth, 1);
        QCOMPARE(d.str(d.nvtxRanges[2].name), std::string("load batch"));
        QCOMPARE(d.nvtxRanges[2].style, NvtxStyle::StartEnd);
        QCOMPARE(d.str(d.nvtxRanges[2].domain), std::string("MyDomain"));
        QCOMPARE(d.nvtxRanges[2].endTid, int64_t(4250));
        QCOMPARE(d.str(d.nvtxRanges[3].name), std::string("never popped"));
        QCOMPARE(d.nvtxRanges[3].end, int64_t(9000000)); // ANALYSIS_DETAILS.stopTime
        QCOMPARE(d.nvtxMarks.size(), size_t(1));
        QCOMPARE(d.str(d.nvtxMarks[0].name), std::string("checkpoint"));
        QCOMPARE(d.str(d.nvtxMarks[0].domain), std::string("MyDomain"));

        // Physical GPU 3 was CUDA device 0 of process 4242.
        QCOMPARE(d.devices.size(), size_t(1));
        QCOMPARE(d.devices[0].id, 0u);
        QCOMPARE(d.devices[0].pid, int64_t(4242));
        QCOMPARE(d.devices[0].smClockKhz, int64_t(1980000));
        QCOMPARE(d.devices[0].dramBandwidthBytesPerS, 4.8e12);
        QCOMPARE(d.devices[0].maxWarpsPerSm, 64);
        QCOMPARE(d.processes.size(), size_t(1));
        QCOMPARE(d.processes[0].name, std::string("python3"));
        QCOMPARE(d.processes[0].anchorRealtimeNs, int64_t(1790857026000000000));
        QVERIFY(findThread(d, 4242, 4250));
        QCOMPARE(findThread(d, 4242, 4250)->name, std::string("dataloader"));
    }

    void nsysOlderSchemaWithoutOptionalColumns()
    {
        // 2021-style export: no greenContextId / mangledName / graphNodeId columns, no
        // TARGET_INFO_CUDA_DEVICE and no enum table. Missing columns read as 0.
        QTemporaryDir dir;
        const std::string path = dir.filePath("old.sqlite").toStdString();
        {
            sqlite::Database db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            db.exec(
                "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                "INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000'), (3, 'r');"
                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
                " correlationId INTEGER NOT NULL, globalPid INTEGER NOT NULL, demangledName INTEGER NOT NULL,"
                " shortName INTEGER NOT NULL, gridX INTEGER NOT NULL);"
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (20, 30, 0, 1, 7, 5, 16777216, 1, 1, 2);"
                "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                " globalTid INTEGER NOT NULL, correlationId INTEGER NOT NULL, nameId INTEGER NOT NULL);"
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 25, 16777218, 5, 2);"
                "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, eventType INTEGER NOT NULL,"
                " text TEXT, globalTid INTEGER NOT NULL);"
                "INSERT INTO NVTX_EVENTS VALUES (5, 40, 59, 'outer', 16777218), (70, 80, 70, 'nvtxt', 16777218);");
        }
        const SessionData d = importSession(path, ImportFormat::NsysSqlite, {});
        QCOMPARE(d.kernels.size(), size_t(1));
        QCOMPARE(d.kernels[0].pid, int64_t(1));
        QCOMPARE(d.kernels[0].gridX, 2);
        QCOMPARE(d.kernels[0].blockX, 0);
        QCOMPARE(d.kernels[0].mangledName, StringId(0));
        QCOMPARE(d.apiCalls.size(), size_t(1));
        QCOMPARE(d.apiCalls[0].tid, int64_t(2));
        QCOMPARE(d.nvtxRanges.size(), size_t(2)); // 59 and the NVTXT push/pop type 70
        QCOMPARE(d.str(d.nvtxRanges[0].name), std::string("outer"));
    }

    void importedSessionsSaveAndLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("streamEvents"); // kernels + copies + memsets on the GPU lanes
        QTest::newRow("kineto") << "kineto_mm_relu.json" << 48 + 16 + 8;
        QTest::newRow("proton") << "proton_mm_relu.hatchet" << 48;
        QTest::newRow("ncu") << "ncu_raw.csv" << 8;
        QTest::newRow("nsys") << "" << 3 + 2 + 1;
    }

    void importedSessionsSaveAndLoad()
    {
        // An import is an ordinary session: SessionWriter saves it, SessionReader and the
        // timeline load it back unchanged.
        QFETCH(QString, file);
        QFETCH(int, streamEvents);
        QTemporaryDir dir;
        const std::string source = file.isEmpty() ? buildNsysDatabase(dir) : fixture(file.toUtf8().constData());
        const SessionData d = importSession(source, ImportFormat::Auto, {});
        const std::string out = dir.filePath("imported.wscope").toStdString();
        {
            SessionWriter writer(out);
            attachLaneCache(writer);
            writer.write(d);
            writer.commit();
        }
        SessionReader reader(out);
        const SessionData back = reader.readAll();
        QCOMPARE(back.kernels, d.kernels);
        QCOMPARE(back.memcpys, d.memcpys);
        QCOMPARE(back.apiCalls, d.apiCalls);
        QCOMPARE(back.nvtxRanges, d.nvtxRanges);
        QCOMPARE(back.kernelMetrics, d.kernelMetrics);
        QCOMPARE(back.devices, d.devices);
        QCOMPARE(back.meta.at("import.format"), d.meta.at("import.format"));
        const auto model = TimelineModel::load(reader);
        int64_t onStreams = 0;
        for (const auto& lane : model->lanes) {
            if (lane.kind == LaneKind::GpuStream)
                onStreams += static_cast<int64_t>(lane.size());
        }
        QCOMPARE(onStreams, int64_t(streamEvents));
    }
};

QTEST_GUILESS_MAIN(TestImportGolden)
#include "tst_import_golden.moc"

// SPDX-License-Identifier: MIT
#pragma once

// Plain value types for everything a session holds. They cross threads by value and map
// one-to-one onto the tables of the session file (docs/session-format.md). Times are int64
// nanoseconds in one monotonic clock domain (CLOCK_MONOTONIC of the recording host); the
// (realtime, monotonic) anchor in `process` maps them to wall clock.
//
// String ids index SessionData::strings (id 0 is always the empty string) so names are
// stored once however many events carry them.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ws {

using StringId = uint32_t;
using TimeNs = int64_t;

struct ProcessInfo {
    int64_t pid = 0;
    std::string name;
    std::string commandLine;
    int exitCode = -1;  // -1 when unknown or killed by a signal
    int exitSignal = 0; // 0 when it exited normally
    TimeNs anchorRealtimeNs = 0;
    TimeNs anchorMonotonicNs = 0;
    int64_t parentPid = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const ProcessInfo&) const = default;
};

struct ThreadInfo {
    int64_t pid = 0;
    int64_t tid = 0;
    std::string name;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const ThreadInfo&) const = default;
};

// Everything the occupancy calculator and the roofline need about one GPU.
struct DeviceInfo {
    uint32_t id = 0; // CUDA device ordinal in the recording process
    int64_t pid = 0; // process that saw it (several processes may share a device)
    std::string name;
    std::string uuid;
    int ccMajor = 0;
    int ccMinor = 0;
    int smCount = 0;
    int64_t smClockKhz = 0;    // current (at record time)
    int64_t smClockMaxKhz = 0; // maximum boost clock
    int64_t memClockKhz = 0;
    int memBusWidthBits = 0;
    int64_t l2Bytes = 0;
    int64_t globalMemBytes = 0;
    int regsPerSm = 0;
    int regsPerBlock = 0;
    int64_t smemPerSm = 0;
    int64_t smemPerBlock = 0;
    int64_t smemPerBlockOptin = 0;
    int64_t smemReservedPerBlock = 0;
    int maxWarpsPerSm = 0;
    int maxBlocksPerSm = 0;
    int maxThreadsPerBlock = 0;
    int warpSize = 32;
    double dramBandwidthBytesPerS = 0; // 2 * memClock * busWidth / 8 (DDR)
    double peakFp32FlopsPerS = 0;
    double peakFp64FlopsPerS = 0;
    double peakFp16TensorFlopsPerS = 0; // dense
    double peakBf16TensorFlopsPerS = 0;
    double peakFp8TensorFlopsPerS = 0;
    double peakTf32TensorFlopsPerS = 0;
    double l2BandwidthBytesPerS = 0;
    double l1BandwidthBytesPerS = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const DeviceInfo&) const = default;
};

struct StreamInfo {
    int64_t pid = 0;
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0; // CUPTI stream id
    int priority = 0;
    std::string label;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const StreamInfo&) const = default;
};

struct KernelRecord {
    int64_t id = 0; // launch id: unique per session, order of start within the session
    int64_t pid = 0;
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0;
    uint32_t correlationId = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    TimeNs queued = 0;    // 0 when not recorded
    TimeNs submitted = 0; // 0 when not recorded
    StringId mangledName = 0;
    StringId demangledName = 0;
    StringId shortName = 0;
    int32_t gridX = 0, gridY = 0, gridZ = 0;
    int32_t blockX = 0, blockY = 0, blockZ = 0;
    int32_t clusterX = 0, clusterY = 0, clusterZ = 0;
    int32_t registersPerThread = 0;
    int32_t staticSmemBytes = 0;
    int32_t dynamicSmemBytes = 0;
    int32_t localMemPerThread = 0;
    uint32_t graphId = 0;
    uint64_t graphNodeId = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const KernelRecord&) const = default;
};

// A kernel launch's shape: its grid, block and cluster and the per-thread and per-block resources
// the occupancy calculator needs. The launch panels' configurations (LaunchConfig) and the lane
// cache's launch rows (LaunchAttributes) both hold one, taken from the kernel record by of().
struct KernelShape {
    std::array<int32_t, 3> grid {};
    std::array<int32_t, 3> block {};
    std::array<int32_t, 3> cluster {};
    int32_t registersPerThread = 0;
    int32_t staticSmemBytes = 0;
    int32_t dynamicSmemBytes = 0;
    int32_t localMemPerThread = 0;

    static KernelShape of(const KernelRecord& k)
    {
        KernelShape s;
        s.grid = {k.gridX, k.gridY, k.gridZ};
        s.block = {k.blockX, k.blockY, k.blockZ};
        s.cluster = {k.clusterX, k.clusterY, k.clusterZ};
        s.registersPerThread = k.registersPerThread;
        s.staticSmemBytes = k.staticSmemBytes;
        s.dynamicSmemBytes = k.dynamicSmemBytes;
        s.localMemPerThread = k.localMemPerThread;
        return s;
    }
    auto fields() const
    {
        return std::tie(grid, block, cluster, registersPerThread, staticSmemBytes, dynamicSmemBytes, localMemPerThread);
    }
    bool operator==(const KernelShape&) const = default;
};

enum class CopyKind : int32_t {
    Unknown = 0,
    HtoD = 1,
    DtoH = 2,
    HtoA = 3,
    AtoH = 4,
    AtoA = 5,
    AtoD = 6,
    DtoA = 7,
    DtoD = 8,
    HtoH = 9,
    PtoP = 10
};

struct MemcpyRecord {
    int64_t id = 0;
    int64_t pid = 0;
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0;
    uint32_t correlationId = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    int64_t bytes = 0;
    CopyKind copyKind = CopyKind::Unknown;
    int32_t srcKind = 0; // CUpti_ActivityMemoryKind
    int32_t dstKind = 0;
    uint32_t graphId = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const MemcpyRecord&) const = default;
};

struct MemsetRecord {
    int64_t id = 0;
    int64_t pid = 0;
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0;
    uint32_t correlationId = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    int64_t bytes = 0;
    int32_t value = 0;
    uint32_t graphId = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const MemsetRecord&) const = default;
};

enum class ApiDomain : int32_t { Runtime = 0, Driver = 1 };

struct ApiCallRecord {
    int64_t id = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    uint32_t correlationId = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    ApiDomain domain = ApiDomain::Runtime;
    int32_t cbid = 0;
    StringId name = 0; // as CUPTI names it, e.g. cudaLaunchKernel_v7000
    int32_t returnValue = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const ApiCallRecord&) const = default;
};

enum class NvtxStyle : int32_t { PushPop = 0, StartEnd = 1 };

struct NvtxRangeRecord {
    int64_t id = 0;
    int64_t pid = 0;
    int64_t tid = 0;    // thread that started the range
    int64_t endTid = 0; // thread that ended it (start/end ranges may cross threads)
    TimeNs start = 0;
    TimeNs end = 0; // ranges never closed get the last timestamp of the session
    StringId name = 0;
    StringId domain = 0; // 0 = default domain
    int32_t category = 0;
    uint32_t color = 0; // ARGB, 0 = none
    NvtxStyle style = NvtxStyle::PushPop;
    int32_t depth = 0;  // nesting level on its thread, 0 = outermost
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const NvtxRangeRecord&) const = default;
};

struct NvtxMarkRecord {
    int64_t id = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    TimeNs ts = 0;
    StringId name = 0;
    StringId domain = 0;
    int32_t category = 0;
    uint32_t color = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const NvtxMarkRecord&) const = default;
};

enum class SyncKind : int32_t {
    Unknown = 0,
    EventSynchronize = 1,
    StreamWaitEvent = 2,
    StreamSynchronize = 3,
    ContextSynchronize = 4
};

struct SyncRecord {
    int64_t id = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0; // 0xFFFFFFFF for context-wide
    uint32_t correlationId = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    SyncKind kind = SyncKind::Unknown;
    uint32_t eventId = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const SyncRecord&) const = default;
};

// One cudaEventRecord / cuEventRecord, cudaStreamWaitEvent / cuStreamWaitEvent or
// cudaEventSynchronize / cuEventSynchronize call (table event_op): what makes the dependencies
// between streams visible (core/model/streamdependencies.h derives them).
enum class EventOpKind : int32_t { Record = 0, Wait = 1, Synchronize = 2 };

struct EventOpRecord {
    int64_t id = 0;
    int64_t pid = 0;
    int64_t tid = 0; // calling thread
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0;      // the program's id of the stream (as GPU rows); 0 for Synchronize / unknown
    uint32_t correlationId = 0; // orders the call among the process's launches
    TimeNs start = 0;           // the host call
    TimeNs end = 0;
    EventOpKind kind = EventOpKind::Record;
    uint64_t event = 0;  // the event handle as the process saw it
    uint64_t stream = 0; // the stream handle as passed (0: the default stream)
    uint32_t flags = 0;
    ApiDomain domain = ApiDomain::Runtime;
    int32_t cbid = 0;
    int32_t returnValue = 0;
    // The GPU op the call is anchored to on its stream, resolved by ingest (anchorEventOps in
    // core/model/streamdependencies.h) so that readers need not scan the GPU tables: for a
    // Record the last op issued on the stream before it (what the event completes after), for
    // a Wait the first op issued on the stream after it (what waits). opTable: -1 not resolved,
    // 0 none, 1 kernel, 2 memcpy, 3 memset (GpuOpRef::Table); opStart/opEnd its GPU times.
    int32_t opTable = -1;
    int64_t opId = 0;
    TimeNs opStart = 0;
    TimeNs opEnd = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const EventOpRecord&) const = default;
};

struct OverheadRecord {
    int64_t id = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    StringId kind = 0;  // e.g. "activity buffer request"
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const OverheadRecord&) const = default;
};

struct MetricDef {
    uint32_t id = 0;
    std::string name; // ncu metric name, e.g. sm__throughput.avg.pct_of_peak_sustained_elapsed
    std::string unit;
    std::string section;
    std::string description;
    bool operator==(const MetricDef&) const = default;
};

struct KernelMetric {
    int64_t kernelId = 0;
    uint32_t metricId = 0;
    double value = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const KernelMetric&) const = default;
};

struct CounterTrack {
    uint32_t id = 0;
    int64_t pid = 0;
    uint32_t deviceId = 0;
    std::string name;
    std::string unit;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const CounterTrack&) const = default;
};

struct CounterSample {
    uint32_t trackId = 0;
    TimeNs ts = 0;
    double value = 0;
    bool operator==(const CounterSample&) const = default;
};

struct BenchRun {
    uint32_t id = 0;
    std::string workload;
    std::string implementation;
    std::string boundary;    // in words: what the interval covers
    std::string timer;       // cuda-events-per-call, cuda-events-per-batch, wallclock-sync-per-call
    std::string cachePolicy; // flush | warm
    std::string unit;        // unit of bench_sample.value, e.g. ms
    std::string optionsJson;
    double workFlops = 0; // declared work per call, 0 when not applicable
    double workBytes = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const BenchRun&) const = default;
};

struct BenchSample {
    uint32_t runId = 0;
    int32_t round = 0;
    int32_t call = -1; // -1: a per-round (batch) sample
    double value = 0;
    bool operator==(const BenchSample&) const = default;
};

enum class WarpEventKind : int32_t { Range = 0, Mark = 1, AsyncRange = 2 };

struct WarpEvent {
    int64_t id = 0;
    int64_t kernelId = 0;
    int32_t block = 0;
    int32_t warp = 0;
    int32_t sm = 0;
    StringId role = 0;
    StringId name = 0;
    WarpEventKind kind = WarpEventKind::Range;
    TimeNs begin = 0;
    TimeNs end = 0; // == begin for marks
    int32_t depth = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const WarpEvent&) const = default;
};

// Source counters (PC sampling, `profile --section SourceCounters`): one row per function of a
// sampled cubin, its SASS instructions with their source lines, counter values per instruction
// and launch, and the CUDA source text captured at record time (the viewer needs no toolkit).
struct SassFunction {
    uint32_t id = 0;
    int64_t pid = 0;
    uint64_t cubinCrc = 0;    // CUPTI's cubin CRC: the key of PC sampling records
    StringId name = 0;        // mangled function name
    std::string disassembler; // e.g. "nvdisasm -c -gi" or "" when no disassembly was available
    uint32_t runId = 1;       // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const SassFunction&) const = default;
};

struct SassInstruction {
    uint32_t functionId = 0;
    uint64_t pcOffset = 0; // bytes from the function's start
    std::string text;      // SASS as the disassembler printed it, "" when only sampled
    StringId file = 0;     // source file of the innermost line-table entry, 0 = none
    int32_t line = 0;      // 0 = no line information
    bool operator==(const SassInstruction&) const = default;
};

struct SourceCounter {
    int64_t kernelId = 0;
    uint32_t functionId = 0;
    uint64_t pcOffset = 0;
    StringId counter = 0; // stall reason (CUPTI name, smsp__pcsamp_warps_issue_stalled_*) or inst_executed
    int64_t value = 0;
    uint32_t runId = 1; // run that produced the row (table run; schema v2, v1 files read 1)
    bool operator==(const SourceCounter&) const = default;
};

struct SourceFile {
    uint32_t id = 0;
    StringId path = 0; // as the line table names it
    std::string text;
    bool operator==(const SourceFile&) const = default;
};

// One run of a program that fed the session (schema v2, table run): a trace, a metric profile,
// PC sampling, a benchmark or an import. A session holds one or more; rows carry their runId.
struct RunInfo {
    uint32_t id = 1;
    std::string kind = "trace"; // trace | profile | pc-sampling | bench | import
    std::string commandLine;
    std::string cwd;
    std::string environmentJson; // {"NAME":"value",...}
    std::string host;
    std::string user;
    int64_t startRealtimeNs = 0; // wall clock, ns since the Unix epoch; 0 = unknown
    int64_t endRealtimeNs = 0;
    std::string optionsJson; // what the collector was asked for: sets, cache control, passes...
    bool operator==(const RunInfo&) const = default;
};

// A profiled launch (kernelId, in a profile or pc-sampling run) and the traced launch it
// corresponds to (traceKernelId): same process, same kernel, same per-name launch ordinal.
struct KernelLink {
    int64_t kernelId = 0;
    int64_t traceKernelId = 0;
    bool operator==(const KernelLink&) const = default;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

// The schema, declared once. Each table is one Codec: its TableInfo (name, primary key, ...) and
// one field list that names every column with the record field it maps to. That list drives the
// DDL (schema.cpp), bind (writer), column (reader), the content checksum, the table lists of
// info/export and the generated table reference in docs/session-format.md, so none of them can
// disagree on a column's name, type or position. A column added in a later schema version says
// so (Col::since): readers of older files skip it (the field keeps its default) and the checksum
// of an older file covers only the columns it had.

#include "core/model/records.h"
#include "core/store/schema.h"
#include "core/store/sqlite.h"
#include "core/util/hash.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ws::store {

template <class T> constexpr int64_t toInt64(T value)
{
    if constexpr (std::is_enum_v<T>)
        return static_cast<int64_t>(static_cast<std::underlying_type_t<T>>(value));
    else if constexpr (std::is_same_v<T, uint64_t>)
        return std::bit_cast<int64_t>(value); // graph node ids use all 64 bits
    else
        return static_cast<int64_t>(value);
}

template <class T> constexpr T fromInt64(int64_t value)
{
    if constexpr (std::is_enum_v<T>)
        return static_cast<T>(static_cast<std::underlying_type_t<T>>(value));
    else if constexpr (std::is_same_v<T, uint64_t>)
        return std::bit_cast<uint64_t>(value);
    else
        return static_cast<T>(value);
}

using Blob = std::vector<std::byte>;

// What an integer column refers to, so ids can be remapped generically (merging sessions) and
// the doc can say it: a string id, a pid, the id of another table's row, a run; Own: the row's
// own id in an event table without other references to it.
enum class Ref : uint8_t {
    None,
    Own,
    String,
    Pid,
    Kernel,
    Metric,
    CounterTrack,
    BenchRun,
    SassFunction,
    SourceFile,
    Run
};

// One column of a field list: its name, what it refers to, the schema version it first
// appeared in, UNIQUE.
struct Col {
    std::string_view name;
    Ref ref = Ref::None;
    int since = 1;
    bool unique = false;
    constexpr Col(const char* n, Ref r = Ref::None, int s = 1, bool u = false)
        : name(n)
        , ref(r)
        , since(s)
        , unique(u)
    {
    }
};

// "string.id", "kernel.id"...: the doc's name for a reference.
constexpr std::string_view refTarget(Ref ref)
{
    switch (ref) {
    case Ref::String:
        return "string.id";
    case Ref::Pid:
        return "process.pid";
    case Ref::Kernel:
        return "kernel.id";
    case Ref::Metric:
        return "metric_def.id";
    case Ref::CounterTrack:
        return "counter_track.id";
    case Ref::BenchRun:
        return "bench_run.id";
    case Ref::SassFunction:
        return "sass_function.id";
    case Ref::SourceFile:
        return "source_file.id";
    case Ref::Run:
        return "run.id";
    case Ref::None:
    case Ref::Own:
        break;
    }
    return "";
}

// Table-level facts. primaryKey: "" (none), one INTEGER column of a rowid table (the row id),
// or a column list. optional: files written before the table existed lack it. checked: the
// writer stores its row count and content hash in table_check.
struct TableInfo {
    std::string_view name;
    std::string_view primaryKey;
    // The columns a time window filters on (SessionReader::forEachRow, timeRange); "" for none.
    std::string_view timeBegin = "";
    std::string_view timeEnd = "";
    bool withoutRowid = false;
    bool optional = false;
    bool checked = true;
    int since = 1;
    std::string_view doc;
};

// Thrown for a NaN: SQLite turns NaN into NULL, which every REAL column of ours rejects.
class NanValue : public std::invalid_argument {
public:
    NanValue()
        : std::invalid_argument("NaN values cannot be stored (SQLite has no NaN)")
    {
    }
};

struct Binder {
    sqlite::Statement& statement;
    int index = 1;
    void operator()(Col, const std::string& text) { statement.bind(index++, std::string_view(text)); }
    void operator()(Col, const Blob& data) { statement.bindBlob(index++, data); }
    void operator()(Col, double value)
    {
        if (std::isnan(value))
            throw NanValue();
        statement.bind(index++, value);
    }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(Col, T value)
    {
        statement.bind(index++, toInt64(value));
    }
};

// Reads the columns of selectSql<R>(version): columns newer than the file keep their defaults.
struct ColumnReader {
    const sqlite::Statement& statement;
    int version = schema::kSchemaVersion;
    int index = 0;
    ColumnReader(const sqlite::Statement& st, int fileVersion = schema::kSchemaVersion)
        : statement(st)
        , version(fileVersion)
    {
    }
    void operator()(Col c, std::string& text)
    {
        if (c.since <= version)
            text = statement.columnText(index++);
    }
    void operator()(Col c, Blob& data)
    {
        if (c.since > version)
            return;
        const auto bytes = statement.columnBlob(index++);
        data.assign(bytes.begin(), bytes.end());
    }
    void operator()(Col c, double& value)
    {
        if (c.since <= version)
            value = statement.columnDouble(index++);
    }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(Col c, T& value)
    {
        if (c.since <= version)
            value = fromInt64<T>(statement.columnInt64(index++));
    }
};

// The content checksum of one row: the columns that exist in schema `version`, in order.
struct FieldHasher {
    int version = schema::kSchemaVersion;
    RowHasher hasher;
    void operator()(Col c, const std::string& text)
    {
        if (c.since <= version)
            hasher.add(std::string_view(text));
    }
    void operator()(Col c, double value)
    {
        if (c.since <= version)
            hasher.add(value);
    }
    void operator()(Col c, const Blob& data)
    {
        if (c.since <= version)
            hasher.add(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
    }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(Col c, T value)
    {
        if (c.since <= version)
            hasher.add(toInt64(value));
    }
};

// Rows of the tables that have no record type in core/model: only the store reads them.
struct MetaRow {
    std::string key;
    std::string value;
};
struct EnvironmentRow {
    std::string key;
    std::string value;
};
struct StringRow {
    int64_t id = 0;
    std::string text;
};
struct LaneBlobRow {
    std::string key;
    int64_t format = 0;
    Blob data;
};
struct TableCheckRow {
    std::string table;
    int64_t rowCount = 0;
    int64_t contentHash = 0;
};

template <class R> struct Codec;

template <> struct Codec<MetaRow> {
    static constexpr TableInfo info {.name = "meta",
        .primaryKey = "key",
        .withoutRowid = true,
        .checked = false,
        .doc = "Session-level facts; the one table users may edit (not checksummed)."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v("key", r.key), v("value", r.value); }
};

template <> struct Codec<EnvironmentRow> {
    static constexpr TableInfo info {
        .name = "environment", .primaryKey = "key", .withoutRowid = true, .doc = "The recording environment."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v("key", r.key), v("value", r.value); }
};

template <> struct Codec<StringRow> {
    static constexpr TableInfo info {.name = "string", .primaryKey = "id", .doc = "Every name; ids dense from 0."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v("id", r.id), v("text", r.text); }
};

// kAutoId: the first column is an INTEGER PRIMARY KEY event id; id 0 asks SQLite for the next
// rowid (the stored record then carries that id).
template <> struct Codec<ProcessInfo> {
    static constexpr TableInfo info {.name = "process", .primaryKey = "pid", .doc = "One row per traced process."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"pid", Ref::Pid}, r.pid), v("name", r.name), v("command_line", r.commandLine),
            v("exit_code", r.exitCode), v("exit_signal", r.exitSignal), v("anchor_realtime_ns", r.anchorRealtimeNs),
            v("anchor_monotonic_ns", r.anchorMonotonicNs), v(Col {"parent_pid", Ref::Pid}, r.parentPid),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<ThreadInfo> {
    static constexpr TableInfo info {
        .name = "thread", .primaryKey = "pid, tid", .withoutRowid = true, .doc = "Thread names."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"pid", Ref::Pid}, r.pid), v("tid", r.tid), v("name", r.name), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<DeviceInfo> {
    static constexpr TableInfo info {.name = "device",
        .primaryKey = "pid, id",
        .withoutRowid = true,
        .doc = "One row per CUDA device seen by a process."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v("id", r.id), v(Col {"pid", Ref::Pid}, r.pid), v("name", r.name), v("uuid", r.uuid), v("cc_major", r.ccMajor),
            v("cc_minor", r.ccMinor), v("sm_count", r.smCount), v("sm_clock_khz", r.smClockKhz),
            v("sm_clock_max_khz", r.smClockMaxKhz), v("mem_clock_khz", r.memClockKhz),
            v("mem_bus_width_bits", r.memBusWidthBits), v("l2_bytes", r.l2Bytes),
            v("global_mem_bytes", r.globalMemBytes), v("regs_per_sm", r.regsPerSm), v("regs_per_block", r.regsPerBlock),
            v("smem_per_sm", r.smemPerSm), v("smem_per_block", r.smemPerBlock),
            v("smem_per_block_optin", r.smemPerBlockOptin), v("smem_reserved_per_block", r.smemReservedPerBlock),
            v("max_warps_per_sm", r.maxWarpsPerSm), v("max_blocks_per_sm", r.maxBlocksPerSm),
            v("max_threads_per_block", r.maxThreadsPerBlock), v("warp_size", r.warpSize),
            v("dram_bw_bytes_per_s", r.dramBandwidthBytesPerS), v("peak_fp32_flops", r.peakFp32FlopsPerS),
            v("peak_fp64_flops", r.peakFp64FlopsPerS), v("peak_fp16_tensor_flops", r.peakFp16TensorFlopsPerS),
            v("peak_bf16_tensor_flops", r.peakBf16TensorFlopsPerS),
            v("peak_fp8_tensor_flops", r.peakFp8TensorFlopsPerS),
            v("peak_tf32_tensor_flops", r.peakTf32TensorFlopsPerS), v("l2_bw_bytes_per_s", r.l2BandwidthBytesPerS),
            v("l1_bw_bytes_per_s", r.l1BandwidthBytesPerS), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<StreamInfo> {
    static constexpr TableInfo info {
        .name = "stream", .primaryKey = "pid, device_id, stream_id", .withoutRowid = true, .doc = "CUDA streams."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"pid", Ref::Pid}, r.pid), v("device_id", r.deviceId), v("context_id", r.contextId),
            v("stream_id", r.streamId), v("priority", r.priority), v("label", r.label),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<KernelRecord> {
    static constexpr TableInfo info {.name = "kernel",
        .primaryKey = "id",
        .timeBegin = "start",
        .timeEnd = "end",
        .doc = "Kernel launches; id is the launch id."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Kernel}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("device_id", r.deviceId),
            v("context_id", r.contextId), v("stream_id", r.streamId), v("correlation_id", r.correlationId),
            v("start", r.start), v("end", r.end), v("queued", r.queued), v("submitted", r.submitted),
            v(Col {"mangled_name", Ref::String}, r.mangledName),
            v(Col {"demangled_name", Ref::String}, r.demangledName), v(Col {"short_name", Ref::String}, r.shortName),
            v("grid_x", r.gridX), v("grid_y", r.gridY), v("grid_z", r.gridZ), v("block_x", r.blockX),
            v("block_y", r.blockY), v("block_z", r.blockZ), v("cluster_x", r.clusterX), v("cluster_y", r.clusterY),
            v("cluster_z", r.clusterZ), v("registers_per_thread", r.registersPerThread),
            v("static_smem", r.staticSmemBytes), v("dynamic_smem", r.dynamicSmemBytes),
            v("local_mem_per_thread", r.localMemPerThread), v("graph_id", r.graphId), v("graph_node_id", r.graphNodeId),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<MemcpyRecord> {
    static constexpr TableInfo info {
        .name = "memcpy", .primaryKey = "id", .timeBegin = "start", .timeEnd = "end", .doc = "Memory copies."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("device_id", r.deviceId),
            v("context_id", r.contextId), v("stream_id", r.streamId), v("correlation_id", r.correlationId),
            v("start", r.start), v("end", r.end), v("bytes", r.bytes), v("copy_kind", r.copyKind),
            v("src_kind", r.srcKind), v("dst_kind", r.dstKind), v("graph_id", r.graphId),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<MemsetRecord> {
    static constexpr TableInfo info {
        .name = "memset", .primaryKey = "id", .timeBegin = "start", .timeEnd = "end", .doc = "Memory sets."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("device_id", r.deviceId),
            v("context_id", r.contextId), v("stream_id", r.streamId), v("correlation_id", r.correlationId),
            v("start", r.start), v("end", r.end), v("bytes", r.bytes), v("value", r.value), v("graph_id", r.graphId),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<ApiCallRecord> {
    static constexpr TableInfo info {.name = "api_call",
        .primaryKey = "id",
        .timeBegin = "start",
        .timeEnd = "end",
        .doc = "CUDA runtime and driver API calls."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("tid", r.tid),
            v("correlation_id", r.correlationId), v("start", r.start), v("end", r.end), v("domain", r.domain),
            v("cbid", r.cbid), v(Col {"name", Ref::String}, r.name), v("return_value", r.returnValue),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<NvtxRangeRecord> {
    static constexpr TableInfo info {
        .name = "nvtx_range", .primaryKey = "id", .timeBegin = "start", .timeEnd = "end", .doc = "NVTX ranges."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("tid", r.tid), v("end_tid", r.endTid),
            v("start", r.start), v("end", r.end), v(Col {"name", Ref::String}, r.name),
            v(Col {"domain", Ref::String}, r.domain), v("category", r.category), v("color", r.color),
            v("style", r.style), v("depth", r.depth), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<NvtxMarkRecord> {
    static constexpr TableInfo info {
        .name = "nvtx_mark", .primaryKey = "id", .timeBegin = "ts", .timeEnd = "ts", .doc = "NVTX marks."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("tid", r.tid), v("ts", r.ts),
            v(Col {"name", Ref::String}, r.name), v(Col {"domain", Ref::String}, r.domain), v("category", r.category),
            v("color", r.color), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<SyncRecord> {
    static constexpr TableInfo info {
        .name = "sync", .primaryKey = "id", .timeBegin = "start", .timeEnd = "end", .doc = "Synchronization waits."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("tid", r.tid), v("device_id", r.deviceId),
            v("context_id", r.contextId), v("stream_id", r.streamId), v("correlation_id", r.correlationId),
            v("start", r.start), v("end", r.end), v("kind", r.kind), v("event_id", r.eventId),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<OverheadRecord> {
    static constexpr TableInfo info {.name = "overhead",
        .primaryKey = "id",
        .timeBegin = "start",
        .timeEnd = "end",
        .doc = "Tool overhead intervals."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("tid", r.tid), v("start", r.start),
            v("end", r.end), v(Col {"kind", Ref::String}, r.kind), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

// Event records, stream waits, event synchronisations; an optional table (files written
// before it lack it and read no rows).
template <> struct Codec<EventOpRecord> {
    static constexpr TableInfo info {.name = "event_op",
        .primaryKey = "id",
        .timeBegin = "start",
        .timeEnd = "end",
        .optional = true,
        .doc = "CUDA event records, stream waits and event synchronisations with their event and stream "
               "handles: the dependencies between streams."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("tid", r.tid), v("device_id", r.deviceId),
            v("context_id", r.contextId), v("stream_id", r.streamId), v("correlation_id", r.correlationId),
            v("start", r.start), v("end", r.end), v("kind", r.kind), v("event", r.event), v("stream", r.stream),
            v("flags", r.flags), v("domain", r.domain), v("cbid", r.cbid), v("return_value", r.returnValue),
            v("op_table", r.opTable), v("op_id", r.opId), v("op_start", r.opStart), v("op_end", r.opEnd),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<MetricDef> {
    static constexpr TableInfo info {
        .name = "metric_def", .primaryKey = "id", .doc = "Metric definitions (ncu names)."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Metric}, r.id), v(Col {"name", Ref::None, 1, true}, r.name), v("unit", r.unit),
            v("section", r.section), v("description", r.description);
    }
};

template <> struct Codec<KernelMetric> {
    static constexpr TableInfo info {.name = "kernel_metric",
        .primaryKey = "kernel_id, metric_id",
        .withoutRowid = true,
        .doc = "Metric values per launch."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"kernel_id", Ref::Kernel}, r.kernelId), v(Col {"metric_id", Ref::Metric}, r.metricId),
            v("value", r.value), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<CounterTrack> {
    static constexpr TableInfo info {.name = "counter_track", .primaryKey = "id", .doc = "Counter tracks."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::CounterTrack}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("device_id", r.deviceId),
            v("name", r.name), v("unit", r.unit), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<CounterSample> {
    static constexpr TableInfo info {
        .name = "counter_sample", .primaryKey = "", .timeBegin = "ts", .timeEnd = "ts", .doc = "Counter samples."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"track_id", Ref::CounterTrack}, r.trackId), v("ts", r.ts), v("value", r.value);
    }
};

template <> struct Codec<BenchRun> {
    static constexpr TableInfo info {.name = "bench_run", .primaryKey = "id", .doc = "Benchmark configurations."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::BenchRun}, r.id), v("workload", r.workload), v("implementation", r.implementation),
            v("boundary", r.boundary), v("timer", r.timer), v("cache_policy", r.cachePolicy), v("unit", r.unit),
            v("options_json", r.optionsJson), v("work_flops", r.workFlops), v("work_bytes", r.workBytes),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<BenchSample> {
    static constexpr TableInfo info {
        .name = "bench_sample", .primaryKey = "", .doc = "Benchmark samples; run_id is bench_run.id."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"run_id", Ref::BenchRun}, r.runId), v("round", r.round), v("call", r.call), v("value", r.value);
    }
};

template <> struct Codec<WarpEvent> {
    static constexpr TableInfo info {.name = "warp_event",
        .primaryKey = "id",
        .timeBegin = "t_begin",
        .timeEnd = "t_end",
        .doc = "In-kernel (warp) trace events."};
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Own}, r.id), v(Col {"kernel_id", Ref::Kernel}, r.kernelId), v("block", r.block),
            v("warp", r.warp), v("sm", r.sm), v(Col {"role", Ref::String}, r.role),
            v(Col {"name", Ref::String}, r.name), v("kind", r.kind), v("t_begin", r.begin), v("t_end", r.end),
            v("depth", r.depth), v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

// Source counters; optional tables (files written before them lack them).
template <> struct Codec<SassFunction> {
    static constexpr TableInfo info {
        .name = "sass_function", .primaryKey = "id", .optional = true, .doc = "SASS functions of sampled cubins."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::SassFunction}, r.id), v(Col {"pid", Ref::Pid}, r.pid), v("cubin_crc", r.cubinCrc),
            v(Col {"name", Ref::String}, r.name), v("disassembler", r.disassembler),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<SassInstruction> {
    static constexpr TableInfo info {.name = "sass_instruction",
        .primaryKey = "function_id, pc_offset",
        .withoutRowid = true,
        .optional = true,
        .doc = "SASS instructions with source lines."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"function_id", Ref::SassFunction}, r.functionId), v("pc_offset", r.pcOffset), v("text", r.text),
            v(Col {"file", Ref::String}, r.file), v("line", r.line);
    }
};

template <> struct Codec<SourceCounter> {
    static constexpr TableInfo info {.name = "source_counter",
        .primaryKey = "kernel_id, function_id, pc_offset, counter",
        .withoutRowid = true,
        .optional = true,
        .doc = "PC-sampling counters per instruction and launch."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"kernel_id", Ref::Kernel}, r.kernelId), v(Col {"function_id", Ref::SassFunction}, r.functionId),
            v("pc_offset", r.pcOffset), v(Col {"counter", Ref::String}, r.counter), v("value", r.value),
            v(Col {"run_id", Ref::Run, 2}, r.runId);
    }
};

template <> struct Codec<SourceFile> {
    static constexpr TableInfo info {.name = "source_file",
        .primaryKey = "id",
        .optional = true,
        .doc = "CUDA source text captured at record time."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::SourceFile}, r.id), v(Col {"path", Ref::String}, r.path), v("text", r.text);
    }
};

template <> struct Codec<RunInfo> {
    static constexpr TableInfo info {.name = "run",
        .primaryKey = "id",
        .since = 2,
        .doc = "One row per run of a program that fed the session: trace, profile, pc-sampling, bench or import."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"id", Ref::Run, 2}, r.id), v(Col {"kind", Ref::None, 2}, r.kind),
            v(Col {"command_line", Ref::None, 2}, r.commandLine), v(Col {"cwd", Ref::None, 2}, r.cwd),
            v(Col {"environment", Ref::None, 2}, r.environmentJson), v(Col {"host", Ref::None, 2}, r.host),
            v(Col {"user", Ref::None, 2}, r.user), v(Col {"start_realtime_ns", Ref::None, 2}, r.startRealtimeNs),
            v(Col {"end_realtime_ns", Ref::None, 2}, r.endRealtimeNs), v(Col {"options", Ref::None, 2}, r.optionsJson);
    }
};

template <> struct Codec<KernelLink> {
    static constexpr TableInfo info {.name = "kernel_link",
        .primaryKey = "kernel_id",
        .withoutRowid = true,
        .since = 2,
        .doc = "A profiled launch and the traced launch it corresponds to (same process, kernel and "
               "per-name launch ordinal)."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(Col {"kernel_id", Ref::Kernel, 2}, r.kernelId), v(Col {"trace_kernel_id", Ref::Kernel, 2}, r.traceKernelId);
    }
};

template <> struct Codec<LaneBlobRow> {
    static constexpr TableInfo info {.name = "lane_blob",
        .primaryKey = "lane_key",
        .withoutRowid = true,
        .checked = false,
        .doc = "The lane cache: chunks of the timeline's lanes (each chunk carries its own checksum)."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v("lane_key", r.key), v("format", r.format), v("data", r.data);
    }
};

template <> struct Codec<TableCheckRow> {
    static constexpr TableInfo info {.name = "table_check",
        .primaryKey = "table_name",
        .withoutRowid = true,
        .optional = true,
        .checked = false,
        .doc = "Row count and content hash per table, written at commit."};
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v("table_name", r.table), v("row_count", r.rowCount), v("content_hash", r.contentHash);
    }
};

template <class... R> struct TypeList {
};

// Every table, in DDL order.
using SchemaTables
    = TypeList<MetaRow, EnvironmentRow, StringRow, ProcessInfo, ThreadInfo, DeviceInfo, StreamInfo, KernelRecord,
        MemcpyRecord, MemsetRecord, ApiCallRecord, NvtxRangeRecord, NvtxMarkRecord, SyncRecord, OverheadRecord,
        MetricDef, KernelMetric, CounterTrack, CounterSample, BenchRun, BenchSample, WarpEvent, SassFunction,
        SassInstruction, SourceCounter, SourceFile, EventOpRecord, RunInfo, KernelLink, LaneBlobRow, TableCheckRow>;

template <class F, class... R> void forEachTable(TypeList<R...>, F&& f)
{
    (f.template operator()<R>(), ...);
}
// Calls f.template operator()<R>() for every table's row type, in DDL order.
template <class F> void forEachTable(F&& f)
{
    forEachTable(SchemaTables {}, f);
}

// Collects the comma-separated column names of schema `version`.
struct ColumnNames {
    int version;
    std::string& out;
    template <class T> void operator()(Col c, const T&)
    {
        if (c.since > version)
            return;
        if (!out.empty())
            out += ", ";
        out += c.name;
    }
};

// The column names of R that exist in schema `version`, comma-separated.
template <class R> const std::string& columnList(int version = schema::kSchemaVersion)
{
    static const auto lists = [] {
        std::array<std::string, schema::kSchemaVersion + 1> all;
        for (int v = 1; v <= schema::kSchemaVersion; ++v) {
            ColumnNames names {v, all[static_cast<size_t>(v)]};
            const R row {};
            Codec<R>::fields(names, row);
        }
        return all;
    }();
    return lists[static_cast<size_t>(std::clamp(version, 1, schema::kSchemaVersion))];
}

template <class R> std::string insertSql(size_t rows)
{
    // Built from the compile-time field lists above, never from data.
    const std::string& columns = columnList<R>();
    std::string tuple = "(?";
    for (const char c : columns) {
        if (c == ',')
            tuple += ",?";
    }
    tuple += ')';
    std::string sql = "INSERT INTO ";
    sql += Codec<R>::info.name;
    sql += '(';
    sql += columns;
    sql += ") VALUES";
    for (size_t i = 0; i < rows; ++i) {
        if (i)
            sql += ',';
        sql += tuple;
    }
    return sql;
}

template <class R> std::string selectSql(int version = schema::kSchemaVersion)
{
    // Rowid tables come back in rowid (= id) order, WITHOUT ROWID tables in primary-key order.
    std::string sql = "SELECT ";
    sql += columnList<R>(version);
    sql += " FROM ";
    sql += Codec<R>::info.name;
    return sql;
}

template <class R> uint64_t rowHash(const R& row, int version = schema::kSchemaVersion)
{
    FieldHasher h {version, {}};
    Codec<R>::fields(h, row);
    return h.hasher.value();
}

} // namespace ws::store

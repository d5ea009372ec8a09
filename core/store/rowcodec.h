// SPDX-License-Identifier: MIT
#pragma once

// One field list per record type, shared by the writer (bind), the reader (column) and the
// content checksum (hash), so the three can never disagree on column order. The column names
// must match schema.cpp; docs/session-format.md documents them.

#include "core/model/records.h"
#include "core/store/sqlite.h"
#include "core/util/hash.h"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

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
    void operator()(const std::string& text) { statement.bind(index++, std::string_view(text)); }
    void operator()(double value)
    {
        if (std::isnan(value))
            throw NanValue();
        statement.bind(index++, value);
    }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(T value)
    {
        statement.bind(index++, toInt64(value));
    }
};

struct ColumnReader {
    const sqlite::Statement& statement;
    int index = 0;
    void operator()(std::string& text) { text = statement.columnText(index++); }
    void operator()(double& value) { value = statement.columnDouble(index++); }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(T& value)
    {
        value = fromInt64<T>(statement.columnInt64(index++));
    }
};

struct FieldHasher {
    RowHasher hasher;
    void operator()(const std::string& text) { hasher.add(std::string_view(text)); }
    void operator()(double value) { hasher.add(value); }
    template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>) void operator()(T value) { hasher.add(toInt64(value)); }
};

template <class R> struct Codec;

// kAutoId: the first column is an INTEGER PRIMARY KEY event id; id 0 asks SQLite for the next
// rowid (the stored record then carries that id).
template <> struct Codec<ProcessInfo> {
    static constexpr std::string_view table = "process";
    static constexpr std::string_view columns = "pid, name, command_line, exit_code, exit_signal, "
                                                "anchor_realtime_ns, anchor_monotonic_ns, parent_pid";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.pid), v(r.name), v(r.commandLine), v(r.exitCode), v(r.exitSignal), v(r.anchorRealtimeNs),
            v(r.anchorMonotonicNs), v(r.parentPid);
    }
};

template <> struct Codec<ThreadInfo> {
    static constexpr std::string_view table = "thread";
    static constexpr std::string_view columns = "pid, tid, name";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v(r.pid), v(r.tid), v(r.name); }
};

template <> struct Codec<DeviceInfo> {
    static constexpr std::string_view table = "device";
    static constexpr std::string_view columns
        = "id, pid, name, uuid, cc_major, cc_minor, sm_count, sm_clock_khz, sm_clock_max_khz, mem_clock_khz, "
          "mem_bus_width_bits, l2_bytes, global_mem_bytes, regs_per_sm, regs_per_block, smem_per_sm, "
          "smem_per_block, smem_per_block_optin, smem_reserved_per_block, max_warps_per_sm, max_blocks_per_sm, "
          "max_threads_per_block, warp_size, dram_bw_bytes_per_s, peak_fp32_flops, peak_fp64_flops, "
          "peak_fp16_tensor_flops, peak_bf16_tensor_flops, peak_fp8_tensor_flops, peak_tf32_tensor_flops, "
          "l2_bw_bytes_per_s, l1_bw_bytes_per_s";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.name), v(r.uuid), v(r.ccMajor), v(r.ccMinor), v(r.smCount), v(r.smClockKhz),
            v(r.smClockMaxKhz), v(r.memClockKhz), v(r.memBusWidthBits), v(r.l2Bytes), v(r.globalMemBytes),
            v(r.regsPerSm), v(r.regsPerBlock), v(r.smemPerSm), v(r.smemPerBlock), v(r.smemPerBlockOptin),
            v(r.smemReservedPerBlock), v(r.maxWarpsPerSm), v(r.maxBlocksPerSm), v(r.maxThreadsPerBlock), v(r.warpSize),
            v(r.dramBandwidthBytesPerS), v(r.peakFp32FlopsPerS), v(r.peakFp64FlopsPerS), v(r.peakFp16TensorFlopsPerS),
            v(r.peakBf16TensorFlopsPerS), v(r.peakFp8TensorFlopsPerS), v(r.peakTf32TensorFlopsPerS),
            v(r.l2BandwidthBytesPerS), v(r.l1BandwidthBytesPerS);
    }
};

template <> struct Codec<StreamInfo> {
    static constexpr std::string_view table = "stream";
    static constexpr std::string_view columns = "pid, device_id, context_id, stream_id, priority, label";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.pid), v(r.deviceId), v(r.contextId), v(r.streamId), v(r.priority), v(r.label);
    }
};

template <> struct Codec<KernelRecord> {
    static constexpr std::string_view table = "kernel";
    static constexpr std::string_view columns
        = "id, pid, device_id, context_id, stream_id, correlation_id, start, end, queued, submitted, "
          "mangled_name, demangled_name, short_name, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
          "cluster_x, cluster_y, cluster_z, registers_per_thread, static_smem, dynamic_smem, "
          "local_mem_per_thread, graph_id, graph_node_id";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.deviceId), v(r.contextId), v(r.streamId), v(r.correlationId), v(r.start), v(r.end),
            v(r.queued), v(r.submitted), v(r.mangledName), v(r.demangledName), v(r.shortName), v(r.gridX), v(r.gridY),
            v(r.gridZ), v(r.blockX), v(r.blockY), v(r.blockZ), v(r.clusterX), v(r.clusterY), v(r.clusterZ),
            v(r.registersPerThread), v(r.staticSmemBytes), v(r.dynamicSmemBytes), v(r.localMemPerThread), v(r.graphId),
            v(r.graphNodeId);
    }
};

template <> struct Codec<MemcpyRecord> {
    static constexpr std::string_view table = "memcpy";
    static constexpr std::string_view columns = "id, pid, device_id, context_id, stream_id, correlation_id, start, "
                                                "end, bytes, copy_kind, src_kind, dst_kind, graph_id";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.deviceId), v(r.contextId), v(r.streamId), v(r.correlationId), v(r.start), v(r.end),
            v(r.bytes), v(r.copyKind), v(r.srcKind), v(r.dstKind), v(r.graphId);
    }
};

template <> struct Codec<MemsetRecord> {
    static constexpr std::string_view table = "memset";
    static constexpr std::string_view columns
        = "id, pid, device_id, context_id, stream_id, correlation_id, start, end, bytes, value, graph_id";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.deviceId), v(r.contextId), v(r.streamId), v(r.correlationId), v(r.start), v(r.end),
            v(r.bytes), v(r.value), v(r.graphId);
    }
};

template <> struct Codec<ApiCallRecord> {
    static constexpr std::string_view table = "api_call";
    static constexpr std::string_view columns
        = "id, pid, tid, correlation_id, start, end, domain, cbid, name, return_value";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.tid), v(r.correlationId), v(r.start), v(r.end), v(r.domain), v(r.cbid), v(r.name),
            v(r.returnValue);
    }
};

template <> struct Codec<NvtxRangeRecord> {
    static constexpr std::string_view table = "nvtx_range";
    static constexpr std::string_view columns
        = "id, pid, tid, end_tid, start, end, name, domain, category, color, style, depth";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.tid), v(r.endTid), v(r.start), v(r.end), v(r.name), v(r.domain), v(r.category),
            v(r.color), v(r.style), v(r.depth);
    }
};

template <> struct Codec<NvtxMarkRecord> {
    static constexpr std::string_view table = "nvtx_mark";
    static constexpr std::string_view columns = "id, pid, tid, ts, name, domain, category, color";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.tid), v(r.ts), v(r.name), v(r.domain), v(r.category), v(r.color);
    }
};

template <> struct Codec<SyncRecord> {
    static constexpr std::string_view table = "sync";
    static constexpr std::string_view columns
        = "id, pid, tid, device_id, context_id, stream_id, correlation_id, start, end, kind, event_id";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.tid), v(r.deviceId), v(r.contextId), v(r.streamId), v(r.correlationId), v(r.start),
            v(r.end), v(r.kind), v(r.eventId);
    }
};

template <> struct Codec<OverheadRecord> {
    static constexpr std::string_view table = "overhead";
    static constexpr std::string_view columns = "id, pid, tid, start, end, kind";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.tid), v(r.start), v(r.end), v(r.kind);
    }
};

template <> struct Codec<MetricDef> {
    static constexpr std::string_view table = "metric_def";
    static constexpr std::string_view columns = "id, name, unit, section, description";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.name), v(r.unit), v(r.section), v(r.description);
    }
};

template <> struct Codec<KernelMetric> {
    static constexpr std::string_view table = "kernel_metric";
    static constexpr std::string_view columns = "kernel_id, metric_id, value";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v(r.kernelId), v(r.metricId), v(r.value); }
};

template <> struct Codec<CounterTrack> {
    static constexpr std::string_view table = "counter_track";
    static constexpr std::string_view columns = "id, pid, device_id, name, unit";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.deviceId), v(r.name), v(r.unit);
    }
};

template <> struct Codec<CounterSample> {
    static constexpr std::string_view table = "counter_sample";
    static constexpr std::string_view columns = "track_id, ts, value";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v(r.trackId), v(r.ts), v(r.value); }
};

template <> struct Codec<BenchRun> {
    static constexpr std::string_view table = "bench_run";
    static constexpr std::string_view columns = "id, workload, implementation, boundary, timer, cache_policy, unit, "
                                                "options_json, work_flops, work_bytes";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.workload), v(r.implementation), v(r.boundary), v(r.timer), v(r.cachePolicy), v(r.unit),
            v(r.optionsJson), v(r.workFlops), v(r.workBytes);
    }
};

template <> struct Codec<BenchSample> {
    static constexpr std::string_view table = "bench_sample";
    static constexpr std::string_view columns = "run_id, round, call, value";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v(r.runId), v(r.round), v(r.call), v(r.value); }
};

template <> struct Codec<WarpEvent> {
    static constexpr std::string_view table = "warp_event";
    static constexpr std::string_view columns
        = "id, kernel_id, block, warp, sm, role, name, kind, t_begin, t_end, depth";
    static constexpr bool kAutoId = true;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.kernelId), v(r.block), v(r.warp), v(r.sm), v(r.role), v(r.name), v(r.kind), v(r.begin), v(r.end),
            v(r.depth);
    }
};

// Source counters; optional tables (files written before them lack them).
template <> struct Codec<SassFunction> {
    static constexpr std::string_view table = "sass_function";
    static constexpr std::string_view columns = "id, pid, cubin_crc, name, disassembler";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.id), v(r.pid), v(r.cubinCrc), v(r.name), v(r.disassembler);
    }
};

template <> struct Codec<SassInstruction> {
    static constexpr std::string_view table = "sass_instruction";
    static constexpr std::string_view columns = "function_id, pc_offset, text, file, line";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.functionId), v(r.pcOffset), v(r.text), v(r.file), v(r.line);
    }
};

template <> struct Codec<SourceCounter> {
    static constexpr std::string_view table = "source_counter";
    static constexpr std::string_view columns = "kernel_id, function_id, pc_offset, counter, value";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r)
    {
        v(r.kernelId), v(r.functionId), v(r.pcOffset), v(r.counter), v(r.value);
    }
};

template <> struct Codec<SourceFile> {
    static constexpr std::string_view table = "source_file";
    static constexpr std::string_view columns = "id, path, text";
    static constexpr bool kAutoId = false;
    template <class V, class R> static void fields(V& v, R& r) { v(r.id), v(r.path), v(r.text); }
};

template <class R> std::string insertSql(size_t rows)
{
    // Built from the compile-time column lists above, never from data.
    std::string tuple = "(?";
    for (const char c : Codec<R>::columns) {
        if (c == ',')
            tuple += ",?";
    }
    tuple += ')';
    std::string sql = "INSERT INTO ";
    sql += Codec<R>::table;
    sql += '(';
    sql += Codec<R>::columns;
    sql += ") VALUES";
    for (size_t i = 0; i < rows; ++i) {
        if (i)
            sql += ',';
        sql += tuple;
    }
    return sql;
}

template <class R> std::string selectSql()
{
    // Rowid tables come back in rowid (= id) order, WITHOUT ROWID tables in primary-key order.
    std::string sql = "SELECT ";
    sql += Codec<R>::columns;
    sql += " FROM ";
    sql += Codec<R>::table;
    return sql;
}

template <class R> uint64_t rowHash(const R& row)
{
    FieldHasher h;
    Codec<R>::fields(h, row);
    return h.hasher.value();
}

} // namespace ws::store

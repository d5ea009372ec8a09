// SPDX-License-Identifier: MIT
#include "core/export/csvexport.h"

#include "core/report/textescape.h"

#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <type_traits>

namespace ws {

namespace {

constexpr size_t kFlushBytes = size_t(1) << 20;

// Accumulates rows in a buffer flushed every MiB, so a 10M-row table never sits in memory.
class CsvWriter {
public:
    explicit CsvWriter(std::ostream& out)
        : m_out(out)
    {
    }

    void header(std::initializer_list<std::string_view> names)
    {
        for (const auto name : names)
            field(name);
        endRow();
        m_rows = 0;
    }
    CsvWriter& field(std::string_view text)
    {
        separator();
        appendCsvField(m_buf, text);
        return *this;
    }
    CsvWriter& field(int64_t value)
    {
        separator();
        m_buf += std::to_string(value);
        return *this;
    }
    CsvWriter& field(double value)
    {
        separator();
        char buf[32];
        // %.17g round-trips every double.
        std::snprintf(buf, sizeof buf, "%.17g", value);
        m_buf += buf;
        return *this;
    }
    template <typename Int>
    requires std::is_integral_v<Int> CsvWriter& field(Int value) { return field(static_cast<int64_t>(value)); }
    CsvWriter& field(const std::string& text) { return field(std::string_view(text)); }
    CsvWriter& field(const char* text) { return field(std::string_view(text)); }

    void endRow()
    {
        m_buf += '\n';
        m_atRowStart = true;
        ++m_rows;
        if (m_buf.size() >= kFlushBytes)
            flush();
    }
    int64_t finish()
    {
        flush();
        m_out.flush();
        if (!m_out)
            throw std::runtime_error("write failed");
        return m_rows;
    }

private:
    void separator()
    {
        if (!m_atRowStart)
            m_buf += ',';
        m_atRowStart = false;
    }
    void flush()
    {
        m_out.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
        m_buf.clear();
        if (!m_out)
            throw std::runtime_error("write failed");
    }

    std::ostream& m_out;
    std::string m_buf;
    bool m_atRowStart = true;
    int64_t m_rows = 0;
};

template <typename T> int64_t asInt(T value)
{
    return static_cast<int64_t>(value);
}

} // namespace

const std::vector<std::string_view>& csvTableNames()
{
    static const std::vector<std::string_view> names = {
        "meta",
        "environment",
        "process",
        "thread",
        "device",
        "stream",
        "kernel",
        "memcpy",
        "memset",
        "api_call",
        "nvtx_range",
        "nvtx_mark",
        "sync",
    };
    return names;
}

int64_t writeCsvTable(const RecordSource& source, std::string_view table, std::ostream& out)
{
    CsvWriter w(out);
    const SessionData& h = source.header();
    const StringTable& s = h.strings;

    if (table == "meta" || table == "environment") {
        w.header({"key", "value"});
        for (const auto& [key, value] : table == "meta" ? h.meta : h.environment) {
            w.field(key).field(value);
            w.endRow();
        }
    } else if (table == "process") {
        w.header({"pid", "name", "command_line", "exit_code", "exit_signal", "anchor_realtime_ns",
            "anchor_monotonic_ns", "parent_pid"});
        for (const auto& p : h.processes) {
            w.field(p.pid).field(p.name).field(p.commandLine).field(p.exitCode).field(p.exitSignal);
            w.field(p.anchorRealtimeNs).field(p.anchorMonotonicNs).field(p.parentPid);
            w.endRow();
        }
    } else if (table == "thread") {
        w.header({"pid", "tid", "name"});
        for (const auto& t : h.threads) {
            w.field(t.pid).field(t.tid).field(t.name);
            w.endRow();
        }
    } else if (table == "device") {
        w.header({"id", "pid", "name", "uuid", "cc_major", "cc_minor", "sm_count", "sm_clock_khz", "sm_clock_max_khz",
            "mem_clock_khz", "mem_bus_width_bits", "l2_bytes", "global_mem_bytes", "regs_per_sm", "regs_per_block",
            "smem_per_sm", "smem_per_block", "smem_per_block_optin", "smem_reserved_per_block", "max_warps_per_sm",
            "max_blocks_per_sm", "max_threads_per_block", "warp_size", "dram_bw_bytes_per_s", "peak_fp32_flops",
            "peak_fp64_flops", "peak_fp16_tensor_flops", "peak_bf16_tensor_flops", "peak_fp8_tensor_flops",
            "peak_tf32_tensor_flops", "l2_bw_bytes_per_s", "l1_bw_bytes_per_s"});
        for (const auto& d : h.devices) {
            w.field(d.id).field(d.pid).field(d.name).field(d.uuid).field(d.ccMajor).field(d.ccMinor);
            w.field(d.smCount).field(d.smClockKhz).field(d.smClockMaxKhz).field(d.memClockKhz);
            w.field(d.memBusWidthBits).field(d.l2Bytes).field(d.globalMemBytes).field(d.regsPerSm);
            w.field(d.regsPerBlock).field(d.smemPerSm).field(d.smemPerBlock).field(d.smemPerBlockOptin);
            w.field(d.smemReservedPerBlock).field(d.maxWarpsPerSm).field(d.maxBlocksPerSm);
            w.field(d.maxThreadsPerBlock).field(d.warpSize).field(d.dramBandwidthBytesPerS);
            w.field(d.peakFp32FlopsPerS).field(d.peakFp64FlopsPerS).field(d.peakFp16TensorFlopsPerS);
            w.field(d.peakBf16TensorFlopsPerS).field(d.peakFp8TensorFlopsPerS).field(d.peakTf32TensorFlopsPerS);
            w.field(d.l2BandwidthBytesPerS).field(d.l1BandwidthBytesPerS);
            w.endRow();
        }
    } else if (table == "stream") {
        w.header({"pid", "device_id", "context_id", "stream_id", "priority", "label"});
        for (const auto& st : h.streams) {
            w.field(st.pid)
                .field(st.deviceId)
                .field(st.contextId)
                .field(st.streamId)
                .field(st.priority)
                .field(st.label);
            w.endRow();
        }
    } else if (table == "kernel") {
        w.header({"id", "pid", "device_id", "context_id", "stream_id", "correlation_id", "start", "end", "queued",
            "submitted", "mangled_name", "demangled_name", "short_name", "grid_x", "grid_y", "grid_z", "block_x",
            "block_y", "block_z", "cluster_x", "cluster_y", "cluster_z", "registers_per_thread", "static_smem",
            "dynamic_smem", "local_mem_per_thread", "graph_id", "graph_node_id"});
        source.forEachKernel([&](const KernelRecord& k) {
            w.field(k.id).field(k.pid).field(k.deviceId).field(k.contextId).field(k.streamId).field(k.correlationId);
            w.field(k.start).field(k.end).field(k.queued).field(k.submitted);
            w.field(s.at(k.mangledName)).field(s.at(k.demangledName)).field(s.at(k.shortName));
            w.field(k.gridX).field(k.gridY).field(k.gridZ).field(k.blockX).field(k.blockY).field(k.blockZ);
            w.field(k.clusterX).field(k.clusterY).field(k.clusterZ).field(k.registersPerThread);
            w.field(k.staticSmemBytes).field(k.dynamicSmemBytes).field(k.localMemPerThread).field(k.graphId);
            w.field(asInt(k.graphNodeId));
            w.endRow();
        });
    } else if (table == "memcpy") {
        w.header({"id", "pid", "device_id", "context_id", "stream_id", "correlation_id", "start", "end", "bytes",
            "copy_kind", "src_kind", "dst_kind", "graph_id"});
        source.forEachMemcpy([&](const MemcpyRecord& m) {
            w.field(m.id).field(m.pid).field(m.deviceId).field(m.contextId).field(m.streamId).field(m.correlationId);
            w.field(m.start).field(m.end).field(m.bytes).field(asInt(m.copyKind)).field(m.srcKind).field(m.dstKind);
            w.field(m.graphId);
            w.endRow();
        });
    } else if (table == "memset") {
        w.header({"id", "pid", "device_id", "context_id", "stream_id", "correlation_id", "start", "end", "bytes",
            "value", "graph_id"});
        source.forEachMemset([&](const MemsetRecord& m) {
            w.field(m.id).field(m.pid).field(m.deviceId).field(m.contextId).field(m.streamId).field(m.correlationId);
            w.field(m.start).field(m.end).field(m.bytes).field(m.value).field(m.graphId);
            w.endRow();
        });
    } else if (table == "api_call") {
        w.header({"id", "pid", "tid", "correlation_id", "start", "end", "domain", "cbid", "name", "return_value"});
        source.forEachApiCall([&](const ApiCallRecord& a) {
            w.field(a.id).field(a.pid).field(a.tid).field(a.correlationId).field(a.start).field(a.end);
            w.field(asInt(a.domain)).field(a.cbid).field(s.at(a.name)).field(a.returnValue);
            w.endRow();
        });
    } else if (table == "nvtx_range") {
        w.header(
            {"id", "pid", "tid", "end_tid", "start", "end", "name", "domain", "category", "color", "style", "depth"});
        source.forEachNvtxRange([&](const NvtxRangeRecord& r) {
            w.field(r.id).field(r.pid).field(r.tid).field(r.endTid).field(r.start).field(r.end);
            w.field(s.at(r.name)).field(s.at(r.domain)).field(r.category).field(r.color).field(asInt(r.style));
            w.field(r.depth);
            w.endRow();
        });
    } else if (table == "nvtx_mark") {
        w.header({"id", "pid", "tid", "ts", "name", "domain", "category", "color"});
        source.forEachNvtxMark([&](const NvtxMarkRecord& m) {
            w.field(m.id).field(m.pid).field(m.tid).field(m.ts).field(s.at(m.name)).field(s.at(m.domain));
            w.field(m.category).field(m.color);
            w.endRow();
        });
    } else if (table == "sync") {
        w.header({"id", "pid", "tid", "device_id", "context_id", "stream_id", "correlation_id", "start", "end", "kind",
            "event_id"});
        source.forEachSync([&](const SyncRecord& y) {
            w.field(y.id).field(y.pid).field(y.tid).field(y.deviceId).field(y.contextId).field(y.streamId);
            w.field(y.correlationId).field(y.start).field(y.end).field(asInt(y.kind)).field(y.eventId);
            w.endRow();
        });
    } else {
        std::string known;
        for (const auto name : csvTableNames())
            known += (known.empty() ? "" : ", ") + std::string(name);
        throw std::invalid_argument("unknown table '" + std::string(table) + "' (expected one of " + known + ")");
    }
    return w.finish();
}

} // namespace ws

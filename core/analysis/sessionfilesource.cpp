// SPDX-License-Identifier: MIT
#include "analysis/sessionfilesource.h"

// Before sessionreader.h: its `struct sqlite3* handle()` must name the global ::sqlite3.
#include <sqlite3.h>

#include "store/sessionerror.h"
#include "store/sessionreader.h"

#include <algorithm>
#include <string>

namespace ws {

namespace {

// One prepared statement, stepped to the end. Column readers cast to the record's field
// type: ids stored as INTEGER come back as int64 whatever their C++ width.
class Query {
public:
    Query(sqlite3* db, const std::string& path, const char* sql)
        : m_db(db)
        , m_path(path)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK)
            fail("cannot query the session");
    }
    ~Query() { sqlite3_finalize(m_stmt); }
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;

    bool next()
    {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW)
            return true;
        if (rc != SQLITE_DONE)
            fail("cannot read the session");
        return false;
    }

    template <typename T> T get(int col) const { return static_cast<T>(sqlite3_column_int64(m_stmt, col)); }
    bool isNull(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
    double real(int col) const { return sqlite3_column_double(m_stmt, col); }
    std::string text(int col) const
    {
        const auto* p = sqlite3_column_text(m_stmt, col);
        const int n = sqlite3_column_bytes(m_stmt, col);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
    }

private:
    [[noreturn]] void fail(const char* what) const
    {
        const auto kind
            = sqlite3_errcode(m_db) == SQLITE_CORRUPT ? SessionError::Kind::Corrupted : SessionError::Kind::BadInput;
        throw SessionError(kind, m_path, std::string(what) + ": " + sqlite3_errmsg(m_db));
    }

    sqlite3* m_db;
    const std::string& m_path;
    sqlite3_stmt* m_stmt = nullptr;
};

} // namespace

SessionFileSource::SessionFileSource(const SessionReader& reader)
    : m_reader(reader)
{
    sqlite3* db = reader.handle();
    const std::string& path = reader.path();
    {
        Query q(db, path, "SELECT key, value FROM meta");
        while (q.next())
            m_header.meta[q.text(0)] = q.text(1);
    }
    {
        Query q(db, path, "SELECT key, value FROM environment");
        while (q.next())
            m_header.environment[q.text(0)] = q.text(1);
    }
    {
        // Ids are dense from 0 when written by SessionWriter; a gap becomes an empty string.
        // An id far beyond the row count means a damaged table, not a sparse one.
        Query count(db, path, "SELECT count(*), coalesce(max(id), 0) FROM string");
        count.next();
        const auto rows = count.get<int64_t>(0);
        const auto maxId = count.get<int64_t>(1);
        if (maxId < 0 || maxId > 4 * rows + 1024)
            throw SessionError(SessionError::Kind::Corrupted, path, "string table ids out of range");
        std::vector<std::string> strings(static_cast<size_t>(maxId) + 1);
        Query q(db, path, "SELECT id, text FROM string");
        while (q.next())
            strings[q.get<size_t>(0)] = q.text(1);
        m_header.strings.assign(std::move(strings));
    }
    {
        Query q(db, path,
            "SELECT pid, name, command_line, exit_code, exit_signal, anchor_realtime_ns, anchor_monotonic_ns, "
            "parent_pid FROM process ORDER BY pid");
        while (q.next()) {
            ProcessInfo p;
            p.pid = q.get<int64_t>(0);
            p.name = q.text(1);
            p.commandLine = q.text(2);
            p.exitCode = q.get<int>(3);
            p.exitSignal = q.get<int>(4);
            p.anchorRealtimeNs = q.get<TimeNs>(5);
            p.anchorMonotonicNs = q.get<TimeNs>(6);
            p.parentPid = q.get<int64_t>(7);
            m_header.processes.push_back(std::move(p));
        }
    }
    {
        Query q(db, path, "SELECT pid, tid, name FROM thread ORDER BY pid, tid");
        while (q.next())
            m_header.threads.push_back({q.get<int64_t>(0), q.get<int64_t>(1), q.text(2)});
    }
    {
        Query q(db, path,
            "SELECT id, pid, name, uuid, cc_major, cc_minor, sm_count, sm_clock_khz, sm_clock_max_khz, "
            "mem_clock_khz, mem_bus_width_bits, l2_bytes, global_mem_bytes, regs_per_sm, regs_per_block, "
            "smem_per_sm, smem_per_block, smem_per_block_optin, smem_reserved_per_block, max_warps_per_sm, "
            "max_blocks_per_sm, max_threads_per_block, warp_size, dram_bw_bytes_per_s, peak_fp32_flops, "
            "peak_fp64_flops, peak_fp16_tensor_flops, peak_bf16_tensor_flops, peak_fp8_tensor_flops, "
            "peak_tf32_tensor_flops, l2_bw_bytes_per_s, l1_bw_bytes_per_s FROM device ORDER BY pid, id");
        while (q.next()) {
            DeviceInfo d;
            d.id = q.get<uint32_t>(0);
            d.pid = q.get<int64_t>(1);
            d.name = q.text(2);
            d.uuid = q.text(3);
            d.ccMajor = q.get<int>(4);
            d.ccMinor = q.get<int>(5);
            d.smCount = q.get<int>(6);
            d.smClockKhz = q.get<int64_t>(7);
            d.smClockMaxKhz = q.get<int64_t>(8);
            d.memClockKhz = q.get<int64_t>(9);
            d.memBusWidthBits = q.get<int>(10);
            d.l2Bytes = q.get<int64_t>(11);
            d.globalMemBytes = q.get<int64_t>(12);
            d.regsPerSm = q.get<int>(13);
            d.regsPerBlock = q.get<int>(14);
            d.smemPerSm = q.get<int64_t>(15);
            d.smemPerBlock = q.get<int64_t>(16);
            d.smemPerBlockOptin = q.get<int64_t>(17);
            d.smemReservedPerBlock = q.get<int64_t>(18);
            d.maxWarpsPerSm = q.get<int>(19);
            d.maxBlocksPerSm = q.get<int>(20);
            d.maxThreadsPerBlock = q.get<int>(21);
            d.warpSize = q.get<int>(22);
            d.dramBandwidthBytesPerS = q.real(23);
            d.peakFp32FlopsPerS = q.real(24);
            d.peakFp64FlopsPerS = q.real(25);
            d.peakFp16TensorFlopsPerS = q.real(26);
            d.peakBf16TensorFlopsPerS = q.real(27);
            d.peakFp8TensorFlopsPerS = q.real(28);
            d.peakTf32TensorFlopsPerS = q.real(29);
            d.l2BandwidthBytesPerS = q.real(30);
            d.l1BandwidthBytesPerS = q.real(31);
            m_header.devices.push_back(std::move(d));
        }
    }
    {
        Query q(db, path,
            "SELECT pid, device_id, context_id, stream_id, priority, label FROM stream "
            "ORDER BY pid, device_id, stream_id");
        while (q.next()) {
            m_header.streams.push_back({q.get<int64_t>(0), q.get<uint32_t>(1), q.get<uint32_t>(2), q.get<uint32_t>(3),
                q.get<int>(4), q.text(5)});
        }
    }
}

void SessionFileSource::forEachKernel(const std::function<void(const KernelRecord&)>& visit) const
{
    Query q(m_reader.handle(), m_reader.path(),
        "SELECT id, pid, device_id, context_id, stream_id, correlation_id, start, \"end\", queued, submitted, "
        "mangled_name, demangled_name, short_name, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
        "cluster_x, cluster_y, cluster_z, registers_per_thread, static_smem, dynamic_smem, "
        "local_mem_per_thread, graph_id, graph_node_id FROM kernel");
    KernelRecord k;
    while (q.next()) {
        k.id = q.get<int64_t>(0);
        k.pid = q.get<int64_t>(1);
        k.deviceId = q.get<uint32_t>(2);
        k.contextId = q.get<uint32_t>(3);
        k.streamId = q.get<uint32_t>(4);
        k.correlationId = q.get<uint32_t>(5);
        k.start = q.get<TimeNs>(6);
        k.end = q.get<TimeNs>(7);
        k.queued = q.get<TimeNs>(8);
        k.submitted = q.get<TimeNs>(9);
        k.mangledName = q.get<StringId>(10);
        k.demangledName = q.get<StringId>(11);
        k.shortName = q.get<StringId>(12);
        k.gridX = q.get<int32_t>(13);
        k.gridY = q.get<int32_t>(14);
        k.gridZ = q.get<int32_t>(15);
        k.blockX = q.get<int32_t>(16);
        k.blockY = q.get<int32_t>(17);
        k.blockZ = q.get<int32_t>(18);
        k.clusterX = q.get<int32_t>(19);
        k.clusterY = q.get<int32_t>(20);
        k.clusterZ = q.get<int32_t>(21);
        k.registersPerThread = q.get<int32_t>(22);
        k.staticSmemBytes = q.get<int32_t>(23);
        k.dynamicSmemBytes = q.get<int32_t>(24);
        k.localMemPerThread = q.get<int32_t>(25);
        k.graphId = q.get<uint32_t>(26);
        k.graphNodeId = q.get<uint64_t>(27);
        visit(k);
    }
}

void SessionFileSource::forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const
{
    Query q(m_reader.handle(), m_reader.path(),
        "SELECT id, pid, device_id, context_id, stream_id, correlation_id, start, \"end\", bytes, copy_kind, "
        "src_kind, dst_kind, graph_id FROM memcpy");
    MemcpyRecord m;
    while (q.next()) {
        m.id = q.get<int64_t>(0);
        m.pid = q.get<int64_t>(1);
        m.deviceId = q.get<uint32_t>(2);
        m.contextId = q.get<uint32_t>(3);
        m.streamId = q.get<uint32_t>(4);
        m.correlationId = q.get<uint32_t>(5);
        m.start = q.get<TimeNs>(6);
        m.end = q.get<TimeNs>(7);
        m.bytes = q.get<int64_t>(8);
        m.copyKind = q.get<CopyKind>(9);
        m.srcKind = q.get<int32_t>(10);
        m.dstKind = q.get<int32_t>(11);
        m.graphId = q.get<uint32_t>(12);
        visit(m);
    }
}

void SessionFileSource::forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const
{
    Query q(m_reader.handle(), m_reader.path(),
        "SELECT id, pid, device_id, context_id, stream_id, correlation_id, start, \"end\", bytes, value, "
        "graph_id FROM memset");
    MemsetRecord m;
    while (q.next()) {
        m.id = q.get<int64_t>(0);
        m.pid = q.get<int64_t>(1);
        m.deviceId = q.get<uint32_t>(2);
        m.contextId = q.get<uint32_t>(3);
        m.streamId = q.get<uint32_t>(4);
        m.correlationId = q.get<uint32_t>(5);
        m.start = q.get<TimeNs>(6);
        m.end = q.get<TimeNs>(7);
        m.bytes = q.get<int64_t>(8);
        m.value = q.get<int32_t>(9);
        m.graphId = q.get<uint32_t>(10);
        visit(m);
    }
}

void SessionFileSource::forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const
{
    Query q(m_reader.handle(), m_reader.path(),
        "SELECT id, pid, tid, correlation_id, start, \"end\", domain, cbid, name, return_value FROM api_call");
    ApiCallRecord a;
    while (q.next()) {
        a.id = q.get<int64_t>(0);
        a.pid = q.get<int64_t>(1);
        a.tid = q.get<int64_t>(2);
        a.correlationId = q.get<uint32_t>(3);
        a.start = q.get<TimeNs>(4);
        a.end = q.get<TimeNs>(5);
        a.domain = q.get<ApiDomain>(6);
        a.cbid = q.get<int32_t>(7);
        a.name = q.get<StringId>(8);
        a.returnValue = q.get<int32_t>(9);
        visit(a);
    }
}

void SessionFileSource::forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const
{
    Query q(m_reader.handle(), m_reader.path(),
        "SELECT id, pid, tid, end_tid, start, \"end\", name, domain, category, color, style, depth "
        "FROM nvtx_range");
    NvtxRangeRecord r;
    while (q.next()) {
        r.id = q.get<int64_t>(0);
        r.pid = q.get<int64_t>(1);
        r.tid = q.get<int64_t>(2);
        r.endTid = q.get<int64_t>(3);
        r.start = q.get<TimeNs>(4);
        r.end = q.get<TimeNs>(5);
        r.name = q.get<StringId>(6);
        r.domain = q.get<StringId>(7);
        r.category = q.get<int32_t>(8);
        r.color = q.get<uint32_t>(9);
        r.style = q.get<NvtxStyle>(10);
        r.depth = q.get<int32_t>(11);
        visit(r);
    }
}

void SessionFileSource::forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const
{
    Query q(
        m_reader.handle(), m_reader.path(), "SELECT id, pid, tid, ts, name, domain, category, color FROM nvtx_mark");
    NvtxMarkRecord m;
    while (q.next()) {
        m.id = q.get<int64_t>(0);
        m.pid = q.get<int64_t>(1);
        m.tid = q.get<int64_t>(2);
        m.ts = q.get<TimeNs>(3);
        m.name = q.get<StringId>(4);
        m.domain = q.get<StringId>(5);
        m.category = q.get<int32_t>(6);
        m.color = q.get<uint32_t>(7);
        visit(m);
    }
}

void SessionFileSource::forEachSync(const std::function<void(const SyncRecord&)>& visit) const
{
    Query q(m_reader.handle(), m_reader.path(),
        "SELECT id, pid, tid, device_id, context_id, stream_id, correlation_id, start, \"end\", kind, event_id "
        "FROM sync");
    SyncRecord s;
    while (q.next()) {
        s.id = q.get<int64_t>(0);
        s.pid = q.get<int64_t>(1);
        s.tid = q.get<int64_t>(2);
        s.deviceId = q.get<uint32_t>(3);
        s.contextId = q.get<uint32_t>(4);
        s.streamId = q.get<uint32_t>(5);
        s.correlationId = q.get<uint32_t>(6);
        s.start = q.get<TimeNs>(7);
        s.end = q.get<TimeNs>(8);
        s.kind = q.get<SyncKind>(9);
        s.eventId = q.get<uint32_t>(10);
        visit(s);
    }
}

TimeSpan SessionFileSource::timeSpan() const
{
    // min/max per table: one scan each in SQLite, no row ever crosses into C++.
    static constexpr const char* kQueries[] = {
        "SELECT min(start), max(\"end\") FROM kernel",
        "SELECT min(start), max(\"end\") FROM memcpy",
        "SELECT min(start), max(\"end\") FROM memset",
        "SELECT min(start), max(\"end\") FROM api_call",
        "SELECT min(start), max(\"end\") FROM nvtx_range",
        "SELECT min(ts), max(ts) FROM nvtx_mark",
        "SELECT min(start), max(\"end\") FROM sync",
    };
    TimeSpan span;
    for (const char* sql : kQueries) {
        Query q(m_reader.handle(), m_reader.path(), sql);
        if (!q.next() || q.isNull(0))
            continue;
        const auto begin = q.get<TimeNs>(0);
        const auto end = q.get<TimeNs>(1);
        span.begin = span.valid ? std::min(span.begin, begin) : begin;
        span.end = span.valid ? std::max(span.end, end) : end;
        span.valid = true;
    }
    return span;
}

} // namespace ws

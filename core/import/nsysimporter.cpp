// SPDX-License-Identifier: MIT
#include "core/import/nsysimporter.h"

#include "core/import/importfinish.h"
#include "core/ingest/devicepeaks.h"
#include "core/store/foreigndatabase.h"
#include "core/store/sessionerror.h"
#include "core/util/demangle.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ws {

namespace {

// NVTX event types (ENUM_NSYS_EVENT_TYPE); overridden from the enum table when the file has one.
struct NvtxEventTypes {
    std::set<int64_t> marks {34};
    std::set<int64_t> pushPop {59, 70};
    std::set<int64_t> startEnd {60, 71};
    std::set<int64_t> domainCreate {75};
};

// nsys ENUM_CUDA_MEM_KIND (0 Pageable ... 6 Managed Static, 7 Unknown) to CUpti_ActivityMemoryKind
// (0 Unknown, 1 Pageable ... 7 Managed Static), which is what the session stores.
int32_t cuptiMemoryKind(int64_t nsysKind)
{
    return nsysKind >= 0 && nsysKind <= 6 ? static_cast<int32_t>(nsysKind + 1) : 0;
}

// nsys ENUM_CUDA_MEMCPY_OPER to the CUPTI copy kind; unified-memory copies (11..13) map to the
// direction they move data in.
CopyKind copyKind(int64_t op)
{
    if (op >= 0 && op <= 10)
        return static_cast<CopyKind>(op);
    switch (op) {
    case 11:
        return CopyKind::HtoD;
    case 12:
        return CopyKind::DtoH;
    case 13:
        return CopyKind::DtoD;
    default:
        return CopyKind::Unknown;
    }
}

SyncKind syncKind(int64_t type)
{
    return type >= 0 && type <= 4 ? static_cast<SyncKind>(type) : SyncKind::Unknown;
}

uint32_t u32(int64_t v)
{
    return static_cast<uint32_t>(v);
}

int32_t i32(int64_t v)
{
    return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
}

class NsysReader {
public:
    NsysReader(const store::ForeignDatabase& db, const std::string& name, const ImportOptions& options)
        : m_db(db)
        , m_name(name)
        , m_options(options)
    {
    }

    SessionData read()
    {
        if (!m_db.hasTable("StringIds") && !m_db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL")
            && !m_db.hasTable("CUPTI_ACTIVITY_KIND_RUNTIME") && !m_db.hasTable("NVTX_EVENTS"))
            throw SessionError(SessionError::Kind::BadInput, m_name,
                "a SQLite database without Nsight Systems tables (StringIds, CUPTI_ACTIVITY_KIND_*, "
                "NVTX_EVENTS): not an nsys export");
        // Phases in order, with progress between them (no table of member pointers: GCC's
        // -Wmaybe-uninitialized misfires on one under the sanitizers).
        constexpr double kPhases = 10;
        double done = 0;
        const auto phase = [&](const char* what) {
            checkCancel();
            if (m_options.progress)
                m_options.progress(done++ / kPhases, what);
        };
        phase("reading strings");
        readStrings();
        phase("reading export metadata");
        readMeta();
        phase("reading processes");
        readProcesses();
        phase("reading devices");
        readDevices();
        phase("reading API calls");
        readApiCalls();
        phase("reading kernels");
        readKernels();
        phase("reading copies");
        readMemcpys();
        phase("reading memsets");
        readMemsets();
        phase("reading synchronization");
        readSyncs();
        phase("reading NVTX");
        readNvtx();
        keepProcessesWithEvents();
        if (m_options.progress)
            m_options.progress(1.0, "done");
        finishImport(m_data, ImportFormat::NsysSqlite, m_name);
        return std::move(m_data);
    }

private:
    void checkCancel()
    {
        if (m_options.cancel.isCancelled())
            throw SessionError(SessionError::Kind::Cancelled, m_name, "import cancelled");
    }

    // Polled per row: a cheap counter, the token only every 16k rows.
    void rowTick()
    {
        if ((++m_rows & 0x3FFF) == 0)
            checkCancel();
    }

    sqlite::Statement select(const char* table, std::initializer_list<const char*> wanted, const char* orderBy = "")
    {
        return m_db.select(table, wanted, orderBy);
    }

    StringId str(const sqlite::Statement& st, int column)
    {
        if (st.isNull(column))
            return 0;
        const int64_t id = st.columnInt64(column);
        if (auto it = m_ids.find(id); it != m_ids.end())
            return it->second;
        return 0;
    }

    static int64_t i64(const sqlite::Statement& st, int column) { return st.columnInt64(column); }
    static bool isNull(const sqlite::Statement& st, int column) { return st.isNull(column); }

    void readStrings()
    {
        if (!m_db.hasTable("StringIds"))
            return;
        auto st = select("StringIds", {"id", "value"});
        while (st.step()) {
            rowTick();
            m_ids[st.columnInt64(0)] = m_data.strings.intern(st.columnText(1));
        }
    }

    void readMeta()
    {
        if (m_db.hasTable("META_DATA_EXPORT")) {
            auto st = select("META_DATA_EXPORT", {"name", "value"});
            while (st.step())
                m_data.meta["import.nsys." + std::string(st.columnText(0))] = std::string(st.columnText(1));
        }
        if (m_db.hasTable("TARGET_INFO_SYSTEM_ENV")) {
            auto st = select("TARGET_INFO_SYSTEM_ENV", {"name", "value"});
            while (st.step())
                m_data.environment["nsys." + std::string(st.columnText(0))] = std::string(st.columnText(1));
        }
        if (m_db.hasTable("ANALYSIS_DETAILS")) {
            auto st = select("ANALYSIS_DETAILS", {"startTime", "stopTime"});
            if (st.step() && !isNull(st, 0)) {
                m_anchorMonotonic = i64(st, 0);
                m_haveAnchor = true;
            }
            if (!isNull(st, 1))
                m_lastTime = std::max(m_lastTime, i64(st, 1));
        }
        if (m_db.hasTable("TARGET_INFO_SESSION_START_TIME")) {
            auto st = select("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"});
            if (st.step() && !isNull(st, 0))
                m_anchorRealtime = i64(st, 0);
        }
    }

    void readProcesses()
    {
        if (m_db.hasTable("PROCESSES")) {
            auto st = select("PROCESSES", {"globalPid", "pid", "name"});
            std::set<int64_t> seen;
            while (st.step()) {
                rowTick();
                ProcessInfo p;
                p.pid = isNull(st, 1) ? nsysPid(i64(st, 0)) : i64(st, 1);
                if (!seen.insert(p.pid).second)
                    continue;
                p.name = std::string(st.columnText(2));
                if (m_haveAnchor) {
                    p.anchorMonotonicNs = m_anchorMonotonic;
                    p.anchorRealtimeNs = m_anchorRealtime;
                }
                m_data.processes.push_back(std::move(p));
            }
        }
        if (m_db.hasTable("ThreadNames")) {
            auto st = select("ThreadNames", {"nameId", "globalTid"});
            std::set<std::pair<int64_t, int64_t>> seen;
            while (st.step()) {
                rowTick();
                const int64_t g = i64(st, 1);
                if (!seen.emplace(nsysPid(g), nsysTid(g)).second)
                    continue;
                m_data.threads.push_back({nsysPid(g), nsysTid(g), m_data.str(str(st, 0))});
            }
        }
    }

    // nsys (2022.4 at least) lists every process and thread it saw on the machine in PROCESSES
    // and ThreadNames (kernel workers, shells: about a hundred on a quiet machine, with no event
    // of theirs in the export); a session names only the processes that have events.
    void keepProcessesWithEvents()
    {
        std::set<int64_t> pids;
        const auto add = [&](const auto& records) {
            for (const auto& r : records)
                pids.insert(r.pid);
        };
        add(m_data.kernels);
        add(m_data.memcpys);
        add(m_data.memsets);
        add(m_data.apiCalls);
        add(m_data.nvtxRanges);
        add(m_data.nvtxMarks);
        add(m_data.syncs);
        add(m_data.devices);
        std::erase_if(m_data.processes, [&](const ProcessInfo& p) { return !pids.count(p.pid); });
        std::erase_if(m_data.threads, [&](const ThreadInfo& t) { return !pids.count(t.pid); });
    }

    void readDevices()
    {
        if (!m_db.hasTable("TARGET_INFO_GPU"))
            return;
        std::map<int64_t, DeviceInfo> gpus;
        auto st = select("TARGET_INFO_GPU",
            {"id", "name", "uuid", "l2CacheSize", "totalMemory", "memoryBandwidth", "clockRate", "smCount",
                "maxRegistersPerBlock", "maxShmemPerBlock", "maxShmemPerBlockOptin", "maxShmemPerSm",
                "maxRegistersPerSm", "threadsPerWarp", "maxWarpsPerSm", "maxBlocksPerSm", "maxThreadsPerBlock",
                "computeMajor", "computeMinor"});
        while (st.step()) {
            DeviceInfo d;
            d.id = u32(i64(st, 0));
            d.name = std::string(st.columnText(1));
            d.uuid = std::string(st.columnText(2));
            d.l2Bytes = i64(st, 3);
            d.globalMemBytes = i64(st, 4);
            const double bandwidth = st.columnDouble(5);
            d.smClockKhz = i64(st, 6) / 1000; // Hz in the export
            d.smClockMaxKhz = d.smClockKhz;
            d.smCount = i32(i64(st, 7));
            d.regsPerBlock = i32(i64(st, 8));
            d.smemPerBlock = i64(st, 9);
            d.smemPerBlockOptin = i64(st, 10);
            d.smemPerSm = i64(st, 11);
            d.regsPerSm = i32(i64(st, 12));
            if (!isNull(st, 13))
                d.warpSize = i32(i64(st, 13));
            d.maxWarpsPerSm = i32(i64(st, 14));
            d.maxBlocksPerSm = i32(i64(st, 15));
            d.maxThreadsPerBlock = i32(i64(st, 16));
            d.ccMajor = i32(i64(st, 17));
            d.ccMinor = i32(i64(st, 18));
            fillDevicePeaks(d);
            if (bandwidth > 0)
                d.dramBandwidthBytesPerS = bandwidth;
            gpus[i64(st, 0)] = std::move(d);
        }
        // A process's CUDA ordinal may differ from the physical GPU id (CUDA_VISIBLE_DEVICES);
        // kernels carry the ordinal, so devices are keyed by it when the map exists.
        bool mapped = false;
        if (m_db.hasTable("TARGET_INFO_CUDA_DEVICE")) {
            auto map = select("TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId", "pid"});
            std::set<std::pair<int64_t, uint32_t>> seen;
            while (map.step()) {
                auto it = gpus.find(i64(map, 0));
                if (it == gpus.end())
                    continue;
                DeviceInfo d = it->second;
                d.id = u32(i64(map, 1));
                d.pid = i64(map, 2);
                if (!seen.emplace(d.pid, d.id).second)
                    continue;
                m_data.devices.push_back(std::move(d));
                mapped = true;
            }
        }
        if (!mapped) {
            for (auto& [id, d] : gpus)
                m_data.devices.push_back(std::move(d));
        }
    }

    void readApiCalls()
    {
        for (const auto& [table, domain] : {std::pair {"CUPTI_ACTIVITY_KIND_RUNTIME", ApiDomain::Runtime},
                 std::pair {"CUPTI_ACTIVITY_KIND_DRIVER", ApiDomain::Driver}}) {
            if (!m_db.hasTable(table))
                continue;
            auto st = select(table, {"start", "end", "globalTid", "correlationId", "nameId", "returnValue"});
            while (st.step()) {
                rowTick();
                ApiCallRecord r;
                r.start = i64(st, 0);
                r.end = std::max(r.start, i64(st, 1));
                const int64_t g = i64(st, 2);
                r.pid = nsysPid(g);
                r.tid = nsysTid(g);
                r.correlationId = u32(i64(st, 3));
                r.name = str(st, 4);
                r.returnValue = i32(i64(st, 5));
                r.domain = domain;
                if (r.correlationId != 0)
                    m_threadOfCall.try_emplace({r.pid, r.correlationId}, r.tid);
                m_lastTime = std::max(m_lastTime, r.end);
                m_data.apiCalls.push_back(r);
            }
        }
    }

    void readKernels()
    {
        if (!m_db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL"))
            return;
        auto st = select("CUPTI_ACTIVITY_KIND_KERNEL",
            {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "demangledName",
                "shortName", "mangledName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                "registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "localMemoryPerThread",
                "graphNodeId"});
        std::unordered_map<StringId, StringId> shortNames;
        while (st.step()) {
            rowTick();
            KernelRecord k;
            k.start = i64(st, 0);
            k.end = std::max(k.start, i64(st, 1));
            k.deviceId = u32(i64(st, 2));
            k.contextId = u32(i64(st, 3));
            k.streamId = u32(i64(st, 4));
            k.correlationId = u32(i64(st, 5));
            k.pid = nsysPid(i64(st, 6));
            k.demangledName = str(st, 7);
            k.shortName = str(st, 8);
            k.mangledName = str(st, 9);
            if (k.demangledName == 0 && k.mangledName != 0)
                k.demangledName = m_data.strings.intern(demangle(m_data.str(k.mangledName)));
            if (k.shortName == 0 && k.demangledName != 0) {
                auto [it, inserted] = shortNames.try_emplace(k.demangledName, 0);
                if (inserted)
                    it->second = m_data.strings.intern(shortName(m_data.str(k.demangledName)));
                k.shortName = it->second;
            }
            k.gridX = i32(i64(st, 10));
            k.gridY = i32(i64(st, 11));
            k.gridZ = i32(i64(st, 12));
            k.blockX = i32(i64(st, 13));
            k.blockY = i32(i64(st, 14));
            k.blockZ = i32(i64(st, 15));
            k.registersPerThread = i32(i64(st, 16));
            k.staticSmemBytes = i32(i64(st, 17));
            k.dynamicSmemBytes = i32(i64(st, 18));
            k.localMemPerThread = i32(i64(st, 19));
            k.graphNodeId = static_cast<uint64_t>(i64(st, 20));
            m_lastTime = std::max(m_lastTime, k.end);
            m_data.kernels.push_back(k);
        }
    }

    void readMemcpys()
    {
        if (!m_db.hasTable("CUPTI_ACTIVITY_KIND_MEMCPY"))
            return;
        auto st = select("CUPTI_ACTIVITY_KIND_MEMCPY",
            {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes", "copyKind",
                "srcKind", "dstKind"});
        while (st.step()) {
            rowTick();
            MemcpyRecord m;
            m.start = i64(st, 0);
            m.end = std::max(m.start, i64(st, 1));
            m.deviceId = u32(i64(st, 2));
            m.contextId = u32(i64(st, 3));
            m.streamId = u32(i64(st, 4));
            m.correlationId = u32(i64(st, 5));
            m.pid = nsysPid(i64(st, 6));
            m.bytes = i64(st, 7);
            m.copyKind = copyKind(i64(st, 8));
            m.srcKind = isNull(st, 9) ? 0 : cuptiMemoryKind(i64(st, 9));
            m.dstKind = isNull(st, 10) ? 0 : cuptiMemoryKind(i64(st, 10));
            m_lastTime = std::max(m_lastTime, m.end);
            m_data.memcpys.push_back(m);
        }
    }

    void readMemsets()
    {
        if (!m_db.hasTable("CUPTI_ACTIVITY_KIND_MEMSET"))
            return;
        auto st = select("CUPTI_ACTIVITY_KIND_MEMSET",
            {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes", "value"});
        while (st.step()) {
            rowTick();
            MemsetRecord m;
            m.start = i64(st, 0);
            m.end = std::max(m.start, i64(st, 1));
            m.deviceId = u32(i64(st, 2));
            m.contextId = u32(i64(st, 3));
            m.streamId = u32(i64(st, 4));
            m.correlationId = u32(i64(st, 5));
            m.pid = nsysPid(i64(st, 6));
            m.bytes = i64(st, 7);
            m.value = i32(i64(st, 8));
            m_lastTime = std::max(m_lastTime, m.end);
            m_data.memsets.push_back(m);
        }
    }

    void readSyncs()
    {
        if (!m_db.hasTable("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"))
            return;
        auto st = select("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
            {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType", "eventId"});
        while (st.step()) {
            rowTick();
            SyncRecord s;
            s.start = i64(st, 0);
            s.end = std::max(s.start, i64(st, 1));
            s.deviceId = u32(i64(st, 2));
            s.contextId = u32(i64(st, 3));
            s.streamId = isNull(st, 4) ? 0xFFFFFFFFu : u32(i64(st, 4));
            s.correlationId = u32(i64(st, 5));
            s.pid = nsysPid(i64(st, 6));
            s.kind = syncKind(i64(st, 7));
            s.eventId = u32(i64(st, 8));
            // The row names only the process; the thread is that of the API call it belongs to.
            if (auto it = m_threadOfCall.find({s.pid, s.correlationId}); it != m_threadOfCall.end())
                s.tid = it->second;
            m_lastTime = std::max(m_lastTime, s.end);
            m_data.syncs.push_back(s);
        }
    }

    NvtxEventTypes nvtxEventTypes()
    {
        NvtxEventTypes types;
        if (!m_db.hasTable("ENUM_NSYS_EVENT_TYPE"))
            return types;
        NvtxEventTypes fromEnum;
        fromEnum.marks.clear();
        fromEnum.pushPop.clear();
        fromEnum.startEnd.clear();
        fromEnum.domainCreate.clear();
        auto st = select("ENUM_NSYS_EVENT_TYPE", {"id", "name"});
        while (st.step()) {
            const std::string name(st.columnText(1));
            if (name.rfind("Nvtx", 0) != 0)
                continue; // NvtxMark, NvtxPushPopRange, NvtxtPushPopRange, NvtxDomainCreate...
            const int64_t id = i64(st, 0);
            if (name.find("PushPop") != std::string::npos)
                fromEnum.pushPop.insert(id);
            else if (name.find("StartEnd") != std::string::npos)
                fromEnum.startEnd.insert(id);
            else if (name.find("DomainCreate") != std::string::npos)
                fromEnum.domainCreate.insert(id);
            else if (name.find("Mark") != std::string::npos)
                fromEnum.marks.insert(id);
        }
        if (!fromEnum.pushPop.empty() || !fromEnum.startEnd.empty())
            types = std::move(fromEnum);
        if (types.domainCreate.empty())
            types.domainCreate = {75};
        return types;
    }

    void readNvtx()
    {
        if (!m_db.hasTable("NVTX_EVENTS"))
            return;
        const NvtxEventTypes types = nvtxEventTypes();
        auto st = select("NVTX_EVENTS",
            {"start", "end", "eventType", "globalTid", "endGlobalTid", "text", "textId", "domainId", "category",
                "color"},
            "start");
        struct Pending {
            NvtxRangeRecord range;
            int64_t domainId;
            bool open;
        };
        std::vector<Pending> ranges;
        std::vector<std::pair<NvtxMarkRecord, int64_t>> marks;
        std::map<std::pair<int64_t, int64_t>, StringId> domains; // (pid, domainId) -> name
        TimeNs last = m_lastTime;
        while (st.step()) {
            rowTick();
            const int64_t type = i64(st, 2);
            const int64_t g = i64(st, 3);
            const int64_t pid = nsysPid(g);
            // Registered strings (textId) take precedence over inline text, as in NVIDIA's reports.
            StringId name = str(st, 6);
            if (name == 0 && !isNull(st, 5))
                name = m_data.strings.intern(st.columnText(5));
            const int64_t domainId = i64(st, 7);
            const TimeNs start = i64(st, 0);
            last = std::max(last, start);
            if (!isNull(st, 1))
                last = std::max(last, i64(st, 1));
            if (types.domainCreate.count(type)) {
                domains[{pid, domainId}] = name;
            } else if (types.marks.count(type)) {
                NvtxMarkRecord m;
                m.pid = pid;
                m.tid = nsysTid(g);
                m.ts = start;
                m.name = name;
                m.category = i32(i64(st, 8));
                m.color = u32(i64(st, 9));
                marks.emplace_back(m, domainId);
            } else if (types.pushPop.count(type) || types.startEnd.count(type)) {
                NvtxRangeRecord r;
                r.pid = pid;
                r.tid = nsysTid(g);
                r.endTid = isNull(st, 4) ? r.tid : nsysTid(i64(st, 4));
                r.start = start;
                r.end = isNull(st, 1) ? start : std::max(start, i64(st, 1));
                r.name = name;
                r.category = i32(i64(st, 8));
                r.color = u32(i64(st, 9));
                r.style = types.startEnd.count(type) ? NvtxStyle::StartEnd : NvtxStyle::PushPop;
                ranges.push_back({r, domainId, isNull(st, 1)});
            }
        }
        const auto domainOf = [&](int64_t pid, int64_t id) -> StringId {
            if (id == 0)
                return 0;
            auto it = domains.find({pid, id});
            return it == domains.end() ? 0 : it->second;
        };
        for (auto& p : ranges) {
            if (p.open)
                p.range.end = last; // never ended: runs to the end of the capture
            p.range.domain = domainOf(p.range.pid, p.domainId);
            m_data.nvtxRanges.push_back(p.range);
        }
        for (auto& [m, domainId] : marks) {
            m.domain = domainOf(m.pid, domainId);
            m_data.nvtxMarks.push_back(m);
        }
    }

    const store::ForeignDatabase& m_db;
    const std::string& m_name;
    const ImportOptions& m_options;
    SessionData m_data;
    std::unordered_map<int64_t, StringId> m_ids;                    // StringIds.id -> session string
    std::map<std::pair<int64_t, uint32_t>, int64_t> m_threadOfCall; // (pid, correlation) -> tid
    TimeNs m_anchorMonotonic = 0;
    TimeNs m_anchorRealtime = 0;
    bool m_haveAnchor = false;
    TimeNs m_lastTime = 0; // latest timestamp seen: where ranges never ended stop
    uint64_t m_rows = 0;
};

SessionData readDatabase(const store::ForeignDatabase& db, const std::string& name, const ImportOptions& options)
{
    try {
        NsysReader reader(db, name, options);
        return reader.read();
    } catch (const sqlite::Error& e) {
        if (e.isNotADatabase())
            throw SessionError(SessionError::Kind::BadInput, name, "not a SQLite database (nsys export expected)");
        throw SessionError(SessionError::Kind::BadInput, name,
            std::string(e.isCorruption() ? "damaged SQLite file: " : "cannot read nsys export: ") + e.what());
    }
}

} // namespace

SessionData NsysImporter::importFile(const std::string& path, const ImportOptions& options) const
{
    if (FILE* f = std::fopen(path.c_str(), "rb"))
        std::fclose(f);
    else
        throw SessionError(SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
    try {
        const auto db = store::ForeignDatabase::openFile(path);
        return readDatabase(db, path, options);
    } catch (const sqlite::Error& e) {
        throw SessionError(SessionError::Kind::BadInput, path, e.what());
    }
}

SessionData NsysImporter::importBytes(
    std::string_view bytes, const std::string& displayName, const ImportOptions& options) const
{
    try {
        const auto db = store::ForeignDatabase::fromImage(bytes);
        return readDatabase(db, displayName, options);
    } catch (const sqlite::Error& e) {
        throw SessionError(SessionError::Kind::BadInput, displayName, e.what());
    }
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/ingest/rawingest.h"

#include "core/iket/iketingest.h"
#include "core/ingest/devicepeaks.h"
#include "core/ingest/eventopingest.h"
#include "core/ingest/gpumetricsingest.h"
#include "core/ingest/nvtxtimingingest.h"
#include "core/ingest/rawtail.h"
#include "core/model/commranks.h"
#include "core/model/launchindex.h"
#include "core/model/streamdependencies.h"
#include "core/util/demangle.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace ws {

namespace {

struct NvtxEvent {
    int64_t pid = 0;
    int64_t tid = 0;
    TimeNs ts = 0;
    uint64_t domainHandle = 0;
    uint64_t rangeId = 0;
    StringId name = 0;
    StringId domain = 0;
    int32_t category = 0;
    uint32_t color = 0;
    raw::NvtxKind kind = raw::NvtxKind::Mark;
    size_t order = 0; // arrival order, to keep calls with equal timestamps in call order
};

// Everything gathered from the files before sorting and pairing.
struct Builder {
    SessionData s;
    std::vector<NvtxEvent> nvtx;
    std::map<std::pair<int64_t, int64_t>, std::pair<std::string, bool>> threadNames; // name, set through NVTX
    std::map<std::pair<int64_t, uint32_t>, DeviceInfo> devices;
    std::set<int64_t> pidsWithEnd;
    std::map<int64_t, size_t> processIndex;
    std::vector<std::pair<int64_t, std::string>> messages; // per process, in arrival order
    struct Environment {
        int64_t pid;
        std::string key, value;
    };
    std::vector<Environment> environment;
    std::vector<int64_t> filePids; // one per raw file
    size_t truncatedFiles = 0;
    int64_t rawBytes = 0;
    uint64_t dropped = 0;
    int64_t incompleteGpuRecords = 0;
    int64_t unknownFrames = 0;
    TimeNs lastTs = 0;
    std::unordered_map<StringId, std::pair<StringId, StringId>> kernelNames; // mangled -> demangled, short

    // Demangled and short names, computed once per distinct name.
    void nameKernel(KernelRecord& k)
    {
        auto it = kernelNames.find(k.mangledName);
        if (it == kernelNames.end()) {
            const std::string demangled = demangle(s.str(k.mangledName));
            const StringId d = s.strings.intern(demangled);
            const StringId sh = s.strings.intern(shortName(demangled));
            it = kernelNames.emplace(k.mangledName, std::make_pair(d, sh)).first;
        }
        k.demangledName = it->second.first;
        k.shortName = it->second.second;
    }
    std::string streamMap; // "pid P ctx C: cupti->program, ...", for meta stream_id_map
    size_t streamMaps = 0;
    iket::LaunchCollector iket; // in-kernel trace records, decoded in finish()

    void seen(TimeNs t) { lastTs = std::max(lastTs, t); }
};

std::string_view text(std::string_view payloadTail)
{
    // Strings are written without a terminator; tolerate one anyway.
    while (!payloadTail.empty() && payloadTail.back() == '\0')
        payloadTail.remove_suffix(1);
    return payloadTail;
}

std::string basename(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One raw file's own tables, kept while its frames arrive: string ids, the clock CUPTI used,
// CUPTI thread and stream ids -> the OS's and the program's, NVTX domain names.
struct FileState {
    std::string path;
    raw::FileHeader header {};
    int64_t pid = 0;
    size_t procIdx = 0;
    std::unordered_map<uint32_t, StringId> strings;
    int64_t cuptiClockShift = 0; // subtracted from CUPTI times to reach CLOCK_MONOTONIC
    std::unordered_map<uint64_t, int64_t> threadMap;
    std::unordered_map<uint64_t, uint32_t> streamIds; // (context << 32 | CUPTI stream) -> program's id
    std::unordered_map<uint64_t, StringId> domains;   // NVTX domain handle -> name
    // Following a file as it grows, records are converted with the tables as they stand. The
    // recorder writes a table entry before any record that uses it (the clock domain at start,
    // a thread's or a stream's entry when it first sees the thread or stream); should a file
    // ever break that (an entry for a thread, stream or clock a converted record already used,
    // a string used before its definition), `stale` sends the whole recording through the
    // whole-file path at finish, which reads the tables first.
    bool following = false;
    bool clockUsed = false;
    std::unordered_set<uint64_t> streamsUsed; // (context << 32 | CUPTI stream) of converted records
    std::unordered_set<int64_t> tidsUsed;     // CUPTI thread ids of converted records
    uint64_t lastStream = ~uint64_t {0};
    int64_t lastTid = INT64_MIN;
    bool stale = false;
    bool sideFrames = false; // PM sampling, NVTX timing: read from the whole file at finish
    // In-kernel trace frames (type, payload) as they arrived, handed to the collector at finish
    // in the order the whole file would give them, so the file need not be read again then.
    std::vector<std::pair<raw::RecordType, std::string>> iketFrames;
};

bool isTableFrame(raw::RecordType t)
{
    using raw::RecordType;
    return t == RecordType::String || t == RecordType::ClockDomain || t == RecordType::ThreadMap
        || t == RecordType::StreamMap;
}

FileState openFile(
    const std::string& path, const raw::FileHeader& header, Builder& b, std::vector<std::string>& warnings)
{
    FileState st;
    st.path = path;
    st.header = header;
    st.pid = header.pid;
    auto& s = b.s;
    auto [procIt, newProcess] = b.processIndex.try_emplace(st.pid, s.processes.size());
    if (newProcess) {
        ProcessInfo p;
        p.pid = st.pid;
        p.parentPid = header.parentPid;
        p.anchorRealtimeNs = header.anchorRealtimeNs;
        p.anchorMonotonicNs = header.anchorMonotonicNs;
        p.name = "pid " + std::to_string(st.pid);
        s.processes.push_back(p);
    } else {
        warnings.push_back(path + ": a second raw file for pid " + std::to_string(st.pid)
            + " (pid reused?); its records are merged into the first");
    }
    st.procIdx = procIt->second;
    return st;
}

void tableFrame(FileState& st, Builder& b, const raw::RawFrame& f)
{
    using raw::RecordType;
    if (f.type == RecordType::String) {
        const auto def = raw::readPayload<raw::StringDef>(f.payload);
        st.strings[def.id] = b.s.strings.intern(text(raw::trailingBytes<raw::StringDef>(f.payload)));
    } else if (f.type == RecordType::ClockDomain) {
        const auto c = raw::readPayload<raw::ClockDomainRecord>(f.payload);
        st.stale = st.stale || st.clockUsed;
        st.cuptiClockShift = c.realtime ? c.realtimeMinusMonotonicNs : 0;
    } else if (f.type == RecordType::ThreadMap) {
        const auto m = raw::readPayload<raw::ThreadMapRecord>(f.payload);
        st.stale = st.stale || st.tidsUsed.count(static_cast<int64_t>(m.cuptiThreadId)) > 0;
        st.threadMap[m.cuptiThreadId] = m.tid;
    } else if (f.type == RecordType::StreamMap) {
        const auto m = raw::readPayload<raw::StreamMapRecord>(f.payload);
        // The first pairs in meta, for whoever checks the mapping; a program with many streams
        // does not get a meta value of kilobytes.
        if (++b.streamMaps <= 64)
            b.streamMap += (b.streamMap.empty() ? "" : ", ") + std::string("pid ") + std::to_string(st.pid) + " ctx "
                + std::to_string(m.contextId) + ": " + std::to_string(m.cuptiStreamId) + "->"
                + std::to_string(m.programStreamId);
        else if (b.streamMaps == 65)
            b.streamMap += ", ...";
        st.stale = st.stale || st.streamsUsed.count((uint64_t {m.contextId} << 32) | m.cuptiStreamId) > 0;
        if (m.programStreamId < 0xFFFFFFFFull) // ids beyond 32 bits keep CUPTI's
            st.streamIds[(uint64_t {m.contextId} << 32) | m.cuptiStreamId] = static_cast<uint32_t>(m.programStreamId);
    }
}

// Converts one record frame (not a table frame, not an in-kernel trace frame).
void recordFrame(FileState& st, Builder& b, const raw::RawFrame& f)
{
    using raw::RecordType;
    const int64_t pid = st.pid;
    auto& s = b.s;
    // The stream ids the program itself sees (cudaStreamGetId), where the recorder saw the stream made.
    const auto programStream = [&st](uint32_t contextId, uint32_t cuptiStreamId) {
        const uint64_t key = (uint64_t {contextId} << 32) | cuptiStreamId;
        if (st.following && key != st.lastStream) {
            st.lastStream = key;
            st.streamsUsed.insert(key);
        }
        if (st.streamIds.empty())
            return cuptiStreamId;
        const auto it = st.streamIds.find(key);
        return it == st.streamIds.end() ? cuptiStreamId : it->second;
    };
    const int64_t cuptiClockShift = st.cuptiClockShift;
    const auto gpuTime = [cuptiClockShift](int64_t t) { return t > 0 ? t - cuptiClockShift : t; };
    const auto osTid = [&st](int64_t cuptiTid) {
        if (st.following && cuptiTid != st.lastTid) {
            st.lastTid = cuptiTid;
            st.tidsUsed.insert(cuptiTid);
        }
        const auto it = st.threadMap.find(static_cast<uint64_t>(cuptiTid));
        return it == st.threadMap.end() ? cuptiTid : it->second;
    };
    const auto str = [&st](uint32_t id) -> StringId {
        if (id == 0)
            return 0;
        const auto it = st.strings.find(id);
        if (it != st.strings.end())
            return it->second;
        st.stale = st.stale || st.following;
        return 0;
    };
    const size_t procIdx = st.procIdx;
    auto& domains = st.domains;
    const auto domainName = [&](uint64_t handle) -> StringId {
        if (handle == 0)
            return 0;
        const auto it = domains.find(handle);
        return it == domains.end() ? s.strings.intern("domain " + std::to_string(handle)) : it->second;
    };
    if (f.type == RecordType::Kernel || f.type == RecordType::Memcpy || f.type == RecordType::Memset
        || f.type == RecordType::Api || f.type == RecordType::Sync || f.type == RecordType::Overhead)
        st.clockUsed = st.following;
    {
        switch (f.type) {
        case RecordType::String:
        case RecordType::ClockDomain:
        case RecordType::ThreadMap:
        case RecordType::StreamMap:
            break;
        case RecordType::Process: {
            const auto r = raw::readPayload<raw::ProcessRecord>(f.payload);
            auto& p = s.processes[procIdx];
            p.commandLine = s.str(str(r.commandLine));
            const std::string exe = s.str(str(r.executable));
            if (!exe.empty())
                p.name = basename(exe);
            if (r.parentPid != 0)
                p.parentPid = r.parentPid;
            break;
        }
        case RecordType::Environment: {
            const auto r = raw::readPayload<raw::EnvironmentRecord>(f.payload);
            const std::string& key = s.str(str(r.key));
            const std::string& value = s.str(str(r.value));
            if (key.empty())
                break;
            if (isRankEnvironmentKey(key)) { // per process: meta "rank.<pid>" (analysis/commranks.h)
                s.meta[rankMetaKey(key, pid)] = value;
                break;
            }
            b.environment.push_back({pid, key, value}); // applied in process order at finish
            break;
        }
        case RecordType::Device: {
            const auto r = raw::readPayload<raw::DeviceRecord>(f.payload);
            DeviceInfo d;
            d.id = r.id;
            d.pid = pid;
            d.name = s.str(str(r.name));
            d.uuid = s.str(str(r.uuid));
            d.ccMajor = r.ccMajor;
            d.ccMinor = r.ccMinor;
            d.smCount = r.smCount;
            d.smClockMaxKhz = r.clockKhz;
            d.memClockKhz = r.memClockKhz;
            d.memBusWidthBits = r.memBusWidthBits;
            d.l2Bytes = r.l2Bytes;
            d.globalMemBytes = r.globalMemBytes;
            d.regsPerSm = r.regsPerSm;
            d.regsPerBlock = r.regsPerBlock;
            d.smemPerSm = r.smemPerSm;
            d.smemPerBlock = r.smemPerBlock;
            d.smemPerBlockOptin = r.smemPerBlockOptin;
            d.smemReservedPerBlock = r.smemReservedPerBlock;
            d.warpSize = r.warpSize > 0 ? r.warpSize : 32;
            d.maxWarpsPerSm = r.maxThreadsPerSm / d.warpSize;
            d.maxBlocksPerSm = r.maxBlocksPerSm;
            d.maxThreadsPerBlock = r.maxThreadsPerBlock;
            auto& slot = b.devices[{pid, r.id}];
            // Clocks may have arrived first (NVML is read later by the writer thread).
            d.smClockKhz = slot.smClockKhz;
            if (slot.smClockMaxKhz > 0)
                d.smClockMaxKhz = slot.smClockMaxKhz;
            slot = d;
            break;
        }
        case RecordType::DeviceClocks: {
            const auto r = raw::readPayload<raw::DeviceClocksRecord>(f.payload);
            auto& slot = b.devices[{pid, r.id}];
            slot.id = r.id;
            slot.pid = pid;
            slot.smClockKhz = r.smClockKhz;
            if (r.smClockMaxKhz > 0)
                slot.smClockMaxKhz = r.smClockMaxKhz;
            break;
        }
        case RecordType::Kernel: {
            const auto r = raw::readPayload<raw::KernelRecord>(f.payload);
            if (r.start <= 0 || r.end < r.start) {
                ++b.incompleteGpuRecords;
                break;
            }
            KernelRecord k;
            k.pid = pid;
            k.deviceId = r.deviceId;
            k.contextId = r.contextId;
            k.streamId = programStream(r.contextId, r.streamId);
            k.correlationId = r.correlationId;
            k.start = gpuTime(r.start);
            k.end = gpuTime(r.end);
            k.queued = gpuTime(r.queued);
            k.submitted = gpuTime(r.submitted);
            k.mangledName = str(r.name);
            k.gridX = r.grid[0];
            k.gridY = r.grid[1];
            k.gridZ = r.grid[2];
            k.blockX = r.block[0];
            k.blockY = r.block[1];
            k.blockZ = r.block[2];
            k.clusterX = r.cluster[0];
            k.clusterY = r.cluster[1];
            k.clusterZ = r.cluster[2];
            k.registersPerThread = r.registersPerThread;
            k.staticSmemBytes = r.staticSmem;
            k.dynamicSmemBytes = r.dynamicSmem;
            k.localMemPerThread = r.localMemPerThread;
            k.graphId = r.graphId;
            k.graphNodeId = r.graphNodeId;
            b.seen(k.end);
            s.kernels.push_back(k);
            break;
        }
        case RecordType::Memcpy: {
            const auto r = raw::readPayload<raw::MemcpyRecord>(f.payload);
            if (r.start <= 0 || r.end < r.start) {
                ++b.incompleteGpuRecords;
                break;
            }
            MemcpyRecord m;
            m.pid = pid;
            m.deviceId = r.deviceId;
            m.contextId = r.contextId;
            m.streamId = programStream(r.contextId, r.streamId);
            m.correlationId = r.correlationId;
            m.start = gpuTime(r.start);
            m.end = gpuTime(r.end);
            m.bytes = r.bytes;
            m.copyKind = r.copyKind <= 10 ? static_cast<CopyKind>(r.copyKind) : CopyKind::Unknown;
            m.srcKind = r.srcKind;
            m.dstKind = r.dstKind;
            m.graphId = r.graphId;
            b.seen(m.end);
            s.memcpys.push_back(m);
            break;
        }
        case RecordType::Memset: {
            const auto r = raw::readPayload<raw::MemsetRecord>(f.payload);
            if (r.start <= 0 || r.end < r.start) {
                ++b.incompleteGpuRecords;
                break;
            }
            MemsetRecord m;
            m.pid = pid;
            m.deviceId = r.deviceId;
            m.contextId = r.contextId;
            m.streamId = programStream(r.contextId, r.streamId);
            m.correlationId = r.correlationId;
            m.start = gpuTime(r.start);
            m.end = gpuTime(r.end);
            m.bytes = r.bytes;
            m.value = static_cast<int32_t>(r.value);
            m.graphId = r.graphId;
            b.seen(m.end);
            s.memsets.push_back(m);
            break;
        }
        case RecordType::Api: {
            const auto r = raw::readPayload<raw::ApiRecord>(f.payload);
            ApiCallRecord a;
            a.pid = pid;
            a.tid = osTid(r.tid);
            a.correlationId = r.correlationId;
            a.start = gpuTime(r.start);
            a.end = std::max(gpuTime(r.end), a.start);
            a.domain
                = r.domain == static_cast<uint8_t>(raw::ApiDomain::Driver) ? ApiDomain::Driver : ApiDomain::Runtime;
            a.cbid = static_cast<int32_t>(r.cbid);
            a.name = str(r.name);
            a.returnValue = r.returnValue;
            b.seen(a.end);
            s.apiCalls.push_back(a);
            break;
        }
        case RecordType::Sync: {
            const auto r = raw::readPayload<raw::SyncRecord>(f.payload);
            SyncRecord y;
            y.pid = pid;
            y.contextId = r.contextId;
            y.streamId = r.streamId == 0xFFFFFFFFu ? r.streamId : programStream(r.contextId, r.streamId);
            y.correlationId = r.correlationId;
            y.start = gpuTime(r.start);
            y.end = std::max(gpuTime(r.end), y.start);
            y.kind = r.type <= 4 ? static_cast<SyncKind>(r.type) : SyncKind::Unknown;
            y.eventId = r.eventId;
            b.seen(y.end);
            s.syncs.push_back(y);
            break;
        }
        case RecordType::Overhead: {
            const auto r = raw::readPayload<raw::OverheadRecord>(f.payload);
            OverheadRecord o;
            o.pid = pid;
            o.tid = osTid(r.tid);
            o.start = gpuTime(r.start);
            o.end = std::max(gpuTime(r.end), o.start);
            o.kind = str(r.kind);
            s.overheads.push_back(o);
            break;
        }
        case RecordType::NvtxDomain: {
            const auto r = raw::readPayload<raw::NvtxDomainRecord>(f.payload);
            domains[r.domain] = s.strings.intern(text(raw::trailingBytes<raw::NvtxDomainRecord>(f.payload)));
            break;
        }
        case RecordType::NvtxCategory: {
            const auto r = raw::readPayload<raw::NvtxCategoryRecord>(f.payload);
            const std::string dom = r.domain ? s.str(domainName(r.domain)) : std::string("default");
            s.environment["nvtx.category." + dom + "." + std::to_string(r.category)]
                = std::string(text(raw::trailingBytes<raw::NvtxCategoryRecord>(f.payload)));
            break;
        }
        case RecordType::NvtxEvent: {
            const auto r = raw::readPayload<raw::NvtxEventRecord>(f.payload);
            NvtxEvent e;
            e.pid = pid;
            e.tid = r.tid;
            e.ts = r.ts;
            e.domainHandle = r.domain;
            e.domain = domainName(r.domain);
            e.rangeId = r.rangeId;
            e.category = static_cast<int32_t>(r.category);
            e.color = r.hasColor ? r.color : 0;
            e.kind = static_cast<raw::NvtxKind>(r.kind);
            e.name = s.strings.intern(text(raw::trailingBytes<raw::NvtxEventRecord>(f.payload)));
            e.order = b.nvtx.size();
            b.seen(e.ts);
            b.nvtx.push_back(e);
            break;
        }
        case RecordType::ThreadName: {
            const auto r = raw::readPayload<raw::ThreadNameRecord>(f.payload);
            const bool fromNvtx = r.source == static_cast<uint32_t>(raw::ThreadNameSource::Nvtx);
            auto& slot = b.threadNames[{pid, r.tid}];
            if (fromNvtx || !slot.second)
                slot = {s.str(str(r.name)), fromNvtx};
            break;
        }
        case RecordType::Dropped: {
            b.dropped += raw::readPayload<raw::DroppedRecord>(f.payload).count;
            break;
        }
        case RecordType::Message: {
            const auto r = raw::readPayload<raw::MessageRecord>(f.payload);
            const char* level = r.level == static_cast<uint32_t>(raw::MessageLevel::Error) ? "error"
                : r.level == static_cast<uint32_t>(raw::MessageLevel::Warning)             ? "warning"
                                                                                           : "info";
            b.messages.emplace_back(pid,
                "pid " + std::to_string(pid) + " " + level + ": "
                    + std::string(text(raw::trailingBytes<raw::MessageRecord>(f.payload))));
            break;
        }
        case RecordType::End: {
            const auto r = raw::readPayload<raw::EndRecord>(f.payload);
            b.pidsWithEnd.insert(pid);
            // The End record carries CUPTI's total; Dropped records are its per-buffer parts.
            b.dropped = std::max<uint64_t>(b.dropped, r.droppedRecords);
            break;
        }
        case RecordType::StreamEvent: {
            const EventOpRecord e = eventOpOf(raw::readPayload<raw::StreamEventRecord>(f.payload), pid);
            b.seen(e.end);
            s.eventOps.push_back(e);
            break;
        }
        case RecordType::PmMetric: // --gpu-metrics, --nvtx-timing: read by their own passes in finish()
        case RecordType::PmSample:
        case RecordType::PmGap:
        case RecordType::NvtxTiming:
            break;
        default:
            ++b.unknownFrames;
            break;
        }
    }
}

bool isIketFrame(raw::RecordType t)
{
    return t == raw::kIketLaunchType || t == raw::kIketLaunchPartType;
}

// One in-kernel trace frame of the file `st` reads; its label and names resolved with the
// file's strings.
void iketFrame(
    FileState& st, Builder& b, raw::RecordType type, std::string&& payload, std::vector<std::string>& warnings)
{
    const auto str = [&st](uint32_t id) -> StringId {
        const auto it = id ? st.strings.find(id) : st.strings.end();
        return it == st.strings.end() ? 0 : it->second;
    };
    if (type == raw::kIketLaunchType) { // record type of its own header (raw/iketformat.h)
        const auto r = raw::readPayload<raw::IketLaunchRecord>(payload);
        b.iket.add(st.path, st.header, payload, b.s.str(str(r.label)), b.s.str(str(r.names)), warnings);
    } else {
        const auto r = raw::readPayload<raw::IketLaunchPartRecord>(payload);
        b.iket.addPart(st.path, st.header, std::move(payload), b.s.str(str(r.launch.label)),
            b.s.str(str(r.launch.names)), warnings);
    }
}

void truncationWarning(const std::string& path, size_t bytes, std::vector<std::string>& warnings)
{
    if (bytes > 0)
        warnings.push_back(path + ": last record cut off (" + std::to_string(bytes)
            + " bytes); the process was probably killed while writing it");
}

// A whole file: its tables first, then its records.
void ingestFile(const raw::RawFile& file, Builder& b, std::vector<std::string>& warnings)
{
    FileState st = openFile(file.path(), file.header(), b, warnings);
    for (const auto& f : file.frames())
        if (isTableFrame(f.type))
            tableFrame(st, b, f);
    for (const auto& f : file.frames()) {
        if (isIketFrame(f.type))
            iketFrame(st, b, f.type, std::string(f.payload), warnings);
        else if (!isTableFrame(f.type))
            recordFrame(st, b, f);
    }
    truncationWarning(file.path(), file.truncatedBytes(), warnings);
}

// Pairs push/pop per (process, thread, domain) and start/end per (process, range id).
void pairNvtx(Builder& b, int64_t& unmatchedPops, int64_t& unclosed)
{
    auto& s = b.s;
    auto& events = b.nvtx;
    std::stable_sort(events.begin(), events.end(), [](const NvtxEvent& x, const NvtxEvent& y) {
        return std::tie(x.pid, x.ts, x.order) < std::tie(y.pid, y.ts, y.order);
    });

    using StackKey = std::tuple<int64_t, int64_t, uint64_t>;
    std::map<StackKey, std::vector<NvtxEvent>> stacks;
    std::map<std::pair<int64_t, uint64_t>, NvtxEvent> open; // start/end ranges
    std::vector<NvtxRangeRecord> startEnd;

    const auto makeRange = [](const NvtxEvent& begin, TimeNs end, int64_t endTid, NvtxStyle style, int32_t depth) {
        NvtxRangeRecord r;
        r.pid = begin.pid;
        r.tid = begin.tid;
        r.endTid = endTid;
        r.start = begin.ts;
        r.end = std::max(end, begin.ts);
        r.name = begin.name;
        r.domain = begin.domain;
        r.category = begin.category;
        r.color = begin.color;
        r.style = style;
        r.depth = depth;
        return r;
    };

    for (const auto& e : events) {
        switch (e.kind) {
        case raw::NvtxKind::Push:
            stacks[{e.pid, e.tid, e.domainHandle}].push_back(e);
            break;
        case raw::NvtxKind::Pop: {
            auto& st = stacks[{e.pid, e.tid, e.domainHandle}];
            if (st.empty()) {
                ++unmatchedPops;
                break;
            }
            const int32_t depth = static_cast<int32_t>(st.size()) - 1;
            s.nvtxRanges.push_back(makeRange(st.back(), e.ts, e.tid, NvtxStyle::PushPop, depth));
            st.pop_back();
            break;
        }
        case raw::NvtxKind::Start:
            open[{e.pid, e.rangeId}] = e;
            break;
        case raw::NvtxKind::End: {
            const auto it = open.find({e.pid, e.rangeId});
            if (it == open.end()) {
                ++unmatchedPops;
                break;
            }
            startEnd.push_back(makeRange(it->second, e.ts, e.tid, NvtxStyle::StartEnd, 0));
            open.erase(it);
            break;
        }
        case raw::NvtxKind::Mark: {
            NvtxMarkRecord m;
            m.pid = e.pid;
            m.tid = e.tid;
            m.ts = e.ts;
            m.name = e.name;
            m.domain = e.domain;
            m.category = e.category;
            m.color = e.color;
            s.nvtxMarks.push_back(m);
            break;
        }
        }
    }
    // Ranges never closed (the process died or never popped) end with the session.
    for (auto& [key, st] : stacks) {
        for (size_t i = 0; i < st.size(); ++i) {
            s.nvtxRanges.push_back(makeRange(st[i], b.lastTs, st[i].tid, NvtxStyle::PushPop, static_cast<int32_t>(i)));
            ++unclosed;
        }
    }
    for (auto& [key, e] : open) {
        startEnd.push_back(makeRange(e, b.lastTs, e.tid, NvtxStyle::StartEnd, 0));
        ++unclosed;
    }
    // Start/end ranges may overlap freely: give each the lowest free row of its thread and domain.
    std::sort(startEnd.begin(), startEnd.end(), [](const NvtxRangeRecord& x, const NvtxRangeRecord& y) {
        return std::tie(x.pid, x.tid, x.domain, x.start) < std::tie(y.pid, y.tid, y.domain, y.start);
    });
    std::map<std::tuple<int64_t, int64_t, StringId>, std::vector<TimeNs>> rowEnds;
    for (auto& r : startEnd) {
        auto& rows = rowEnds[{r.pid, r.tid, r.domain}];
        size_t row = 0;
        while (row < rows.size() && rows[row] > r.start)
            ++row;
        if (row == rows.size())
            rows.push_back(r.end);
        else
            rows[row] = r.end;
        r.depth = static_cast<int32_t>(row);
        s.nvtxRanges.push_back(r);
    }
}

template <typename T> bool startsBefore(const T& a, const T& b)
{
    return std::tie(a.start, a.pid, a.correlationId) < std::tie(b.start, b.pid, b.correlationId);
}

template <typename T> void sortByStart(std::vector<T>& v)
{
    const auto before = [](const T& a, const T& b) { return startsBefore(a, b); };
    // Records mostly arrive in order (one launching thread, one stream): checking costs one
    // pass, a stable sort of sorted input still merges log n times.
    if (!std::is_sorted(v.begin(), v.end(), before))
        std::stable_sort(v.begin(), v.end(), before);
    for (size_t i = 0; i < v.size(); ++i)
        v[i].id = static_cast<int64_t>(i) + 1;
}

} // namespace

void RawIngest::addFile(raw::RawFile file)
{
    m_files.push_back(std::move(file));
}

size_t RawIngest::addDirectory(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::vector<std::string> paths;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(raw::kFilePrefix) && name.ends_with(raw::kFileSuffix))
            paths.push_back(it->path().string());
    }
    if (ec)
        m_warnings.push_back(dir + ": cannot list raw record directory: " + ec.message());
    std::sort(paths.begin(), paths.end());
    size_t added = 0;
    for (const auto& p : paths) {
        try {
            addFile(raw::RawFile::load(p));
            ++added;
        } catch (const raw::RawError& e) {
            m_warnings.push_back(std::string(e.what()) + " (skipped)");
        }
    }
    return added;
}

// Rows of one big table handed out before the end (settle()), and how to check them at finish.
template <typename T> struct Settling {
    size_t seen = 0;     // arrivals (in the builder's vector) looked at
    std::vector<T> held; // looked at, not handed out: may still have earlier rows before them
    size_t handed = 0;
    uint64_t hash = 1469598103934665603ull;
    std::optional<T> last;

    static void mix(uint64_t& h, uint64_t v) { h = (h ^ v) * 1099511628211ull; }
    // What identifies a row and its place: its sort key and the fields conversion derived.
    static void mixRow(uint64_t& h, const T& r)
    {
        mix(h, static_cast<uint64_t>(r.start));
        mix(h, static_cast<uint64_t>(r.end));
        mix(h, static_cast<uint64_t>(r.pid));
        mix(h, r.correlationId);
        if constexpr (requires { r.streamId; })
            mix(h, r.streamId);
        if constexpr (requires { r.tid; })
            mix(h, static_cast<uint64_t>(r.tid));
        if constexpr (requires { r.shortName; })
            mix(h, r.shortName);
    }
    // Moves new arrivals in, hands out those starting before `horizon`, sorted, with their ids.
    // False when a new arrival sorts before a row already handed out.
    bool take(const std::vector<T>& arrivals, TimeNs horizon, std::vector<T>& out)
    {
        held.insert(held.end(), arrivals.begin() + static_cast<std::ptrdiff_t>(seen), arrivals.end());
        seen = arrivals.size();
        const auto before = [](const T& a, const T& b) { return startsBefore(a, b); };
        if (!std::is_sorted(held.begin(), held.end(), before))
            std::stable_sort(held.begin(), held.end(), before);
        if (!held.empty() && last && startsBefore(held.front(), *last))
            return false;
        const auto end = std::find_if(held.begin(), held.end(), [horizon](const T& r) { return r.start >= horizon; });
        for (auto it = held.begin(); it != end; ++it) {
            it->id = static_cast<int64_t>(++handed);
            mixRow(hash, *it);
            out.push_back(*it);
        }
        if (end != held.begin())
            last = *(end - 1);
        held.erase(held.begin(), end);
        return true;
    }
    // At finish, over the sorted rows: the rows handed out are exactly the first ones.
    bool holds(const std::vector<T>& sorted) const
    {
        if (handed > sorted.size())
            return false;
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < handed; ++i)
            mixRow(h, sorted[i]);
        return h == hash;
    }
};

struct RawIngest::Following {
    std::string dir;
    Builder b;
    Settling<KernelRecord> kernels;
    Settling<MemcpyRecord> memcpys;
    Settling<MemsetRecord> memsets;
    Settling<ApiCallRecord> apiCalls;
    bool settledAny = false;
    bool disordered = false; // a row arrived that sorts before one handed out
    struct File {
        std::unique_ptr<RawTail> tail;
        std::optional<FileState> state;
    };
    std::map<std::string, File> files; // by path: ws-<pid>.raw, so roughly parents first
    std::vector<std::string> warnings;
    // A file that broke the table-before-record order, or could not be read: finish() takes
    // the whole-file path for the recording instead.
    bool broken = false;
};

RawIngest::RawIngest() = default;
RawIngest::~RawIngest() = default;

void RawIngest::follow(const std::string& dir)
{
    m_following = std::make_unique<Following>();
    m_following->dir = dir;
    m_followStatus = "followed";
}

void RawIngest::poll()
{
    if (!m_following || m_following->broken)
        return;
    Following& fl = *m_following;
    namespace fs = std::filesystem;
    std::error_code ec;
    for (fs::directory_iterator it(fl.dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(raw::kFilePrefix) && name.ends_with(raw::kFileSuffix)
            && !fl.files.count(it->path().string())) {
            const std::string path = it->path().string();
            fl.files[path].tail = std::make_unique<RawTail>(path);
        }
    }
    for (auto& [path, f] : fl.files) {
        try {
            const auto& frames = f.tail->read();
            if (!f.state && f.tail->hasHeader()) {
                f.state = openFile(path, f.tail->header(), fl.b, fl.warnings);
                f.state->following = true;
            }
            if (!f.state)
                continue;
            FileState& st = *f.state;
            for (const auto& frame : frames) {
                if (isTableFrame(frame.type)) {
                    tableFrame(st, fl.b, frame);
                } else if (isIketFrame(frame.type)) {
                    st.iketFrames.emplace_back(frame.type, std::string(frame.payload));
                } else if (frame.type == raw::RecordType::PmMetric || frame.type == raw::RecordType::PmSample
                    || frame.type == raw::RecordType::NvtxTiming) {
                    st.sideFrames = true;
                } else {
                    recordFrame(st, fl.b, frame);
                }
            }
            if (st.stale) {
                fl.broken = true;
                m_followStatus = "whole files after the exit: " + path + " has a table entry after records that use it";
                return;
            }
        } catch (const std::exception& e) {
            // A file the whole-file path reports (RawError), or anything else: that path, which
            // reads the complete files after the exit, gives the session either way.
            fl.broken = true;
            m_followStatus = std::string("whole files after the exit: ") + e.what();
            return;
        }
    }
}

RawIngest::Settled RawIngest::settle(TimeNs horizon)
{
    Settled out;
    if (!m_following || m_following->broken || m_following->disordered)
        return out;
    Following& fl = *m_following;
    // Kernels need their final names before they are handed out.
    for (size_t i = fl.kernels.seen; i < fl.b.s.kernels.size(); ++i)
        fl.b.nameKernel(fl.b.s.kernels[i]);
    const bool ordered = fl.kernels.take(fl.b.s.kernels, horizon, out.kernels)
        && fl.memcpys.take(fl.b.s.memcpys, horizon, out.memcpys)
        && fl.memsets.take(fl.b.s.memsets, horizon, out.memsets)
        && fl.apiCalls.take(fl.b.s.apiCalls, horizon, out.apiCalls);
    if (!ordered) {
        fl.disordered = true;
        m_followStatus = "followed; rows written after the exit: a record arrived behind rows already handed out";
        return {};
    }
    fl.settledAny = fl.settledAny || !out.kernels.empty() || !out.memcpys.empty() || !out.memsets.empty()
        || !out.apiCalls.empty();
    return out;
}

void RawIngest::addLaunchedProcess(const LaunchedProcess& p)
{
    m_launched[p.pid] = p;
}

SessionData RawIngest::finish()
{
    NvtxTimingIngest nvtxTimings;
    Builder b;
    std::unique_ptr<Following> settling; // rows settle() handed out, checked once sorted
    m_settledRowsHold = !m_following || !m_following->settledAny;
    if (m_following) {
        poll(); // what the processes wrote last
        if (m_following->broken) {
            // Fall back to whole files: they are complete now.
            const std::string dir = m_following->dir;
            m_following.reset();
            addDirectory(dir);
        } else {
            b = std::move(m_following->b);
            settling = std::move(m_following);
            for (auto& [path, f] : settling->files) {
                if (!f.state)
                    continue; // not even a header: RawFile::load would have refused it too
                b.filePids.push_back(f.state->pid);
                b.rawBytes += static_cast<int64_t>(f.tail->bytesRead());
                b.truncatedFiles += f.tail->pendingBytes() > 0 ? 1 : 0;
                truncationWarning(path, f.tail->pendingBytes(), m_warnings);
            }
            m_warnings.insert(m_warnings.end(), settling->warnings.begin(), settling->warnings.end());
            // Files with PM samples, NVTX timings or in-kernel traces. The traces' frames were
            // kept as they arrived; the other passes read the whole file.
            std::vector<std::pair<FileState*, std::string>> side;
            for (auto& [path, f] : settling->files)
                if (f.state && (f.state->sideFrames || !f.state->iketFrames.empty()))
                    side.emplace_back(&*f.state, path);
            std::stable_sort(
                side.begin(), side.end(), [](const auto& x, const auto& y) { return x.first->pid < y.first->pid; });
            for (auto& [st, path] : side) {
                try {
                    for (auto& [type, payload] : st->iketFrames)
                        iketFrame(*st, b, type, std::move(payload), m_warnings);
                    st->iketFrames.clear();
                    if (!st->sideFrames)
                        continue;
                    const raw::RawFile file = raw::RawFile::load(path);
                    appendGpuMetrics(file, b.s, m_warnings);
                    nvtxTimings.addFile(file);
                } catch (const raw::RawError& e) {
                    m_warnings.push_back(
                        std::string(e.what()) + " (its GPU metrics, NVTX timings and in-kernel traces skipped)");
                }
            }
            m_following.reset();
        }
    }
    auto& s = b.s;
    // Parents before children, so the root process's values win for shared environment keys.
    std::stable_sort(m_files.begin(), m_files.end(),
        [](const raw::RawFile& x, const raw::RawFile& y) { return x.header().pid < y.header().pid; });
    for (const auto& f : m_files) {
        ingestFile(f, b, m_warnings);
        appendGpuMetrics(f, s, m_warnings);
        nvtxTimings.addFile(f);
        b.filePids.push_back(f.header().pid);
        b.truncatedFiles += f.truncatedBytes() > 0 ? 1 : 0;
        b.rawBytes += static_cast<int64_t>(f.sizeBytes());
    }
    // Processes, environment and messages in process order, however the files arrived.
    std::stable_sort(s.processes.begin(), s.processes.end(),
        [](const ProcessInfo& x, const ProcessInfo& y) { return x.pid < y.pid; });
    for (size_t i = 0; i < s.processes.size(); ++i)
        b.processIndex[s.processes[i].pid] = i;
    std::stable_sort(b.environment.begin(), b.environment.end(),
        [](const Builder::Environment& x, const Builder::Environment& y) { return x.pid < y.pid; });
    for (const auto& e : b.environment) {
        auto [it, inserted] = s.environment.try_emplace(e.key, e.value);
        if (!inserted && it->second != e.value)
            s.environment[e.key + " [pid " + std::to_string(e.pid) + "]"] = e.value;
    }
    std::stable_sort(
        b.messages.begin(), b.messages.end(), [](const auto& x, const auto& y) { return x.first < y.first; });

    // Processes the launcher saw exit but that never wrote a raw file (no CUDA) still belong
    // in the session, with their exit status.
    for (const auto& [pid, launched] : m_launched) {
        if (b.processIndex.count(pid) == 0) {
            b.processIndex[pid] = s.processes.size();
            ProcessInfo p;
            p.pid = pid;
            p.parentPid = launched.parentPid;
            p.name = launched.name.empty() ? "pid " + std::to_string(pid) : launched.name;
            p.commandLine = launched.commandLine;
            p.anchorRealtimeNs = launched.anchorRealtimeNs;
            p.anchorMonotonicNs = launched.anchorMonotonicNs;
            s.processes.push_back(p);
        }
        auto& p = s.processes[b.processIndex[pid]];
        p.exitCode = launched.exitCode;
        p.exitSignal = launched.exitSignal;
    }

    // Kernel names: demangled and short forms.
    for (auto& k : s.kernels)
        b.nameKernel(k);

    nvtxTimings.appendTo(s, m_warnings);

    sortByStart(s.kernels);
    sortByStart(s.memcpys);
    sortByStart(s.memsets);
    sortByStart(s.apiCalls);
    sortByStart(s.syncs);
    if (settling && settling->settledAny)
        m_settledRowsHold = !settling->disordered && settling->kernels.holds(s.kernels)
            && settling->memcpys.holds(s.memcpys) && settling->memsets.holds(s.memsets)
            && settling->apiCalls.holds(s.apiCalls);
    sortByStart(s.eventOps);
    anchorEventOps(s); // each record/wait's GPU op, so readers need not scan the GPU tables
    std::stable_sort(s.overheads.begin(), s.overheads.end(),
        [](const OverheadRecord& x, const OverheadRecord& y) { return x.start < y.start; });
    for (size_t i = 0; i < s.overheads.size(); ++i)
        s.overheads[i].id = static_cast<int64_t>(i) + 1;

    int64_t unmatchedPops = 0;
    int64_t unclosed = 0;
    pairNvtx(b, unmatchedPops, unclosed);
    std::stable_sort(s.nvtxRanges.begin(), s.nvtxRanges.end(), [](const NvtxRangeRecord& x, const NvtxRangeRecord& y) {
        return std::tie(x.start, x.pid, x.tid, x.depth) < std::tie(y.start, y.pid, y.tid, y.depth);
    });
    for (size_t i = 0; i < s.nvtxRanges.size(); ++i)
        s.nvtxRanges[i].id = static_cast<int64_t>(i) + 1;
    for (size_t i = 0; i < s.nvtxMarks.size(); ++i)
        s.nvtxMarks[i].id = static_cast<int64_t>(i) + 1;

    // Join GPU work to the API calls that issued it: syncs take their thread from it, and the
    // counts of unjoined work go into meta as a health figure of the recording.
    const MemoryRecordSource source(s);
    const LaunchIndex join(source);
    int64_t kernelsJoined = 0;
    for (const auto& k : s.kernels)
        kernelsJoined += join.find(k.pid, k.correlationId) ? 1 : 0;
    for (auto& y : s.syncs) {
        if (const auto* a = join.find(y.pid, y.correlationId))
            y.tid = a->tid;
    }

    // Threads seen anywhere, named where the recorder or NVTX named them.
    std::set<std::pair<int64_t, int64_t>> threads;
    for (const auto& a : s.apiCalls)
        threads.insert({a.pid, a.tid});
    for (const auto& r : s.nvtxRanges) {
        threads.insert({r.pid, r.tid});
        threads.insert({r.pid, r.endTid});
    }
    for (const auto& m : s.nvtxMarks)
        threads.insert({m.pid, m.tid});
    for (const auto& y : s.syncs)
        if (y.tid != 0)
            threads.insert({y.pid, y.tid});
    for (const auto& [key, name] : b.threadNames)
        threads.insert(key);
    for (const auto& [pid, tid] : threads) {
        ThreadInfo t;
        t.pid = pid;
        t.tid = tid;
        if (const auto it = b.threadNames.find({pid, tid}); it != b.threadNames.end())
            t.name = it->second.first;
        else if (pid == tid && b.processIndex.count(pid))
            t.name = s.processes[b.processIndex[pid]].name;
        s.threads.push_back(t);
    }

    // Streams: every (process, device, stream) that ran GPU work.
    std::map<std::tuple<int64_t, uint32_t, uint32_t>, uint32_t> streams;
    for (const auto& k : s.kernels)
        streams.try_emplace({k.pid, k.deviceId, k.streamId}, k.contextId);
    for (const auto& m : s.memcpys)
        streams.try_emplace({m.pid, m.deviceId, m.streamId}, m.contextId);
    for (const auto& m : s.memsets)
        streams.try_emplace({m.pid, m.deviceId, m.streamId}, m.contextId);
    for (const auto& [key, ctx] : streams) {
        StreamInfo st;
        st.pid = std::get<0>(key);
        st.deviceId = std::get<1>(key);
        st.streamId = std::get<2>(key);
        st.contextId = ctx;
        st.label = "Stream " + std::to_string(st.streamId);
        s.streams.push_back(st);
    }

    for (auto& [key, d] : b.devices) {
        if (d.name.empty() && d.smCount == 0)
            continue; // clocks without properties: nothing to show
        fillDevicePeaks(d);
        s.devices.push_back(d);
    }

    std::string withoutEnd;
    for (const auto& p : s.processes) {
        if (b.pidsWithEnd.count(p.pid) == 0 && b.processIndex.count(p.pid)
            && std::find(b.filePids.begin(), b.filePids.end(), p.pid) != b.filePids.end())
            withoutEnd += (withoutEnd.empty() ? "" : ",") + std::to_string(p.pid);
    }
    if (!withoutEnd.empty())
        m_warnings.push_back("no end record from pid " + withoutEnd
            + ": the process died before its exit handler ran; records after its last flush are lost");

    // In-kernel traces find their kernels among the sorted kernels and API calls.
    b.iket.finish(s, m_warnings);

    s.meta["raw_files"] = std::to_string(b.filePids.size());
    s.meta["raw_bytes"] = std::to_string(b.rawBytes);
    s.meta["raw_files_truncated"] = std::to_string(b.truncatedFiles);
    s.meta["processes_without_end_record"] = withoutEnd;
    s.meta["dropped_records"] = std::to_string(b.dropped);
    s.meta["incomplete_gpu_records"] = std::to_string(b.incompleteGpuRecords);
    s.meta["unknown_raw_records"] = std::to_string(b.unknownFrames);
    s.meta["nvtx_unmatched_ends"] = std::to_string(unmatchedPops);
    s.meta["nvtx_unclosed_ranges"] = std::to_string(unclosed);
    s.meta["kernels_joined_to_api"] = std::to_string(kernelsJoined);
    if (!b.streamMap.empty())
        s.meta["stream_id_map"] = b.streamMap;
    if (!b.messages.empty()) {
        std::string all;
        for (const auto& [pid, m] : b.messages) {
            all += (all.empty() ? "" : "\n") + m;
            m_warnings.push_back(m);
        }
        s.meta["recorder_messages"] = all;
    }
    // "13000" -> "13.0", the form other sessions (importers, synth) use for cuda_version.
    if (const auto it = s.environment.find("cuda_runtime_version"); it != s.environment.end()) {
        const std::string& v = it->second;
        if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            const long n = std::stol(v);
            s.environment.try_emplace("cuda_version", std::to_string(n / 1000) + "." + std::to_string((n % 1000) / 10));
        }
    }
    if (b.dropped > 0)
        m_warnings.push_back("CUPTI dropped " + std::to_string(b.dropped) + " activity records");
    return std::move(b.s);
}

} // namespace ws

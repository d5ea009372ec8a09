// SPDX-License-Identifier: MIT
#include "core/ingest/rawingest.h"

#include "core/iket/iketingest.h"
#include "core/ingest/devicepeaks.h"
#include "core/ingest/eventopingest.h"
#include "core/ingest/gpumetricsingest.h"
#include "core/ingest/nvtxtimingingest.h"
#include "core/model/commranks.h"
#include "core/model/launchindex.h"
#include "core/model/streamdependencies.h"
#include "core/util/demangle.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

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
    std::vector<std::string> messages;
    uint64_t dropped = 0;
    int64_t incompleteGpuRecords = 0;
    int64_t unknownFrames = 0;
    TimeNs lastTs = 0;
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

void ingestFile(const raw::RawFile& file, Builder& b, std::vector<std::string>& warnings)
{
    using raw::RecordType;
    const int64_t pid = file.header().pid;
    auto& s = b.s;

    // Pass 1: this file's string ids -> session string ids; the clock CUPTI used; CUPTI thread
    // ids -> OS thread ids.
    std::unordered_map<uint32_t, StringId> strings;
    int64_t cuptiClockShift = 0; // subtracted from CUPTI times to reach CLOCK_MONOTONIC
    std::unordered_map<uint64_t, int64_t> threadMap;
    for (const auto& f : file.frames()) {
        if (f.type == RecordType::String) {
            const auto def = raw::readPayload<raw::StringDef>(f.payload);
            strings[def.id] = s.strings.intern(text(raw::trailingBytes<raw::StringDef>(f.payload)));
        } else if (f.type == RecordType::ClockDomain) {
            const auto c = raw::readPayload<raw::ClockDomainRecord>(f.payload);
            cuptiClockShift = c.realtime ? c.realtimeMinusMonotonicNs : 0;
        } else if (f.type == RecordType::ThreadMap) {
            const auto m = raw::readPayload<raw::ThreadMapRecord>(f.payload);
            threadMap[m.cuptiThreadId] = m.tid;
        }
    }
    const auto gpuTime = [cuptiClockShift](int64_t t) { return t > 0 ? t - cuptiClockShift : t; };
    const auto osTid = [&threadMap](int64_t cuptiTid) {
        const auto it = threadMap.find(static_cast<uint64_t>(cuptiTid));
        return it == threadMap.end() ? cuptiTid : it->second;
    };
    const auto str = [&](uint32_t id) -> StringId {
        if (id == 0)
            return 0;
        const auto it = strings.find(id);
        return it == strings.end() ? 0 : it->second;
    };

    auto [procIt, newProcess] = b.processIndex.try_emplace(pid, s.processes.size());
    if (newProcess) {
        ProcessInfo p;
        p.pid = pid;
        p.parentPid = file.header().parentPid;
        p.anchorRealtimeNs = file.header().anchorRealtimeNs;
        p.anchorMonotonicNs = file.header().anchorMonotonicNs;
        p.name = "pid " + std::to_string(pid);
        s.processes.push_back(p);
    } else {
        warnings.push_back(file.path() + ": a second raw file for pid " + std::to_string(pid)
            + " (pid reused?); its records are merged into the first");
    }
    const size_t procIdx = procIt->second;

    std::unordered_map<uint64_t, StringId> domains; // NVTX domain handle -> name
    const auto domainName = [&](uint64_t handle) -> StringId {
        if (handle == 0)
            return 0;
        const auto it = domains.find(handle);
        return it == domains.end() ? s.strings.intern("domain " + std::to_string(handle)) : it->second;
    };

    for (const auto& f : file.frames()) {
        if (f.type == raw::kIketLaunchType) { // record type of its own header (raw/iketformat.h)
            const auto r = raw::readPayload<raw::IketLaunchRecord>(f.payload);
            b.iket.add(file, f.payload, s.str(str(r.label)), s.str(str(r.names)), warnings);
            continue;
        }
        if (f.type == raw::kIketLaunchPartType) {
            const auto r = raw::readPayload<raw::IketLaunchPartRecord>(f.payload);
            b.iket.addPart(file, f.payload, s.str(str(r.launch.label)), s.str(str(r.launch.names)), warnings);
            continue;
        }
        switch (f.type) {
        case RecordType::String:
        case RecordType::ClockDomain:
        case RecordType::ThreadMap:
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
            auto [it, inserted] = s.environment.try_emplace(key, value);
            if (!inserted && it->second != value)
                s.environment[key + " [pid " + std::to_string(pid) + "]"] = value;
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
            k.streamId = r.streamId;
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
            m.streamId = r.streamId;
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
            m.streamId = r.streamId;
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
            y.streamId = r.streamId;
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
            b.messages.push_back("pid " + std::to_string(pid) + " " + level + ": "
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
        case RecordType::NvtxTiming:
            break;
        default:
            ++b.unknownFrames;
            break;
        }
    }
    if (file.truncatedBytes() > 0)
        warnings.push_back(file.path() + ": last record cut off (" + std::to_string(file.truncatedBytes())
            + " bytes); the process was probably killed while writing it");
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

template <typename T> void sortByStart(std::vector<T>& v)
{
    std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) {
        return std::tie(a.start, a.pid, a.correlationId) < std::tie(b.start, b.pid, b.correlationId);
    });
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

void RawIngest::addLaunchedProcess(const LaunchedProcess& p)
{
    m_launched[p.pid] = p;
}

SessionData RawIngest::finish()
{
    Builder b;
    auto& s = b.s;
    // Parents before children, so the root process's values win for shared environment keys.
    std::stable_sort(m_files.begin(), m_files.end(),
        [](const raw::RawFile& x, const raw::RawFile& y) { return x.header().pid < y.header().pid; });
    size_t truncated = 0;
    int64_t rawBytes = 0;
    NvtxTimingIngest nvtxTimings;
    for (const auto& f : m_files) {
        ingestFile(f, b, m_warnings);
        appendGpuMetrics(f, s, m_warnings);
        nvtxTimings.addFile(f);
        truncated += f.truncatedBytes() > 0 ? 1 : 0;
        rawBytes += static_cast<int64_t>(f.sizeBytes());
    }

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

    // Kernel names: demangled and short forms, computed once per distinct name.
    std::unordered_map<StringId, std::pair<StringId, StringId>> names;
    for (auto& k : s.kernels) {
        auto it = names.find(k.mangledName);
        if (it == names.end()) {
            const std::string demangled = demangle(s.str(k.mangledName));
            const StringId d = s.strings.intern(demangled);
            const StringId sh = s.strings.intern(shortName(demangled));
            it = names.emplace(k.mangledName, std::make_pair(d, sh)).first;
        }
        k.demangledName = it->second.first;
        k.shortName = it->second.second;
    }

    nvtxTimings.appendTo(s, m_warnings);

    sortByStart(s.kernels);
    sortByStart(s.memcpys);
    sortByStart(s.memsets);
    sortByStart(s.apiCalls);
    sortByStart(s.syncs);
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
            && std::any_of(
                m_files.begin(), m_files.end(), [&](const raw::RawFile& f) { return f.header().pid == p.pid; }))
            withoutEnd += (withoutEnd.empty() ? "" : ",") + std::to_string(p.pid);
    }
    if (!withoutEnd.empty())
        m_warnings.push_back("no end record from pid " + withoutEnd
            + ": the process died before its exit handler ran; records after its last flush are lost");

    // In-kernel traces find their kernels among the sorted kernels and API calls.
    b.iket.finish(s, m_warnings);

    s.meta["raw_files"] = std::to_string(m_files.size());
    s.meta["raw_bytes"] = std::to_string(rawBytes);
    s.meta["raw_files_truncated"] = std::to_string(truncated);
    s.meta["processes_without_end_record"] = withoutEnd;
    s.meta["dropped_records"] = std::to_string(b.dropped);
    s.meta["incomplete_gpu_records"] = std::to_string(b.incompleteGpuRecords);
    s.meta["unknown_raw_records"] = std::to_string(b.unknownFrames);
    s.meta["nvtx_unmatched_ends"] = std::to_string(unmatchedPops);
    s.meta["nvtx_unclosed_ranges"] = std::to_string(unclosed);
    s.meta["kernels_joined_to_api"] = std::to_string(kernelsJoined);
    if (!b.messages.empty()) {
        std::string all;
        for (const auto& m : b.messages)
            all += (all.empty() ? "" : "\n") + m;
        s.meta["recorder_messages"] = all;
        m_warnings.insert(m_warnings.end(), b.messages.begin(), b.messages.end());
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

// SPDX-License-Identifier: MIT
#include "core/import/chrometracebuilder.h"

#include "core/import/numbertext.h"
#include "core/import/nvtxrangesink.h"
#include "core/util/demangle.h"

#include <algorithm>
#include <limits>
#include <new>
#include <set>

namespace ws {

namespace {

// String pids / tids ("Spans", "PyTorch Profiler") get ids far above any real pid or tid.
constexpr int64_t kNamedIdBase = int64_t(1) << 32;
// Threads that carry Kineto's gpu_user_annotation ranges of one (device, stream).
constexpr int64_t kGpuAnnotationTidBase = int64_t(1) << 40;

CopyKind copyKindOf(std::string_view name)
{
    // "Memcpy HtoD (Pinned -> Device)"
    static constexpr std::pair<std::string_view, CopyKind> kKinds[] = {
        {"HtoD", CopyKind::HtoD},
        {"DtoH", CopyKind::DtoH},
        {"HtoA", CopyKind::HtoA},
        {"AtoH", CopyKind::AtoH},
        {"AtoA", CopyKind::AtoA},
        {"AtoD", CopyKind::AtoD},
        {"DtoA", CopyKind::DtoA},
        {"DtoD", CopyKind::DtoD},
        {"HtoH", CopyKind::HtoH},
        {"PtoP", CopyKind::PtoP},
    };
    const size_t space = name.find(' ');
    if (space == std::string_view::npos)
        return CopyKind::Unknown;
    std::string_view token = name.substr(space + 1);
    token = token.substr(0, token.find(' '));
    for (const auto& [text, kind] : kKinds) {
        if (token == text)
            return kind;
    }
    return CopyKind::Unknown;
}

// CUpti_ActivityMemoryKind from Kineto's spelling (cupti_strings.cpp memoryKindString).
int32_t memoryKindOf(std::string_view text)
{
    static constexpr std::pair<std::string_view, int32_t> kKinds[] = {
        {"Pageable", 1},
        {"Pinned", 2},
        {"Device", 3},
        {"Array", 4},
        {"Managed", 5},
        {"Device Static", 6},
        {"Managed Static", 7},
    };
    for (const auto& [name, kind] : kKinds) {
        if (text == name)
            return kind;
    }
    return 0;
}

void memoryKindsOf(std::string_view name, int32_t& src, int32_t& dst)
{
    // "... (Pinned -> Device)"
    const size_t open = name.rfind('(');
    const size_t arrow = name.find(" -> ", open == std::string_view::npos ? 0 : open);
    const size_t close = name.rfind(')');
    if (open == std::string_view::npos || arrow == std::string_view::npos || close == std::string_view::npos
        || close < arrow)
        return;
    src = memoryKindOf(name.substr(open + 1, arrow - open - 1));
    dst = memoryKindOf(name.substr(arrow + 4, close - arrow - 4));
}

SyncKind syncKindOf(std::string_view text)
{
    if (text.find("Stream Wait") != std::string_view::npos)
        return SyncKind::StreamWaitEvent;
    if (text.find("Event Sync") != std::string_view::npos)
        return SyncKind::EventSynchronize;
    if (text.find("Stream Sync") != std::string_view::npos)
        return SyncKind::StreamSynchronize;
    if (text.find("Context Sync") != std::string_view::npos)
        return SyncKind::ContextSynchronize;
    return SyncKind::Unknown;
}

uint32_t u32(int64_t v, uint32_t fallback = 0)
{
    return v < 0 ? fallback : static_cast<uint32_t>(v);
}

int32_t i32(int64_t v)
{
    if (v < 0)
        return 0;
    return v > std::numeric_limits<int32_t>::max() ? std::numeric_limits<int32_t>::max() : static_cast<int32_t>(v);
}

// t + d without signed overflow on hostile input.
TimeNs endOf(TimeNs t, TimeNs d)
{
    if (d < 0)
        d = 0;
    if (t > std::numeric_limits<TimeNs>::max() - d)
        return std::numeric_limits<TimeNs>::max();
    return t + d;
}

} // namespace

ChromeTraceBuilder::ChromeTraceBuilder(const ImportOptions& options)
    : m_options(options)
{
}

StringId ChromeTraceBuilder::intern(std::string_view s)
{
    if (s.empty())
        return 0;
    if (auto it = m_strings.find(s); it != m_strings.end())
        return it->second;
    const StringId id = m_data.strings.intern(s);
    m_strings.emplace(std::string(s), id);
    return id;
}

StringId ChromeTraceBuilder::shortNameOf(StringId demangled)
{
    if (auto it = m_shortNames.find(demangled); it != m_shortNames.end())
        return it->second;
    const StringId id = intern(shortName(m_data.str(demangled)));
    m_shortNames.emplace(demangled, id);
    return id;
}

ChromeTraceBuilder::Category ChromeTraceBuilder::categoryOf(std::string_view cat)
{
    if (m_haveLastCat && cat == m_lastCat)
        return m_lastCategory;
    static constexpr std::pair<std::string_view, Category> kCategories[] = {
        {"kernel", Category::Kernel},
        {"Kernel", Category::Kernel},
        {"gpu_memcpy", Category::Memcpy},
        {"gpu_memset", Category::Memset},
        {"cuda_runtime", Category::Runtime},
        {"cuda_driver", Category::Driver},
        {"cuda_sync", Category::Sync},
        {"gpu_user_annotation", Category::GpuAnnotation},
        {"user_annotation", Category::UserAnnotation},
        {"cpu_op", Category::CpuOp},
        {"python_function", Category::CpuOp},
        {"overhead", Category::Overhead},
    };
    Category category = Category::Other;
    for (const auto& [name, c] : kCategories) {
        if (cat == name) {
            category = c;
            break;
        }
    }
    m_lastCat.assign(cat);
    m_lastCategory = category;
    m_lastCatId = intern(cat);
    m_haveLastCat = true;
    return category;
}

int64_t ChromeTraceBuilder::idOf(const TraceId& id, bool isPid)
{
    if (!id.isString)
        return id.number;
    auto it = m_namedIds.find(id.text);
    if (it == m_namedIds.end()) {
        it = m_namedIds.emplace(id.text, kNamedIdBase + static_cast<int64_t>(m_namedIds.size())).first;
        if (isPid)
            m_processNames.emplace(it->second, id.text);
    }
    return it->second;
}

void ChromeTraceBuilder::noteCpuPid(int64_t pid)
{
    if (m_haveLastCpuPid && pid == m_lastCpuPid)
        return;
    if (m_cpuPids.emplace(pid, true).second)
        m_cpuPidsInOrder.push_back(pid);
    m_lastCpuPid = pid;
    m_haveLastCpuPid = true;
}

void ChromeTraceBuilder::noteTime(TimeNs t)
{
    if (!m_haveTime || t > m_lastTime) {
        m_lastTime = t;
        m_haveTime = true;
    }
}

void ChromeTraceBuilder::addRange(
    int64_t pid, int64_t tid, TimeNs start, TimeNs end, StringId name, StringId domain, NvtxStyle style, int64_t endTid)
{
    NvtxRangeRecord r;
    r.pid = pid;
    r.tid = tid;
    r.endTid = style == NvtxStyle::StartEnd ? endTid : tid;
    r.start = start;
    r.end = std::max(start, end);
    r.name = name;
    r.domain = domain;
    r.style = style;
    m_data.nvtxRanges.push_back(r);
    if (m_order) {
        m_order->add(r);
        if (m_order->failed())
            stopStreaming(nullptr);
        else if (m_order->handOutDue())
            handOutRanges();
    }
}

void ChromeTraceBuilder::streamRangesTo(NvtxRangeSink& sink, NvtxRangeOrder::Limits limits)
{
    m_sink = &sink;
    m_order = std::make_unique<NvtxRangeOrder>(limits);
}

void ChromeTraceBuilder::handOutRanges()
{
    std::vector<NvtxRangeRecord> ranges = m_order->takeFinal();
    if (!ranges.empty())
        m_sink->take(std::move(ranges));
}

void ChromeTraceBuilder::stopStreaming(const char* why)
{
    if (!m_order)
        return;
    if (why)
        m_order->fail(why);
    if (m_order->handedOut() > 0)
        m_sink->discard();
    m_order.reset();
}

void ChromeTraceBuilder::add(const ChromeTraceEvent& e)
{
    ++m_events;
    const int64_t pid = e.pid.present ? idOf(e.pid, true) : 0;
    // Perfetto: a missing tid means the pid.
    const int64_t tid = e.tid.present ? idOf(e.tid, false) : pid;
    if (e.tid.isString && e.tid.present)
        m_threadNames.try_emplace({pid, tid}, e.tid.text);

    if (e.ph == 'M') {
        if (e.name == "process_name" && !e.args.name.empty())
            m_processNames[pid] = e.args.name;
        else if (e.name == "thread_name" && !e.args.name.empty())
            m_threadNames[{pid, tid}] = e.args.name;
        else if (e.name == "process_labels" && !e.args.labels.empty())
            m_processLabels[pid] = e.args.labels;
        return;
    }
    if (!e.hasTs) {
        ++m_skipped["eventsWithoutTs"];
        return;
    }
    const auto cpuSide = [&] { noteCpuPid(pid); };
    switch (e.ph) {
    case 'X': {
        noteTime(endOf(e.ts, e.dur));
        const Category category = categoryOf(e.cat);
        addComplete(e, category, pid, tid);
        return;
    }
    case 'B':
        cpuSide();
        noteTime(e.ts);
        m_openBegins[{pid, tid}].push_back({e.ts, intern(e.name), intern(e.cat), tid});
        return;
    case 'E': {
        noteTime(e.ts);
        auto it = m_openBegins.find({pid, tid});
        if (it == m_openBegins.end() || it->second.empty()) {
            ++m_skipped["endsWithoutBegin"];
            return;
        }
        const OpenRange open = it->second.back();
        it->second.pop_back();
        addRange(pid, tid, open.start, e.ts, open.name, open.domain);
        return;
    }
    case 'b':
        cpuSide();
        noteTime(e.ts);
        m_openAsync[{pid, e.cat, e.id}].push_back({e.ts, intern(e.name), intern(e.cat), tid});
        return;
    case 'e': {
        noteTime(e.ts);
        auto it = m_openAsync.find({pid, e.cat, e.id});
        if (it == m_openAsync.end() || it->second.empty()) {
            ++m_skipped["asyncEndsWithoutBegin"];
            return;
        }
        const OpenRange open = it->second.back();
        it->second.pop_back();
        addRange(pid, open.tid, open.start, e.ts, open.name, open.domain, NvtxStyle::StartEnd, tid);
        return;
    }
    case 'i':
    case 'I':
    case 'R':
    case 'n': {
        cpuSide();
        noteTime(e.ts);
        NvtxMarkRecord m;
        m.pid = pid;
        m.tid = tid;
        m.ts = e.ts;
        m.name = intern(e.name);
        m.domain = intern(e.cat);
        m_data.nvtxMarks.push_back(m);
        return;
    }
    case 'C':
        cpuSide();
        noteTime(e.ts);
        addCounter(e, pid);
        return;
    case 's':
    case 't':
    case 'f':
        // Flows (Kineto's ac2g launch -> kernel arrows): the correlation ids already link both ends.
        ++m_skipped["flowEvents"];
        return;
    default:
        ++m_skipped[std::string("phase.") + (e.ph > ' ' && e.ph < 127 ? e.ph : '?')];
        return;
    }
}

void ChromeTraceBuilder::addComplete(const ChromeTraceEvent& e, Category category, int64_t pid, int64_t tid)
{
    const auto& a = e.args;
    const TimeNs end = endOf(e.ts, e.dur);
    const auto cpuSide = [&] { noteCpuPid(pid); };
    switch (category) {
    case Category::Kernel: {
        m_gpuPids.emplace(pid, true);
        KernelRecord k;
        k.pid = pid; // the device for now; finish() puts the host process here
        k.deviceId = u32(a.device >= 0 ? a.device : pid);
        k.contextId = u32(a.context);
        k.streamId = u32(a.stream >= 0 ? a.stream : tid);
        k.correlationId = u32(a.correlation);
        k.start = e.ts;
        k.end = end;
        k.demangledName = intern(e.name);
        k.shortName = shortNameOf(k.demangledName);
        if (a.hasGrid) {
            k.gridX = a.grid[0];
            k.gridY = a.grid[1];
            k.gridZ = a.grid[2];
        }
        if (a.hasBlock) {
            k.blockX = a.block[0];
            k.blockY = a.block[1];
            k.blockZ = a.block[2];
        }
        k.registersPerThread = i32(a.registers);
        // Kineto reports static + dynamic shared memory as one figure.
        k.staticSmemBytes = i32(a.sharedMemory);
        m_data.kernels.push_back(k);
        return;
    }
    case Category::Memcpy: {
        m_gpuPids.emplace(pid, true);
        MemcpyRecord m;
        m.pid = pid;
        m.deviceId = u32(a.device >= 0 ? a.device : pid);
        m.contextId = u32(a.context);
        m.streamId = u32(a.stream >= 0 ? a.stream : tid);
        m.correlationId = u32(a.correlation);
        m.start = e.ts;
        m.end = end;
        m.bytes = std::max<int64_t>(a.bytes, 0);
        m.copyKind = copyKindOf(e.name);
        memoryKindsOf(e.name, m.srcKind, m.dstKind);
        m_data.memcpys.push_back(m);
        return;
    }
    case Category::Memset: {
        m_gpuPids.emplace(pid, true);
        MemsetRecord m;
        m.pid = pid;
        m.deviceId = u32(a.device >= 0 ? a.device : pid);
        m.contextId = u32(a.context);
        m.streamId = u32(a.stream >= 0 ? a.stream : tid);
        m.correlationId = u32(a.correlation);
        m.start = e.ts;
        m.end = end;
        m.bytes = std::max<int64_t>(a.bytes, 0);
        m_data.memsets.push_back(m);
        return;
    }
    case Category::Runtime:
    case Category::Driver: {
        cpuSide();
        ApiCallRecord r;
        r.pid = pid;
        r.tid = tid;
        r.correlationId = u32(a.correlation);
        r.start = e.ts;
        r.end = end;
        r.domain = category == Category::Runtime ? ApiDomain::Runtime : ApiDomain::Driver;
        r.cbid = i32(a.cbid);
        r.name = intern(e.name);
        m_data.apiCalls.push_back(r);
        return;
    }
    case Category::Sync: {
        m_gpuPids.emplace(pid, true);
        SyncRecord s;
        s.deviceId = u32(a.device >= 0 ? a.device : pid);
        s.contextId = u32(a.context);
        s.streamId = u32(a.stream, 0xFFFFFFFFu);
        s.correlationId = u32(a.correlation);
        s.start = e.ts;
        s.end = end;
        s.kind = syncKindOf(a.syncKind.empty() ? std::string_view(e.name) : std::string_view(a.syncKind));
        s.eventId = u32(a.eventId);
        m_syncs.emplace_back(m_data.syncs.size(), pid);
        m_data.syncs.push_back(s);
        return;
    }
    case Category::GpuAnnotation: {
        m_gpuPids.emplace(pid, true);
        const uint32_t device = u32(a.device >= 0 ? a.device : pid);
        const uint32_t stream = u32(a.stream >= 0 ? a.stream : tid);
        auto [it, inserted] = m_gpuAnnotationThreads.try_emplace(
            {device, stream}, kGpuAnnotationTidBase + (int64_t(device) << 24) + int64_t(stream & 0xFFFFFF));
        // Their pid becomes the host's in finish(), once the host is known: not final before.
        stopStreaming("GPU annotation ranges");
        m_gpuAnnotationRanges.push_back(m_data.nvtxRanges.size());
        addRange(pid, it->second, e.ts, end, intern(e.name), 0);
        return;
    }
    case Category::UserAnnotation:
        cpuSide();
        addRange(pid, tid, e.ts, end, intern(e.name), 0);
        return;
    case Category::CpuOp:
        if (!m_options.cpuOps) {
            ++m_skipped["cpuOps"];
            return;
        }
        cpuSide();
        addRange(pid, tid, e.ts, end, intern(e.name), m_lastCatId);
        return;
    case Category::Overhead: {
        OverheadRecord o;
        o.pid = pid;
        o.tid = tid;
        o.start = e.ts;
        o.end = end;
        o.kind = intern(e.name);
        if (pid < 0)
            m_overheadsWithoutPid.push_back(m_data.overheads.size());
        else
            cpuSide();
        m_data.overheads.push_back(o);
        return;
    }
    case Category::Other:
        cpuSide();
        addRange(pid, tid, e.ts, end, intern(e.name), m_lastCatId); // categoryOf() just interned e.cat
        return;
    }
}

void ChromeTraceBuilder::addCounter(const ChromeTraceEvent& e, int64_t pid)
{
    for (size_t i = 0; i < e.args.numberCount; ++i) {
        const auto& [key, text] = e.args.numbers[i];
        const auto parsed = parseNumber(text);
        if (!parsed)
            continue;
        const double value = *parsed;
        std::string name = e.name;
        if (!e.id.empty())
            name += " id: " + e.id;
        name += ' ';
        name += key;
        auto [it, inserted] = m_counterTracks.try_emplace({pid, name}, 0u);
        if (inserted) {
            CounterTrack track;
            track.id = static_cast<uint32_t>(m_data.counterTracks.size() + 1);
            track.pid = pid;
            track.name = name;
            m_data.counterTracks.push_back(std::move(track));
            it->second = m_data.counterTracks.back().id;
        }
        m_data.counterSamples.push_back({it->second, e.ts, value});
    }
}

void ChromeTraceBuilder::addDevice(DeviceInfo device)
{
    m_data.devices.push_back(std::move(device));
}

void ChromeTraceBuilder::addTopLevel(std::string_view key, std::string_view value)
{
    m_data.environment["trace." + std::string(key)] = std::string(value);
}

void ChromeTraceBuilder::expectBytes(size_t bytes)
{
    constexpr size_t kBytesPerEvent = 100; // a complete event with a name, pid/tid and ts/dur
    constexpr size_t kMaxReserve = size_t(1) << 28;
    try {
        m_data.nvtxRanges.reserve(std::min(bytes / kBytesPerEvent, kMaxReserve));
    } catch (const std::bad_alloc&) {
        // Only a hint: where the address space is refused, the table grows as it fills.
    }
}

SessionData ChromeTraceBuilder::finish()
{
    // Ranges never closed end at the last timestamp of the trace (as nsys does).
    for (auto& [thread, stack] : m_openBegins) {
        for (const auto& open : stack)
            addRange(thread.first, thread.second, open.start, m_lastTime, open.name, open.domain);
        if (!stack.empty())
            m_skipped["beginsNeverEnded"] += static_cast<int64_t>(stack.size());
    }
    for (auto& [key, stack] : m_openAsync) {
        for (const auto& open : stack)
            addRange(std::get<0>(key), open.tid, open.start, m_lastTime, open.name, open.domain, NvtxStyle::StartEnd,
                open.tid);
    }
    if (m_order) {
        // Every range is known now; only the ones held back are left to number.
        std::vector<NvtxRangeRecord> rest = m_order->takeRest();
        if (!rest.empty())
            m_sink->take(std::move(rest));
        m_order.reset();
        m_streamed = true;
    }

    // The host process: the first one with host-side events that is not also a GPU "process".
    int64_t host = 0;
    bool haveHost = false;
    for (int64_t pid : m_cpuPidsInOrder) {
        if (pid >= 0 && pid < kNamedIdBase && !m_gpuPids.count(pid)) {
            host = pid;
            haveHost = true;
            break;
        }
    }
    if (!haveHost && !m_cpuPidsInOrder.empty())
        host = m_cpuPidsInOrder.front();

    std::unordered_map<uint32_t, size_t> byCorrelation;
    byCorrelation.reserve(m_data.apiCalls.size());
    for (size_t i = 0; i < m_data.apiCalls.size(); ++i) {
        if (m_data.apiCalls[i].correlationId != 0)
            byCorrelation.try_emplace(m_data.apiCalls[i].correlationId, i);
    }
    const auto hostOf = [&](uint32_t correlation) -> const ApiCallRecord* {
        auto it = byCorrelation.find(correlation);
        return it == byCorrelation.end() ? nullptr : &m_data.apiCalls[it->second];
    };
    for (auto& k : m_data.kernels) {
        const auto* api = hostOf(k.correlationId);
        k.pid = api ? api->pid : host;
    }
    for (auto& m : m_data.memcpys) {
        const auto* api = hostOf(m.correlationId);
        m.pid = api ? api->pid : host;
    }
    for (auto& m : m_data.memsets) {
        const auto* api = hostOf(m.correlationId);
        m.pid = api ? api->pid : host;
    }
    for (const auto& [index, gpuPid] : m_syncs) {
        auto& s = m_data.syncs[index];
        const auto* api = hostOf(s.correlationId);
        s.pid = api ? api->pid : host;
        s.tid = api ? api->tid : 0;
    }
    for (size_t index : m_gpuAnnotationRanges)
        m_data.nvtxRanges[index].pid = host;
    for (size_t index : m_overheadsWithoutPid)
        m_data.overheads[index].pid = host;

    // Processes, threads and stream labels from the metadata events. Only processes with
    // events are kept (issue 24 item 10: Kineto's "Traces" pid, which holds only its own span
    // marker, came out as an empty process header), and the host, which owns the GPU rows.
    std::set<int64_t> withEvents;
    for (const auto& r : m_data.apiCalls)
        withEvents.insert(r.pid);
    for (const auto& r : m_data.nvtxRanges)
        withEvents.insert(r.pid);
    for (const auto& r : m_data.nvtxMarks)
        withEvents.insert(r.pid);
    for (const auto& r : m_data.syncs)
        withEvents.insert(r.pid);
    for (const auto& r : m_data.overheads)
        withEvents.insert(r.pid);
    for (const auto& r : m_data.counterTracks)
        withEvents.insert(r.pid);
    std::set<int64_t> processes;
    for (int64_t pid : m_cpuPidsInOrder) {
        if (pid >= 0 && withEvents.count(pid))
            processes.insert(pid);
    }
    processes.insert(host);
    // The trace's own words for a process (Kineto: "CPU", "GPU 0"), kept beside its name for
    // the timeline's process header.
    for (int64_t pid : processes)
        if (auto it = m_processLabels.find(pid); it != m_processLabels.end())
            m_data.meta["import.process_labels." + std::to_string(pid)] = it->second;
    for (int64_t pid : processes) {
        ProcessInfo p;
        p.pid = pid;
        if (auto it = m_processNames.find(pid); it != m_processNames.end())
            p.name = it->second;
        m_data.processes.push_back(std::move(p));
    }
    for (const auto& [thread, name] : m_threadNames) {
        if (!processes.count(thread.first) || m_gpuPids.count(thread.first))
            continue;
        m_data.threads.push_back({thread.first, thread.second, name});
    }
    for (const auto& [key, tid] : m_gpuAnnotationThreads) {
        m_data.threads.push_back({host, tid,
            "GPU " + std::to_string(std::get<0>(key)) + " stream " + std::to_string(std::get<1>(key))
                + " annotations"});
    }
    std::set<std::tuple<int64_t, uint32_t, uint32_t>> streams;
    const auto addStream = [&](int64_t pid, uint32_t device, uint32_t context, uint32_t stream) {
        if (!streams.emplace(pid, device, stream).second)
            return;
        StreamInfo s;
        s.pid = pid;
        s.deviceId = device;
        s.contextId = context;
        s.streamId = stream;
        // Kineto names the GPU lanes with thread_name metadata on (pid = device, tid = stream).
        if (auto it = m_threadNames.find({int64_t(device), int64_t(stream)});
            it != m_threadNames.end() && m_gpuPids.count(device))
            s.label = it->second;
        m_data.streams.push_back(std::move(s));
    };
    for (const auto& k : m_data.kernels)
        addStream(k.pid, k.deviceId, k.contextId, k.streamId);
    for (const auto& m : m_data.memcpys)
        addStream(m.pid, m.deviceId, m.contextId, m.streamId);
    for (const auto& m : m_data.memsets)
        addStream(m.pid, m.deviceId, m.contextId, m.streamId);

    for (auto& d : m_data.devices)
        d.pid = host;

    for (const auto& [why, count] : m_skipped)
        m_data.meta["import.skipped." + why] = std::to_string(count);
    m_data.meta["import.events"] = std::to_string(m_events);
    return std::move(m_data);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/export/chrometrace.h"

#include "core/analysis/nsysreports.h"
#include "core/model/launchindex.h"
#include "core/model/streamdependencies.h"
#include "core/report/textescape.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ws {

namespace {

constexpr int64_t kSyntheticTidBase = int64_t(1) << 30;
constexpr size_t kFlushBytes = size_t(1) << 20;

enum class TrackKind { Thread = 0, Nvtx = 1, Gpu = 2, Sync = 4, Events = 5 };
const char* syncKindName(SyncKind kind)
{
    switch (kind) {
    case SyncKind::EventSynchronize:
        return "cudaEventSynchronize";
    case SyncKind::StreamWaitEvent:
        return "cudaStreamWaitEvent";
    case SyncKind::StreamSynchronize:
        return "cudaStreamSynchronize";
    case SyncKind::ContextSynchronize:
        return "cudaDeviceSynchronize";
    case SyncKind::Unknown:
        break;
    }
    return "synchronization";
}

// Warp tracks of in-kernel traces share the track map under this kind (named by the caller).
constexpr int kWarpTrackKind = 3;
// Async in-kernel ranges get ids far above any NVTX range id.
constexpr int64_t kWarpAsyncIdBase = int64_t(1) << 40;
// Dependency flows get ids far above the launch flows' (1, 2, ...).
constexpr int64_t kDependencyFlowIdBase = int64_t(1) << 50;

class TraceWriter {
public:
    TraceWriter(const RecordSource& source, std::ostream& out, TimeNs origin)
        : m_source(source)
        , m_out(out)
        , m_origin(origin)
    {
        const SessionData& h = source.header();
        for (const auto& p : h.processes)
            m_processNames[p.pid] = p.name;
        for (const auto& t : h.threads)
            m_threadNames[{t.pid, t.tid}] = t.name;
        for (const auto& s : h.streams)
            m_streamLabels[{s.pid, s.deviceId, s.streamId}] = s.label;
        m_buf.reserve(kFlushBytes + 4096);
        m_buf += "{\"otherData\":{\"generator\":\"warpscope\",\"time_origin_ns\":\"";
        m_buf += std::to_string(origin);
        m_buf += "\"},\n\"traceEvents\":[";
    }

    void finish()
    {
        m_buf += "\n]}\n";
        flush();
        m_out.flush();
        if (!m_out)
            throw std::runtime_error("write failed");
    }

    const ChromeTraceSummary& summary() const { return m_summary; }

    // --- tracks --------------------------------------------------------------------------

    int64_t threadTrack(int64_t pid, int64_t tid) { return track(TrackKind::Thread, pid, tid, 0); }
    int64_t nvtxTrack(int64_t pid, int64_t tid) { return track(TrackKind::Nvtx, pid, tid, 0); }
    // Synchronisation waits get their own track: they coincide with the API call that waits,
    // and a slice that ends a few ns after its call would break the thread track's nesting.
    int64_t syncTrack(int64_t pid, int64_t tid) { return track(TrackKind::Sync, pid, tid, 0); }
    // Event records, stream waits and event synchronisations (event_op): their own track, like
    // syncs, since with --all-api the same call is also an API slice with CUPTI's times.
    int64_t eventTrack(int64_t pid, int64_t tid) { return track(TrackKind::Events, pid, tid, 0); }
    int64_t gpuTrack(int64_t pid, uint32_t device, uint32_t stream)
    {
        return track(TrackKind::Gpu, pid, device, stream);
    }
    // One track per warp of an in-kernel trace, after every GPU stream.
    int64_t warpTrack(int64_t pid, int64_t kernelId, int32_t block, int32_t warp, const std::string& name)
    {
        const int64_t where = (static_cast<int64_t>(block) << 32) | static_cast<uint32_t>(warp);
        const auto key = std::make_tuple(pid, kWarpTrackKind, kernelId, where);
        const auto it = m_tracks.find(key);
        if (it != m_tracks.end())
            return it->second;
        ensureProcess(pid);
        const int64_t tid = kSyntheticTidBase + m_syntheticTids++;
        metadata("thread_name", pid, tid, name, 2000000 + m_warpTracks++);
        m_tracks.emplace(key, tid);
        return tid;
    }

    // --- events --------------------------------------------------------------------------

    // Opens an event object up to and including "ts"; the caller appends more fields and
    // calls close().
    void open(char ph, int64_t pid, int64_t tid, TimeNs ts)
    {
        if (m_buf.size() >= kFlushBytes)
            flush();
        m_buf += m_first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
        m_first = false;
        m_buf += ph;
        m_buf += "\",\"pid\":";
        m_buf += std::to_string(pid);
        m_buf += ",\"tid\":";
        m_buf += std::to_string(tid);
        m_buf += ",\"ts\":";
        appendMicros(ts - m_origin);
        ++m_summary.events;
        if (ph == 'X')
            ++m_summary.slices;
    }
    void close() { m_buf += '}'; }

    void dur(TimeNs d)
    {
        m_buf += ",\"dur\":";
        appendMicros(d < 0 ? 0 : d);
    }
    void text(const char* key, std::string_view value)
    {
        m_buf += ",\"";
        m_buf += key;
        m_buf += "\":";
        appendJsonString(m_buf, value);
    }
    void number(const char* key, int64_t value, bool first = false)
    {
        m_buf += first ? "\"" : ",\"";
        m_buf += key;
        m_buf += "\":";
        m_buf += std::to_string(value);
    }
    void real(const char* key, double value, bool first = false)
    {
        m_buf += first ? "\"" : ",\"";
        m_buf += key;
        m_buf += "\":";
        // JSON has no NaN or infinity: a sample without a value is written as null.
        if (!std::isfinite(value)) {
            m_buf += "null";
            return;
        }
        char text[32];
        const int n = std::snprintf(text, sizeof text, "%.9g", value);
        m_buf.append(text, static_cast<size_t>(n));
    }
    void beginArgs() { m_buf += ",\"args\":{"; }
    void endArgs() { m_buf += '}'; }
    void triple(const char* key, int32_t x, int32_t y, int32_t z)
    {
        m_buf += ",\"";
        m_buf += key;
        m_buf += "\":[" + std::to_string(x) + ',' + std::to_string(y) + ',' + std::to_string(z) + ']';
    }

    void flow(int64_t fromPid, int64_t fromTid, TimeNs fromTs, int64_t toPid, int64_t toTid, TimeNs toTs)
    {
        const int64_t id = ++m_summary.flows;
        // "s" binds to the innermost slice open on its track at fromTs, "f" with bp "e" to the
        // slice enclosing toTs; callers pass timestamps strictly inside those slices.
        open('s', fromPid, fromTid, fromTs);
        m_buf += ",\"cat\":\"flow\",\"name\":\"launch\",\"id\":" + std::to_string(id);
        close();
        open('f', toPid, toTid, toTs);
        m_buf += ",\"cat\":\"flow\",\"name\":\"launch\",\"bp\":\"e\",\"id\":" + std::to_string(id);
        close();
    }

    // One point of a dependency flow (cat "dependency"): ph 's' (the first), 't' (a step) or
    // 'f' (the last, bound to the slice enclosing ts). Ids above kDependencyFlowIdBase.
    void dependencyPoint(char ph, int64_t pid, int64_t tid, TimeNs ts, int64_t id, const std::string& name)
    {
        open(ph, pid, tid, ts);
        m_buf += ",\"cat\":\"dependency\",\"name\":\"";
        m_buf += name;
        m_buf += "\",\"id\":" + std::to_string(id);
        if (ph == 'f')
            m_buf += ",\"bp\":\"e\"";
        close();
    }
    int64_t nextDependencyFlow() { return ++m_summary.dependencyFlows; }

private:
    void flush()
    {
        m_out.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
        m_buf.clear();
        if (!m_out)
            throw std::runtime_error("write failed");
    }

    // Exact ns as microseconds with three decimals: 1234567 ns -> "1234.567".
    void appendMicros(TimeNs ns)
    {
        if (ns < 0) {
            m_buf += '-';
            ns = -ns;
        }
        m_buf += std::to_string(ns / 1000);
        const auto frac = static_cast<int>(ns % 1000);
        m_buf += '.';
        m_buf += static_cast<char>('0' + frac / 100);
        m_buf += static_cast<char>('0' + frac / 10 % 10);
        m_buf += static_cast<char>('0' + frac % 10);
    }

    void metadata(const char* what, int64_t pid, int64_t tid, const std::string& name, int64_t sortIndex)
    {
        open('M', pid, tid, m_origin);
        text("name", what);
        m_buf += ",\"args\":{\"name\":";
        appendJsonString(m_buf, name);
        m_buf += "}";
        close();
        open('M', pid, tid, m_origin);
        text("name", std::string(what) == "process_name" ? "process_sort_index" : "thread_sort_index");
        m_buf += ",\"args\":{";
        number("sort_index", sortIndex, true);
        m_buf += "}";
        close();
    }

    void ensureProcess(int64_t pid)
    {
        if (!m_processesSeen.emplace(pid, true).second)
            return;
        const auto it = m_processNames.find(pid);
        std::string name = it != m_processNames.end() && !it->second.empty() ? it->second : "Process";
        metadata("process_name", pid, 0, name + " (" + std::to_string(pid) + ")",
            static_cast<int64_t>(m_processesSeen.size()));
    }

    std::string threadLabel(int64_t pid, int64_t tid) const
    {
        const auto it = m_threadNames.find({pid, tid});
        if (it != m_threadNames.end() && !it->second.empty())
            return it->second + " (" + std::to_string(tid) + ")";
        return "Thread " + std::to_string(tid);
    }

    int64_t track(TrackKind kind, int64_t pid, int64_t a, int64_t b)
    {
        const auto key = std::make_tuple(pid, static_cast<int>(kind), a, b);
        const auto it = m_tracks.find(key);
        if (it != m_tracks.end())
            return it->second;
        ensureProcess(pid);
        int64_t tid = a;
        std::string name;
        int64_t sortIndex = 0;
        // Host threads first (each followed by its NVTX track), GPU streams after them.
        switch (kind) {
        case TrackKind::Thread:
            name = threadLabel(pid, a);
            sortIndex = 2 * (m_hostTracks++);
            break;
        case TrackKind::Nvtx:
            tid = kSyntheticTidBase + m_syntheticTids++;
            name = "NVTX " + threadLabel(pid, a);
            sortIndex = 2 * (m_hostTracks++) + 1;
            break;
        case TrackKind::Sync:
            tid = kSyntheticTidBase + m_syntheticTids++;
            name = "Sync " + threadLabel(pid, a);
            sortIndex = 2 * (m_hostTracks++) + 1;
            break;
        case TrackKind::Events:
            tid = kSyntheticTidBase + m_syntheticTids++;
            name = "CUDA events " + threadLabel(pid, a);
            sortIndex = 2 * (m_hostTracks++) + 1;
            break;
        case TrackKind::Gpu: {
            tid = kSyntheticTidBase + m_syntheticTids++;
            name = "GPU " + std::to_string(a) + " stream " + std::to_string(b);
            const auto label = m_streamLabels.find({pid, static_cast<uint32_t>(a), static_cast<uint32_t>(b)});
            if (label != m_streamLabels.end() && !label->second.empty())
                name += " (" + label->second + ")";
            sortIndex = 1000000 + m_gpuTracks++;
            break;
        }
        }
        metadata("thread_name", pid, tid, name, sortIndex);
        m_tracks.emplace(key, tid);
        return tid;
    }

    const RecordSource& m_source;
    std::ostream& m_out;
    TimeNs m_origin;
    std::string m_buf;
    bool m_first = true;
    ChromeTraceSummary m_summary;
    std::map<int64_t, std::string> m_processNames;
    std::map<std::pair<int64_t, int64_t>, std::string> m_threadNames;
    std::map<std::tuple<int64_t, uint32_t, uint32_t>, std::string> m_streamLabels;
    std::map<int64_t, bool> m_processesSeen;
    std::map<std::tuple<int64_t, int, int64_t, int64_t>, int64_t> m_tracks;
    int64_t m_syntheticTids = 0;
    int64_t m_hostTracks = 0;
    int64_t m_gpuTracks = 0;
    int64_t m_warpTracks = 0;
};

std::string hexHandle(uint64_t handle)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(handle));
    return buf;
}

TimeNs midpoint(TimeNs start, TimeNs end)
{
    return start + (end - start) / 2;
}

} // namespace

ChromeTraceSummary writeChromeTrace(const RecordSource& source, std::ostream& out)
{
    const TimeSpan span = source.timeSpan();
    TraceWriter w(source, out, span.valid ? span.begin : 0);
    const StringTable& strings = source.header().strings;

    source.forEachApiCall([&](const ApiCallRecord& a) {
        const int64_t tid = w.threadTrack(a.pid, a.tid);
        w.open('X', a.pid, tid, a.start);
        w.dur(a.end - a.start);
        w.text("cat", a.domain == ApiDomain::Driver ? "cuda_driver" : "cuda_api");
        w.text("name", stripApiVersionSuffix(strings.at(a.name)));
        w.beginArgs();
        w.number("correlation", a.correlationId, true);
        w.number("cbid", a.cbid);
        w.number("return", a.returnValue);
        w.endArgs();
        w.close();
    });

    source.forEachNvtxRange([&](const NvtxRangeRecord& r) {
        const int64_t tid = w.nvtxTrack(r.pid, r.tid);
        const std::string name = nvtxRangeName(r.domain, r.name, strings);
        if (r.style == NvtxStyle::PushPop) {
            // Push/pop ranges nest on their thread, so they are ordinary slices.
            w.open('X', r.pid, tid, r.start);
            w.dur(r.end - r.start);
        } else {
            // Start/end ranges may overlap each other and cross threads: async pair.
            w.open('b', r.pid, tid, r.start);
            w.number("id", r.id);
        }
        w.text("cat", "nvtx");
        w.text("name", name);
        w.beginArgs();
        w.number("depth", r.depth, true);
        w.number("category", r.category);
        w.number("color", r.color);
        w.endArgs();
        w.close();
        if (r.style == NvtxStyle::StartEnd) {
            w.open('e', r.pid, tid, r.end);
            w.number("id", r.id);
            w.text("cat", "nvtx");
            w.text("name", name);
            w.close();
        }
    });

    source.forEachNvtxMark([&](const NvtxMarkRecord& m) {
        w.open('i', m.pid, w.nvtxTrack(m.pid, m.tid), m.ts);
        w.text("s", "t");
        w.text("cat", "nvtx");
        w.text("name", nvtxRangeName(m.domain, m.name, strings));
        w.close();
    });

    source.forEachSync([&](const SyncRecord& r) {
        w.open('X', r.pid, w.syncTrack(r.pid, r.tid), r.start);
        w.dur(r.end - r.start);
        w.text("cat", "sync");
        w.text("name", syncKindName(r.kind));
        w.beginArgs();
        w.number("device", r.deviceId, true);
        w.number("stream", r.streamId);
        w.number("event", r.eventId);
        w.number("correlation", r.correlationId);
        w.endArgs();
        w.close();
    });

    // Counter tracks (PM sampling, imported counters): one Perfetto counter per track, named
    // with its device and unit, on the process that recorded it.
    std::map<uint32_t, const CounterTrack*> counterTracks;
    for (const CounterTrack& t : source.header().counterTracks)
        counterTracks.emplace(t.id, &t);
    source.forEachCounterSample([&](const CounterSample& c) {
        const auto it = counterTracks.find(c.trackId);
        if (it == counterTracks.end())
            return;
        const CounterTrack& t = *it->second;
        w.open('C', t.pid, 0, c.ts);
        w.text("cat", "counter");
        w.text(
            "name", "GPU " + std::to_string(t.deviceId) + " " + t.name + (t.unit.empty() ? "" : " (" + t.unit + ")"));
        w.beginArgs();
        w.real("value", c.value, true);
        w.endArgs();
        w.close();
    });

    // GPU work and the arrows from the call that launched it.
    const LaunchIndex launches(source);
    const auto linkLaunch = [&](int64_t pid, uint32_t correlationId, int64_t gpuTid, TimeNs start, TimeNs end) {
        if (const LaunchIndex::Launch* api = launches.find(pid, correlationId)) {
            // The arrow leaves 1 ns after the launch call starts: the slice open there is the
            // call itself, not a driver call nested inside it (cudaLaunchKernel -> cuLaunchKernel),
            // and GPU work is entered at its midpoint, safely inside the slice.
            const TimeNs from = api->start + std::min<TimeNs>(1, (api->end - api->start) / 2);
            w.flow(pid, w.threadTrack(pid, api->tid), from, pid, gpuTid, midpoint(start, end));
        }
    };
    // Dependencies between streams (event_op): the GPU ops of the streams that events name,
    // with their tracks, kept while the GPU work streams past.
    const std::vector<EventOpRecord>& eventOps = source.header().eventOps;
    std::set<std::pair<int64_t, uint32_t>> eventStreams;
    for (const EventOpRecord& e : eventOps)
        eventStreams.emplace(e.pid, e.streamId);
    std::vector<GpuOp> dependencyOps;
    std::map<GpuOpRef, int64_t> dependencyOpTrack;
    const auto keepForDependencies = [&](GpuOpRef::Table table, const auto& r, int64_t tid) {
        if (!eventStreams.contains({r.pid, r.streamId}))
            return;
        GpuOp o;
        o.ref = {table, r.id};
        o.pid = r.pid;
        o.streamId = r.streamId;
        o.correlationId = r.correlationId;
        o.start = r.start;
        o.end = r.end;
        const auto* api = launches.find(r.pid, r.correlationId);
        o.issued = api ? api->start : r.start;
        dependencyOps.push_back(o);
        dependencyOpTrack[o.ref] = tid;
    };
    KernelNameCache namer(strings);
    std::map<int64_t, int64_t> kernelPid; // for the warp tracks of in-kernel traces
    source.forEachKernel([&](const KernelRecord& k) {
        kernelPid[k.id] = k.pid;
        const int64_t tid = w.gpuTrack(k.pid, k.deviceId, k.streamId);
        w.open('X', k.pid, tid, k.start);
        w.dur(k.end - k.start);
        w.text("cat", "kernel");
        w.text("name", namer(k));
        w.beginArgs();
        w.number("launch id", k.id, true);
        w.number("correlation", k.correlationId);
        w.number("device", k.deviceId);
        w.number("stream", k.streamId);
        w.triple("grid", k.gridX, k.gridY, k.gridZ);
        w.triple("block", k.blockX, k.blockY, k.blockZ);
        w.number("registers per thread", k.registersPerThread);
        w.number("static shared memory", k.staticSmemBytes);
        w.number("dynamic shared memory", k.dynamicSmemBytes);
        w.endArgs();
        w.close();
        linkLaunch(k.pid, k.correlationId, tid, k.start, k.end);
        keepForDependencies(GpuOpRef::Table::Kernel, k, tid);
    });
    source.forEachMemcpy([&](const MemcpyRecord& m) {
        const int64_t tid = w.gpuTrack(m.pid, m.deviceId, m.streamId);
        w.open('X', m.pid, tid, m.start);
        w.dur(m.end - m.start);
        w.text("cat", "gpu_memcpy");
        w.text("name", memcpyOperationName(m.copyKind));
        w.beginArgs();
        w.number("bytes", m.bytes, true);
        w.number("correlation", m.correlationId);
        w.number("device", m.deviceId);
        w.number("stream", m.streamId);
        w.endArgs();
        w.close();
        linkLaunch(m.pid, m.correlationId, tid, m.start, m.end);
        keepForDependencies(GpuOpRef::Table::Memcpy, m, tid);
    });
    source.forEachMemset([&](const MemsetRecord& m) {
        const int64_t tid = w.gpuTrack(m.pid, m.deviceId, m.streamId);
        w.open('X', m.pid, tid, m.start);
        w.dur(m.end - m.start);
        w.text("cat", "gpu_memset");
        w.text("name", memsetOperationName());
        w.beginArgs();
        w.number("bytes", m.bytes, true);
        w.number("value", m.value);
        w.number("correlation", m.correlationId);
        w.number("device", m.deviceId);
        w.number("stream", m.streamId);
        w.endArgs();
        w.close();
        linkLaunch(m.pid, m.correlationId, tid, m.start, m.end);
        keepForDependencies(GpuOpRef::Table::Memset, m, tid);
    });

    // Event records, stream waits, event synchronisations as slices, and per dependency two
    // flows: record -> wait -> first op after the wait (the calls that made it), and producer
    // op -> that op (what waited for what on the GPU). Points sit at slice midpoints.
    std::map<int64_t, std::pair<const EventOpRecord*, int64_t>> eventSlices; // event_op id -> row, track
    for (const EventOpRecord& e : eventOps) {
        const int64_t tid = w.eventTrack(e.pid, e.tid);
        eventSlices[e.id] = {&e, tid};
        w.open('X', e.pid, tid, e.start);
        w.dur(e.end - e.start);
        w.text("cat", "cuda_event");
        w.text("name", eventOpName(e));
        w.beginArgs();
        w.number("stream", e.streamId, true);
        w.text("event", hexHandle(e.event));
        w.number("correlation", e.correlationId);
        w.number("return", e.returnValue);
        w.endArgs();
        w.close();
    }
    for (const StreamDependency& d : deriveStreamDependencies(eventOps, dependencyOps)) {
        const auto rec = eventSlices.find(d.recordId);
        const auto wt = eventSlices.find(d.waitId);
        if (rec == eventSlices.end() || wt == eventSlices.end())
            continue;
        const auto recordAt = midpoint(rec->second.first->start, rec->second.first->end);
        const auto waitAt = midpoint(wt->second.first->start, wt->second.first->end);
        const std::string name = "event " + hexHandle(d.event);
        const auto consumerTrack = d.consumer.valid() ? dependencyOpTrack.find(d.consumer) : dependencyOpTrack.end();
        const int64_t calls = kDependencyFlowIdBase + w.nextDependencyFlow();
        w.dependencyPoint('s', d.pid, rec->second.second, recordAt, calls, name);
        if (consumerTrack != dependencyOpTrack.end()) {
            w.dependencyPoint('t', d.pid, wt->second.second, waitAt, calls, name);
            w.dependencyPoint('f', d.pid, consumerTrack->second, midpoint(d.consumerStart, d.consumerEnd), calls, name);
        } else {
            w.dependencyPoint('f', d.pid, wt->second.second, waitAt, calls, name);
        }
        const auto producerTrack = d.producer.valid() ? dependencyOpTrack.find(d.producer) : dependencyOpTrack.end();
        if (producerTrack == dependencyOpTrack.end())
            continue;
        const int64_t gpu = kDependencyFlowIdBase + w.nextDependencyFlow();
        w.dependencyPoint(
            's', d.pid, producerTrack->second, midpoint(d.producerStart, d.producerEnd), gpu, "waited for");
        if (consumerTrack != dependencyOpTrack.end())
            w.dependencyPoint(
                'f', d.pid, consumerTrack->second, midpoint(d.consumerStart, d.consumerEnd), gpu, "waited for");
        else
            w.dependencyPoint('f', d.pid, wt->second.second, waitAt, gpu, "waited for");
    }

    // In-kernel traces: a track per (kernel, block, warp) named after the warp's role.
    // Push/pop ranges nest, so they are slices; asynchronous ranges are b/e pairs; marks instants.
    const int64_t fallbackPid = source.header().processes.empty() ? 0 : source.header().processes.front().pid;
    source.forEachWarpEvent([&](const WarpEvent& e) {
        const auto pidIt = kernelPid.find(e.kernelId);
        const int64_t pid = pidIt != kernelPid.end() ? pidIt->second : fallbackPid;
        const int64_t tid = w.warpTrack(pid, e.kernelId, e.block, e.warp,
            "kernel #" + std::to_string(e.kernelId) + " block " + std::to_string(e.block) + " · " + strings.at(e.role)
                + " · warp " + std::to_string(e.warp));
        const std::string& name = strings.at(e.name);
        const auto args = [&] {
            w.beginArgs();
            w.number("launch id", e.kernelId, true);
            w.number("block", e.block);
            w.number("warp", e.warp);
            w.number("sm", e.sm);
            w.text("role", strings.at(e.role));
            w.number("depth", e.depth);
            w.endArgs();
        };
        switch (e.kind) {
        case WarpEventKind::Range:
            w.open('X', pid, tid, e.begin);
            w.dur(e.end - e.begin);
            w.text("cat", "iket");
            w.text("name", name);
            args();
            w.close();
            break;
        case WarpEventKind::AsyncRange:
            w.open('b', pid, tid, e.begin);
            w.number("id", kWarpAsyncIdBase + e.id);
            w.text("cat", "iket_async");
            w.text("name", name);
            args();
            w.close();
            w.open('e', pid, tid, e.end);
            w.number("id", kWarpAsyncIdBase + e.id);
            w.text("cat", "iket_async");
            w.text("name", name);
            w.close();
            break;
        case WarpEventKind::Mark:
            w.open('i', pid, tid, e.begin);
            w.text("s", "t");
            w.text("cat", "iket");
            w.text("name", name);
            args();
            w.close();
            break;
        }
    });

    w.finish();
    return w.summary();
}

} // namespace ws

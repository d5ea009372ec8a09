// SPDX-License-Identifier: MIT
#include "nvtxtiming.h"

#include "cudadriver.h"
#include "recorder.h"
#include "streameventcapture.h"

#include "core/raw/nvtxtiming.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace ws::inject::nvtxtiming {

namespace {

// One timed instance between its push/start and its pop/end.
struct Open {
    int level = 0;
    uint32_t nameId = 0; // string id in the raw file
    size_t nameIndex = 0;
    uint32_t instance = 0;
    int64_t tid = 0;
    int64_t hostStart = 0;
    CUcontext ctx = nullptr;
    CUevent start = nullptr;
};

struct Pending {
    Open open;
    int64_t hostEnd = 0;
    CUevent end = nullptr;
};

// Plain pointers only, never destroyed (see Recorder): late NVTX calls may come after static
// destructors.
struct State {
    std::vector<std::string> names;
    std::vector<uint32_t> instances; // per name, under mutex
    std::mutex mutex;                // guards everything below
    std::condition_variable wake;
    std::unordered_map<uint64_t, Open> startEnd; // by nvtxRangeId_t
    std::vector<Pending> pending;
    std::vector<std::pair<CUcontext, CUevent>> pool; // completed events for reuse
    std::thread resolver;
    bool resolverStarted = false;
    bool stopping = false;
    uint64_t unclosed = 0;
};

thread_local std::vector<Open>* t_open = nullptr; // this thread's timed pushes, leaked per thread

State* state()
{
    static State* const s = [] {
        auto* st = new State;
        if (const char* list = std::getenv(raw::kEnvNvtxTiming)) {
            std::string all(list);
            size_t pos = 0;
            while (pos <= all.size()) {
                const size_t nl = std::min(all.find('\n', pos), all.size());
                if (nl > pos)
                    st->names.push_back(all.substr(pos, nl - pos));
                pos = nl + 1;
            }
        }
        st->instances.assign(st->names.size(), 0);
        return st;
    }();
    return s;
}

int64_t currentTid()
{
    thread_local int64_t tid = static_cast<int64_t>(syscall(SYS_gettid));
    return tid;
}

void write(Recorder& r, const Open& o, int64_t hostEnd, int64_t gpuNs, raw::NvtxTimingStatus status)
{
    raw::NvtxTimingRecord rec {};
    rec.hostStart = o.hostStart;
    rec.hostEnd = hostEnd;
    rec.tid = o.tid;
    rec.gpuNs = gpuNs;
    rec.status = static_cast<uint32_t>(status);
    rec.instance = o.instance;
    r.writer().add(raw::RecordType::NvtxTiming, rec, state()->names[o.nameIndex]);
}

CUevent takeEvent(State& s, const CudaDriver& cu, CUcontext ctx)
{
    {
        std::lock_guard lock(s.mutex);
        for (size_t i = 0; i < s.pool.size(); ++i) {
            if (s.pool[i].first == ctx) {
                CUevent e = s.pool[i].second;
                s.pool[i] = s.pool.back();
                s.pool.pop_back();
                return e;
            }
        }
    }
    CUevent e = nullptr;
    // Default flags: timing enabled, blocking sync off.
    return cu.eventCreate(&e, CU_EVENT_DEFAULT) == CUDA_SUCCESS ? e : nullptr;
}

// Begins one timed instance on the calling thread, or writes why it cannot be timed.
bool begin(Recorder& r, std::string_view name, Open& o)
{
    State& s = *state();
    size_t index = s.names.size();
    for (size_t i = 0; i < s.names.size(); ++i)
        if (s.names[i] == name) {
            index = i;
            break;
        }
    if (index == s.names.size() || !r.capturing())
        return false;
    o.hostStart = monotonicNs();
    o.nameIndex = index;
    o.tid = currentTid();
    {
        std::lock_guard lock(s.mutex);
        o.instance = s.instances[index]++;
    }
    const CudaDriver* cu = cudaDriver();
    if (!cu || cu->ctxGetCurrent(&o.ctx) != CUDA_SUCCESS || !o.ctx) {
        write(r, o, o.hostStart, 0, raw::NvtxTimingStatus::NoContext);
        return false;
    }
    const streamevents::OwnCalls own; // the recorder's events, not the program's (event_op)
    o.start = takeEvent(s, *cu, o.ctx);
    // A null stream: the legacy default stream (cuEventRecord, not its _ptsz variant).
    if (!o.start || cu->eventRecord(o.start, nullptr) != CUDA_SUCCESS) {
        write(r, o, o.hostStart, 0, raw::NvtxTimingStatus::EventFailed);
        return false;
    }
    return true;
}

void resolveLoop(Recorder* r);

void finish(Recorder& r, Open o)
{
    State& s = *state();
    const int64_t hostEnd = monotonicNs();
    const CudaDriver* cu = cudaDriver();
    CUevent end = cu ? takeEvent(s, *cu, o.ctx) : nullptr;
    // The thread ending a start/end range may have another context current: record in the
    // context that holds the start event.
    CUcontext current = nullptr;
    if (cu)
        cu->ctxGetCurrent(&current);
    const bool switched = cu && current != o.ctx && cu->ctxSetCurrent(o.ctx) == CUDA_SUCCESS;
    const streamevents::OwnCalls own; // the recorder's events, not the program's (event_op)
    const bool recorded = end && cu->eventRecord(end, nullptr) == CUDA_SUCCESS;
    if (switched)
        cu->ctxSetCurrent(current);
    if (!recorded) {
        write(r, o, hostEnd, 0, raw::NvtxTimingStatus::EventFailed);
        return;
    }
    std::lock_guard lock(s.mutex);
    s.pending.push_back({o, hostEnd, end});
    if (!s.resolverStarted && !s.stopping) {
        s.resolverStarted = true;
        s.resolver = std::thread([rp = &r] { resolveLoop(rp); });
    }
}

// Writes the records of completed instances; with `wait`, waits for every one.
void resolve(Recorder& r, bool wait)
{
    State& s = *state();
    const CudaDriver* cu = cudaDriver();
    if (!cu)
        return;
    std::vector<Pending> work;
    {
        std::lock_guard lock(s.mutex);
        work.swap(s.pending);
    }
    std::vector<Pending> notReady;
    CUcontext callerContext = nullptr;
    cu->ctxGetCurrent(&callerContext);
    CUcontext current = callerContext;
    for (auto& p : work) {
        if (current != p.open.ctx && cu->ctxSetCurrent(p.open.ctx) == CUDA_SUCCESS)
            current = p.open.ctx;
        const streamevents::OwnCalls own; // the recorder's events, not the program's (event_op)
        const CUresult q = wait ? cu->eventSynchronize(p.end) : cu->eventQuery(p.end);
        if (q == CUDA_ERROR_NOT_READY) {
            notReady.push_back(p);
            continue;
        }
        float ms = 0;
        if (q == CUDA_SUCCESS && cu->eventElapsedTime(&ms, p.open.start, p.end) == CUDA_SUCCESS)
            write(r, p.open, p.hostEnd, static_cast<int64_t>(static_cast<double>(ms) * 1e6 + 0.5),
                raw::NvtxTimingStatus::Ok);
        else
            write(r, p.open, p.hostEnd, 0, raw::NvtxTimingStatus::EventFailed);
        std::lock_guard lock(s.mutex);
        s.pool.emplace_back(p.open.ctx, p.open.start);
        s.pool.emplace_back(p.open.ctx, p.end);
    }
    if (current != callerContext)
        cu->ctxSetCurrent(callerContext);
    std::lock_guard lock(s.mutex);
    s.pending.insert(s.pending.begin(), notReady.begin(), notReady.end());
}

void resolveLoop(Recorder* r)
{
    pthread_setname_np(pthread_self(), "ws-nvtxtiming");
    State& s = *state();
    std::unique_lock lock(s.mutex);
    while (!s.stopping) {
        s.wake.wait_for(lock, std::chrono::milliseconds(20), [&s] { return s.stopping; });
        if (s.stopping)
            break;
        lock.unlock();
        resolve(*r, false);
        lock.lock();
    }
}

Recorder* g_recorder = nullptr; // for the exit path; set by the first timed instance

} // namespace

void pushed(Recorder& recorder, std::string_view name, int level)
{
    if (state()->names.empty())
        return;
    Open o;
    if (!begin(recorder, name, o))
        return;
    g_recorder = &recorder;
    o.level = level;
    if (!t_open)
        t_open = new std::vector<Open>;
    t_open->push_back(o);
}

void popped(Recorder& recorder, int level)
{
    if (!t_open || t_open->empty() || t_open->back().level != level)
        return;
    Open o = t_open->back();
    t_open->pop_back();
    finish(recorder, o);
}

void started(Recorder& recorder, std::string_view name, uint64_t rangeId)
{
    State& s = *state();
    if (s.names.empty())
        return;
    Open o;
    if (!begin(recorder, name, o))
        return;
    g_recorder = &recorder;
    std::lock_guard lock(s.mutex);
    s.startEnd[rangeId] = o;
}

void ended(Recorder& recorder, uint64_t rangeId)
{
    State& s = *state();
    if (s.names.empty())
        return;
    Open o;
    {
        std::lock_guard lock(s.mutex);
        const auto it = s.startEnd.find(rangeId);
        if (it == s.startEnd.end())
            return;
        o = it->second;
        s.startEnd.erase(it);
    }
    finish(recorder, o);
}

void shutdown()
{
    State& s = *state();
    if (s.names.empty() || !g_recorder)
        return;
    {
        std::lock_guard lock(s.mutex);
        if (s.stopping)
            return;
        s.stopping = true;
        s.unclosed = s.startEnd.size() + (t_open ? t_open->size() : 0);
    }
    s.wake.notify_all();
    if (s.resolver.joinable())
        s.resolver.join();
    resolve(*g_recorder, true);
    if (s.unclosed > 0)
        g_recorder->message(raw::MessageLevel::Warning,
            "NVTX timing: " + std::to_string(s.unclosed) + " timed range(s) still open at exit were not timed");
}

} // namespace ws::inject::nvtxtiming

// SPDX-License-Identifier: MIT
#include "recorder.h"

#include "cuptisession.h"
#include "iketsubmit.h"
#include "nvtxtiming.h"
#include "pmsampler.h"

#include "core/util/shellwords.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <unistd.h>
#include <vector>

namespace ws::inject {

int64_t monotonicNs()
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

RecorderConfig RecorderConfig::fromEnvironment()
{
    RecorderConfig c;
    if (const char* dir = std::getenv(raw::kEnvRawDir))
        c.rawDir = dir;
    if (const char* trace = std::getenv(raw::kEnvTrace)) {
        c.traceCuda = c.traceNvtx = false;
        std::string list(trace);
        size_t pos = 0;
        while (pos <= list.size()) {
            const size_t comma = std::min(list.find(',', pos), list.size());
            const std::string item = list.substr(pos, comma - pos);
            if (item == "cuda")
                c.traceCuda = true;
            else if (item == "nvtx")
                c.traceNvtx = true;
            else if (!item.empty())
                c.errors.push_back(std::string("unknown trace kind '") + item + "' in " + raw::kEnvTrace);
            pos = comma + 1;
        }
    }
    if (const char* all = std::getenv(raw::kEnvAllApi))
        c.allApi = std::strcmp(all, "1") == 0;
    if (const char* range = std::getenv(raw::kEnvCaptureRange)) {
        const std::string r(range);
        if (r == "cudaProfilerApi")
            c.capture = CaptureMode::CudaProfilerApi;
        else if (r.rfind("nvtx:", 0) == 0 && r.size() > 5) {
            c.capture = CaptureMode::NvtxRange;
            c.captureNvtxName = r.substr(5);
        } else if (!r.empty() && r != "none")
            c.errors.push_back("unknown capture range '" + r + "'");
    }
    if (const char* d = std::getenv(raw::kEnvDuration))
        c.durationS = std::atof(d);
    const auto knob = [](const char* name, const char* whenDefault) {
        const char* v = std::getenv(name);
        return v ? std::string(v) : std::string(whenDefault);
    };
    c.systemThreadIds = knob(raw::kEnvThreadIds, "system") != "default";
    c.monotonicTimestamps = knob(raw::kEnvTimestamps, "monotonic") != "cupti";
    c.selectApis = knob(raw::kEnvApiMode, "select") != "filter";
    const std::string off = "," + knob(raw::kEnvKindsOff, "") + ",";
    c.syncRecords = off.find(",sync,") == std::string::npos;
    c.overheadRecords = off.find(",overhead,") == std::string::npos;
    c.memcpyRecords = off.find(",memcpy,") == std::string::npos;
    c.memsetRecords = off.find(",memset,") == std::string::npos;
    c.driverApis = off.find(",driver,") == std::string::npos;
    c.subscribe = off.find(",subscriber,") == std::string::npos;
    c.flushPeriodMs = std::atoi(knob(raw::kEnvFlushMs, "500").c_str());
    c.lateKernels = knob(raw::kEnvKernels, "init") == "late";
    c.prefaultBuffers = std::atoi(knob(raw::kEnvPrefault, "4").c_str());
    if (const char* b = std::getenv(raw::kEnvBufferBytes)) {
        const long long v = std::atoll(b);
        if (v >= (64 << 10))
            c.cuptiBufferBytes = static_cast<size_t>(v);
    }
    return c;
}

Recorder* Recorder::instance()
{
    // Function-local pointer, never deleted (see the class comment). Initialisation is
    // thread-safe, and NVTX and CUDA may race to be first.
    static Recorder* const recorder = [] {
        auto* r = new Recorder;
        if (!r->start()) {
            delete r;
            return static_cast<Recorder*>(nullptr);
        }
        return r;
    }();
    return recorder;
}

bool Recorder::start()
{
    m_config = RecorderConfig::fromEnvironment();
    if (m_config.rawDir.empty()) {
        std::fprintf(stderr,
            "warpscope-inject: %s is not set, not recording (start programs with "
            "`warpscope-cli record`)\n",
            raw::kEnvRawDir);
        return false;
    }
    if (!m_writer.open(m_config.rawDir)) {
        std::fprintf(stderr, "warpscope-inject: cannot create a raw record file in %s: %s\n", m_config.rawDir.c_str(),
            std::strerror(errno));
        return false;
    }
    for (const auto& e : m_config.errors)
        message(raw::MessageLevel::Error, e);

    // The process itself: command line and executable.
    // Quoted as the launcher quotes the root's argv (joinCommand), so that the same program
    // has the same command line in every run of it, traced or profiled.
    std::string cmdline;
    if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
        std::string all;
        char buf[4096];
        size_t n = 0;
        while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
            all.append(buf, n);
        std::fclose(f);
        std::vector<std::string> argv;
        for (size_t pos = 0; pos < all.size();) {
            const size_t end = std::min(all.find('\0', pos), all.size());
            argv.emplace_back(all, pos, end - pos);
            pos = end + 1;
        }
        cmdline = joinCommand(argv);
    }
    char exe[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    raw::ProcessRecord p {};
    p.pid = getpid();
    p.parentPid = getppid();
    p.commandLine = m_writer.intern(cmdline);
    p.executable = m_writer.intern(n > 0 ? std::string_view(exe, static_cast<size_t>(n)) : std::string_view());
    m_writer.add(raw::RecordType::Process, p);
    // Distributed launchers (torchrun, mpirun wrappers) tell each worker its rank through the
    // environment; ingest keys these per process (core/analysis/commranks.h) so the timeline
    // can label "rank 1 · pid 4242".
    for (const auto& [var, key] :
        {std::pair {"RANK", "rank"}, std::pair {"LOCAL_RANK", "local_rank"}, std::pair {"WORLD_SIZE", "world_size"}}) {
        if (const char* v = std::getenv(var); v && *v) {
            const raw::EnvironmentRecord e {m_writer.intern(key), m_writer.intern(v)};
            m_writer.add(raw::RecordType::Environment, e);
        }
    }

    m_startNs = monotonicNs();
    if (m_config.durationS > 0)
        m_captureStopNs = m_startNs + static_cast<int64_t>(m_config.durationS * 1e9);
    m_capturing.store(m_config.capture == CaptureMode::Always);

    // A fork()ed child must not write into its parent's file (CUDA is unusable there anyway
    // until it execs, and an exec'd child gets its own file through the inherited environment).
    pthread_atfork(nullptr, nullptr, [] {
        if (auto* r = Recorder::instance())
            r->afterForkInChild();
    });
    registerExitHandler();
    m_thread = std::thread([this] { writerLoop(); });
    return true;
}

void Recorder::registerExitHandler()
{
    // Registered again from InitializeInjection: atexit handlers run in reverse order, so the
    // later registration runs before the CUDA runtime's own teardown. shutdown() is idempotent.
    std::atexit([] {
        if (auto* r = Recorder::instance())
            r->shutdown();
    });
}

void Recorder::afterForkInChild()
{
    // Only this thread exists in the child; the writer thread and its locks' owners are gone.
    m_closed.store(true);
    m_capturing.store(false);
}

void Recorder::message(raw::MessageLevel level, const std::string& text)
{
    raw::MessageRecord m {};
    m.level = static_cast<uint32_t>(level);
    m_writer.add(raw::RecordType::Message, m, text);
}

void Recorder::mapCurrentThread()
{
    thread_local bool mapped = false;
    if (mapped || m_config.systemThreadIds)
        return;
    mapped = true;
    raw::ThreadMapRecord m {};
    // CUPTI's default id on Linux: pthread_self(), as the 32 bits its records have room for.
    m.cuptiThreadId = static_cast<uint32_t>(pthread_self());
    m.tid = static_cast<int64_t>(gettid());
    m_writer.add(raw::RecordType::ThreadMap, m);
}

void Recorder::startCapture()
{
    if (m_capturing.exchange(true))
        return;
    pm::captureChanged(*this, true, monotonicNs());
    if (m_config.traceCuda && cuptiReady())
        cupti::enableActivity();
}

void Recorder::stopCapture()
{
    if (!m_capturing.exchange(false))
        return;
    pm::captureChanged(*this, false, monotonicNs());
    if (m_config.traceCuda && cuptiReady()) {
        cupti::disableActivity();
        cupti::flush(false);
    }
}

void Recorder::queueBuffer(uint8_t* buffer, size_t validBytes)
{
    {
        std::lock_guard lock(m_mutex);
        m_buffers.emplace_back(buffer, validBytes);
    }
    m_wake.notify_one();
}

uint8_t* Recorder::takeFreeBuffer()
{
    std::lock_guard lock(m_mutex);
    if (m_freeBuffers.empty())
        return nullptr;
    uint8_t* b = m_freeBuffers.back();
    m_freeBuffers.pop_back();
    return b;
}

void Recorder::drainBuffers()
{
    static cupti::ConverterCache* const cache = new cupti::ConverterCache; // leaked, see class comment
    std::vector<std::pair<uint8_t*, size_t>> buffers;
    {
        std::lock_guard lock(m_mutex);
        buffers.swap(m_buffers);
    }
    for (auto& [buf, valid] : buffers) {
        cupti::convertBuffer(buf, valid, m_writer, *cache);
        std::lock_guard lock(m_mutex);
        // Keep a few buffers for reuse: fresh 4 MB allocations cost page faults on the
        // application thread that requests them.
        if (m_freeBuffers.size() < static_cast<size_t>(std::max(8, m_config.prefaultBuffers)))
            m_freeBuffers.push_back(buf);
        else
            std::free(buf);
    }
}

void Recorder::prefaultBuffers()
{
    // CUPTI asks for activity buffers on the application's thread, which then page-faults its
    // way through every fresh one as records are written. Allocating and touching a few here,
    // off that thread, takes that cost out of the first launches.
    for (int i = 0; i < m_config.prefaultBuffers; ++i) {
        auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, m_config.cuptiBufferBytes));
        if (!b)
            break;
        std::memset(b, 0, m_config.cuptiBufferBytes);
        std::lock_guard lock(m_mutex);
        m_freeBuffers.push_back(b);
    }
}

void Recorder::writerLoop()
{
    pthread_setname_np(pthread_self(), "ws-writer");
    int64_t lastFlush = monotonicNs();
    bool prefaulted = false;
    for (;;) {
        if (!prefaulted && cuptiReady()) {
            prefaulted = true;
            prefaultBuffers();
        }
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait_for(lock, std::chrono::milliseconds(100), [this] { return m_stopping || !m_buffers.empty(); });
            if (m_stopping)
                break;
        }
        if (m_deferredPending.exchange(false))
            cupti::runDeferredQueries(*this);
        const int64_t now = monotonicNs();
        if (m_captureStopNs > 0 && now >= m_captureStopNs && capturing()) {
            m_captureStopNs = 0;
            stopCapture();
            message(raw::MessageLevel::Info, "collection stopped after the requested duration");
        }
        // At least once a second everything recorded so far reaches the file, so a target that
        // is killed loses at most the last second.
        if (m_config.flushPeriodMs > 0 && now - lastFlush >= m_config.flushPeriodMs * 1'000'000LL && cuptiReady()) {
            lastFlush = now;
            cupti::flush(false);
        }
        std::unique_lock io(m_io, std::try_to_lock);
        if (!io.owns_lock() || closed())
            continue;
        drainBuffers();
        m_writer.writeOut();
    }
}

void Recorder::shutdown()
{
    if (m_shutdownStarted.exchange(true) || closed())
        return;
    // --gpu-metrics and --nvtx-timing write their last records while the context still lives.
    pm::shutdown();
    nvtxtiming::shutdown();
    iketsubmit::shutdown(); // launches refused while not capturing, in one warning
    if (cuptiReady())
        cupti::flush(true); // delivers every buffer, complete or not, through bufferCompleted
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    // Wait for the writer thread to finish its current pass, but never hang the exit of the
    // program on it: after 5 s the exit path writes anyway.
    std::unique_lock io(m_io, std::defer_lock);
    const bool gotIo = io.try_lock_for(std::chrono::seconds(5));
    if (gotIo && m_thread.joinable())
        m_thread.join();
    else if (m_thread.joinable())
        m_thread.detach();
    drainBuffers();
    m_writer.close(m_dropped.load());
    m_closed.store(true, std::memory_order_release);
}

} // namespace ws::inject

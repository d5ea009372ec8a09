// SPDX-License-Identifier: MIT
#pragma once

#include "rawwriter.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ws::inject {

enum class CaptureMode { Always, CudaProfilerApi, NvtxRange };

// What the launcher asked for, read from the environment (names in raw/rawformat.h).
struct RecorderConfig {
    std::string rawDir;
    bool traceCuda = true;
    bool traceNvtx = true;
    bool allApi = false;
    CaptureMode capture = CaptureMode::Always;
    std::string captureNvtxName;
    double durationS = 0; // 0: until exit
    size_t cuptiBufferBytes = 4u << 20;
    // CUPTI settings (see raw/rawformat.h for the variables). Each costs host time per
    // intercepted API call; scripts/device/compare-and-overhead.py --tune measures them.
    bool systemThreadIds = true;     // CUPTI reports gettid(); else pthread_self(), mapped by ingest
    bool monotonicTimestamps = true; // CUPTI calls our CLOCK_MONOTONIC callback; else CLOCK_REALTIME, shifted by ingest
    bool selectApis = true;          // enable only the kept API cbids; else enable all, then disable the rest
    bool syncRecords = true;
    bool overheadRecords = true;
    bool memcpyRecords = true;
    bool memsetRecords = true;
    bool driverApis = true;          // driver API calls (programs that launch through cuLaunchKernel)
    bool subscribe = true;           // callback subscriber: devices, stream ids, profiler-API ranges
    int flushPeriodMs = 500;         // writer thread's cuptiActivityFlushAll(0); 0 = only at exit
    bool lateKernels = false;        // kernel records enabled at the first context creation, not at init
    int prefaultBuffers = 4;         // activity buffers allocated and touched ahead by the writer thread
    std::vector<std::string> errors; // unparseable settings, reported in the raw file

    static RecorderConfig fromEnvironment();
};

// The recorder's process-wide state. It is created on first use and deliberately never
// destroyed: CUPTI's buffer thread and late NVTX calls from other libraries' static destructors
// may run after this library's static destructors would have, so nothing they touch may live
// in an object with a destructor. The exit handler flushes and closes the file instead; after
// that every entry point sees closed() and returns without touching the file.
class Recorder {
public:
    static Recorder* instance(); // nullptr when recording is off in this process (no raw dir)

    const RecorderConfig& config() const { return m_config; }
    RawWriter& writer() { return m_writer; }

    bool closed() const { return m_closed.load(std::memory_order_acquire); }
    // True while events should be recorded (capture range open and duration not over).
    bool capturing() const { return m_capturing.load(std::memory_order_relaxed); }

    void startCapture();
    void stopCapture();

    // Called once CUPTI is set up, so the writer thread may start flushing it periodically.
    void setCuptiReady() { m_cuptiReady.store(true); }
    bool cuptiReady() const { return m_cuptiReady.load(); }

    // Completed CUPTI buffers, converted by the writer thread.
    void queueBuffer(uint8_t* buffer, size_t validBytes);
    uint8_t* takeFreeBuffer();
    void addDropped(uint64_t n) { m_dropped += n; }

    // Work that must not run inside CUDA's callbacks (NVML, cudart version): the writer thread
    // runs it on its next pass.
    void requestDeferredQueries() { m_deferredPending.store(true); }

    void message(raw::MessageLevel level, const std::string& text);
    // With CUPTI's default thread ids: once per thread, record which OS thread its id is.
    void mapCurrentThread();
    void registerExitHandler();
    void shutdown(); // the exit path; idempotent

private:
    Recorder() = default;
    bool start();
    void writerLoop();
    void prefaultBuffers();
    void drainBuffers();
    void runDeferredQueries();
    void afterForkInChild();

    RecorderConfig m_config;
    RawWriter m_writer;
    std::mutex m_mutex; // guards m_buffers, m_freeBuffers, m_stopping
    std::condition_variable m_wake;
    std::vector<std::pair<uint8_t*, size_t>> m_buffers;
    std::vector<uint8_t*> m_freeBuffers;
    bool m_stopping = false;
    std::timed_mutex m_io; // held while converting and writing, by the writer thread or exit path
    std::thread m_thread;
    std::atomic<bool> m_closed {false};
    std::atomic<bool> m_capturing {false};
    std::atomic<bool> m_cuptiReady {false};
    std::atomic<bool> m_deferredPending {false};
    std::atomic<bool> m_shutdownStarted {false};
    std::atomic<uint64_t> m_dropped {0};
    int64_t m_startNs = 0;
    int64_t m_captureStopNs = 0; // --duration: when to stop, 0 = never
};

int64_t monotonicNs();

} // namespace ws::inject

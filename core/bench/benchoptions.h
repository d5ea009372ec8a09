// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ws::bench {

// What clock measures one sample, and therefore what a sample means. Each timer has its own
// key (stored in bench_run.timer) and its own label in every output, because a CUDA-event
// GPU-stream time and a single-call end-to-end latency are different quantities.
enum class TimerKind {
    CudaEventsPerBatch,   // one event pair around `repeat` back-to-back calls; sample = interval / repeat
    CudaEventsPerCall,    // one event pair around every call
    WallclockSyncPerCall, // host clock from before the call until the stream is synchronized
};

// Whether the L2 keeps what the previous call left there.
enum class CachePolicy {
    Flush, // write a buffer of at least 2x L2 before each measured call, outside the interval
    Warm,  // reuse: back-to-back calls on the same buffers
};

// Whether declared work over the measured time is the kernel's own rate or an effective one
// (work of one part divided by an interval that covers more, e.g. GEMM FLOPs over GEMM+ReLU).
enum class ThroughputKind { Kernel, Effective };

std::string_view timerKey(TimerKind t);
std::string_view timerLabel(TimerKind t);                    // long name for summaries
std::string_view timerShortLabel(TimerKind t);               // column header
std::optional<TimerKind> timerFromKey(std::string_view key); // also accepts the short aliases below
std::string_view cachePolicyKey(CachePolicy c);
std::optional<CachePolicy> cachePolicyFromKey(std::string_view key);
std::string_view throughputKindKey(ThroughputKind k);
std::optional<ThroughputKind> throughputKindFromKey(std::string_view key);

// Thrown for options that cannot give an honest measurement. The message is one line.
class BenchOptionError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct BenchOptions {
    // Warm-up: either a time budget (converted to calls after a short calibration) or a call
    // count. Neither set means the default budget.
    std::optional<double> warmupMs;
    std::optional<int64_t> warmupCalls;
    int64_t repeat = 100; // calls per round
    int rounds = 5;
    double cooldownMs = 0; // host sleep before each round
    CachePolicy cache = CachePolicy::Flush;
    TimerKind timer = TimerKind::CudaEventsPerCall;
    int64_t flushBytes = 0; // 0: default (max(2 x L2, 256 MiB)), resolved on the device
    bool alternate = true;  // rotate the order of implementations every round
    double rtol = 1e-2;
    double atol = 1e-2;
    double driftTolerance = 0.02; // relative change of early vs later rounds that counts as drift

    static constexpr double kDefaultWarmupMs = 100;
    static constexpr int64_t kDefaultFlushBytes = int64_t(256) << 20;

    double effectiveWarmupMs() const { return warmupMs.value_or(kDefaultWarmupMs); }
    // The flush buffer actually written for a device with `l2Bytes` of L2.
    int64_t resolvedFlushBytes(int64_t l2Bytes) const;
    bool operator==(const BenchOptions&) const = default;
};

// Every problem with `o`, one sentence each; empty when the options are usable.
std::vector<std::string> validationErrors(const BenchOptions& o);
// Same, once the device's L2 size is known (the flush buffer must be at least 2 x L2).
std::vector<std::string> deviceValidationErrors(const BenchOptions& o, int64_t l2Bytes);
// Throws BenchOptionError with all problems joined by "; ".
void validate(const BenchOptions& o);
void validateForDevice(const BenchOptions& o, int64_t l2Bytes);

// "32M", "32MiB", "1.5G", "4096", "64k" -> bytes (binary multiples). nullopt when malformed.
std::optional<int64_t> parseByteSize(std::string_view text);
// 33554432 -> "32 MiB"; sizes that are not whole MiB/KiB print in bytes.
std::string formatBytes(int64_t bytes);

} // namespace ws::bench

// SPDX-License-Identifier: MIT
#include "core/bench/benchoptions.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace ws::bench {

std::string_view timerKey(TimerKind t)
{
    switch (t) {
    case TimerKind::CudaEventsPerBatch:
        return "cuda-events-per-batch";
    case TimerKind::CudaEventsPerCall:
        return "cuda-events-per-call";
    case TimerKind::WallclockSyncPerCall:
        return "wallclock-sync-per-call";
    }
    return "unknown";
}

std::string_view timerLabel(TimerKind t)
{
    switch (t) {
    case TimerKind::CudaEventsPerBatch:
        return "CUDA-event GPU-stream time per call, averaged over a batch of back-to-back calls";
    case TimerKind::CudaEventsPerCall:
        return "CUDA-event GPU-stream time of single calls";
    case TimerKind::WallclockSyncPerCall:
        return "single-call end-to-end latency (host wall clock, synchronized)";
    }
    return "unknown timer";
}

std::string_view timerShortLabel(TimerKind t)
{
    switch (t) {
    case TimerKind::CudaEventsPerBatch:
        return "event GPU time (batch mean)";
    case TimerKind::CudaEventsPerCall:
        return "event GPU time (per call)";
    case TimerKind::WallclockSyncPerCall:
        return "end-to-end latency";
    }
    return "unknown";
}

std::optional<TimerKind> timerFromKey(std::string_view key)
{
    for (auto t : {TimerKind::CudaEventsPerBatch, TimerKind::CudaEventsPerCall, TimerKind::WallclockSyncPerCall}) {
        if (key == timerKey(t))
            return t;
    }
    // Short spellings for the command line.
    if (key == "events-batch" || key == "batch")
        return TimerKind::CudaEventsPerBatch;
    if (key == "events-call" || key == "events" || key == "event")
        return TimerKind::CudaEventsPerCall;
    if (key == "wallclock" || key == "wall")
        return TimerKind::WallclockSyncPerCall;
    return std::nullopt;
}

std::string_view cachePolicyKey(CachePolicy c)
{
    return c == CachePolicy::Flush ? "flush" : "warm";
}

std::optional<CachePolicy> cachePolicyFromKey(std::string_view key)
{
    if (key == "flush")
        return CachePolicy::Flush;
    if (key == "warm")
        return CachePolicy::Warm;
    return std::nullopt;
}

std::string_view throughputKindKey(ThroughputKind k)
{
    return k == ThroughputKind::Kernel ? "kernel" : "effective";
}

std::optional<ThroughputKind> throughputKindFromKey(std::string_view key)
{
    if (key == "kernel")
        return ThroughputKind::Kernel;
    if (key == "effective")
        return ThroughputKind::Effective;
    return std::nullopt;
}

int64_t BenchOptions::resolvedFlushBytes(int64_t l2Bytes) const
{
    if (flushBytes > 0)
        return flushBytes;
    return std::max(kDefaultFlushBytes, 2 * l2Bytes);
}

std::vector<std::string> validationErrors(const BenchOptions& o)
{
    std::vector<std::string> errors;
    auto finite = [](double v) { return std::isfinite(v); };
    if (o.warmupMs && o.warmupCalls)
        errors.emplace_back(
            "give either a warm-up time budget (--warmup-ms) or a call count (--warmup-calls), not both");
    if (o.warmupMs && (!finite(*o.warmupMs) || *o.warmupMs < 0))
        errors.emplace_back("--warmup-ms must be a number >= 0");
    if (o.warmupCalls && *o.warmupCalls < 0)
        errors.emplace_back("--warmup-calls must be >= 0");
    if (o.repeat < 1)
        errors.emplace_back("--repeat (calls per round) must be >= 1");
    if (o.rounds < 1)
        errors.emplace_back("--rounds must be >= 1");
    if (!finite(o.cooldownMs) || o.cooldownMs < 0)
        errors.emplace_back("--cooldown-ms must be a number >= 0");
    if (!finite(o.rtol) || o.rtol < 0)
        errors.emplace_back("--rtol must be a number >= 0");
    if (!finite(o.atol) || o.atol < 0)
        errors.emplace_back("--atol must be a number >= 0");
    if (!finite(o.driftTolerance) || o.driftTolerance <= 0 || o.driftTolerance >= 1)
        errors.emplace_back("the drift tolerance must lie between 0 and 1 (a relative change)");
    if (o.flushBytes < 0)
        errors.emplace_back("--flush-bytes must be > 0");
    if (o.cache == CachePolicy::Flush && o.timer == TimerKind::CudaEventsPerBatch)
        errors.emplace_back(
            "--cache flush cannot be combined with --timer cuda-events-per-batch: the flush runs before every "
            "measured call and would fall inside the batch's event interval; use --timer cuda-events-per-call "
            "or --cache warm");
    if (o.cache == CachePolicy::Warm && o.flushBytes > 0)
        errors.emplace_back("--flush-bytes applies to --cache flush only");
    // A batch of one call has the same boundary as a per-call event pair but the name would
    // suggest an average; refuse so the label stays true.
    if (o.timer == TimerKind::CudaEventsPerBatch && o.repeat < 2)
        errors.emplace_back("--timer cuda-events-per-batch needs --repeat >= 2 (a batch of one call is "
                            "--timer cuda-events-per-call)");
    return errors;
}

std::vector<std::string> deviceValidationErrors(const BenchOptions& o, int64_t l2Bytes)
{
    auto errors = validationErrors(o);
    if (o.cache == CachePolicy::Flush && o.flushBytes > 0 && l2Bytes > 0 && o.flushBytes < 2 * l2Bytes) {
        errors.push_back("--flush-bytes " + formatBytes(o.flushBytes) + " is smaller than 2 x L2 (2 x "
            + formatBytes(l2Bytes) + "): the flush would leave part of the previous call's data in L2");
    }
    return errors;
}

namespace {
void throwIfAny(const std::vector<std::string>& errors)
{
    if (errors.empty())
        return;
    std::string msg;
    for (const auto& e : errors) {
        if (!msg.empty())
            msg += "; ";
        msg += e;
    }
    throw BenchOptionError(msg);
}
} // namespace

void validate(const BenchOptions& o)
{
    throwIfAny(validationErrors(o));
}

void validateForDevice(const BenchOptions& o, int64_t l2Bytes)
{
    throwIfAny(deviceValidationErrors(o, l2Bytes));
}

std::optional<int64_t> parseByteSize(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    double value = 0;
    const auto* begin = text.data();
    const auto* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr == begin || !std::isfinite(value) || value < 0)
        return std::nullopt;
    std::string suffix(ptr, end);
    std::transform(suffix.begin(), suffix.end(), suffix.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!suffix.empty() && suffix.front() == ' ')
        suffix.erase(0, 1);
    double scale = 1;
    if (suffix.empty() || suffix == "b")
        scale = 1;
    else if (suffix == "k" || suffix == "kib" || suffix == "kb")
        scale = 1024.0;
    else if (suffix == "m" || suffix == "mib" || suffix == "mb")
        scale = 1024.0 * 1024.0;
    else if (suffix == "g" || suffix == "gib" || suffix == "gb")
        scale = 1024.0 * 1024.0 * 1024.0;
    else
        return std::nullopt;
    const double bytes = value * scale;
    if (bytes > 9.0e18 || bytes != std::floor(bytes))
        return std::nullopt;
    return static_cast<int64_t>(bytes);
}

std::string formatBytes(int64_t bytes)
{
    std::ostringstream s;
    constexpr int64_t kib = 1024;
    constexpr int64_t mib = kib * 1024;
    constexpr int64_t gib = mib * 1024;
    if (bytes >= gib && bytes % gib == 0)
        s << bytes / gib << " GiB";
    else if (bytes >= mib && bytes % mib == 0)
        s << bytes / mib << " MiB";
    else if (bytes >= kib && bytes % kib == 0)
        s << bytes / kib << " KiB";
    else
        s << bytes << " B";
    return s.str();
}

} // namespace ws::bench

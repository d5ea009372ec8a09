// SPDX-License-Identifier: MIT
#include "warpscope/bench.h"

#include "core/bench/benchjson.h"
#include "core/bench/benchreport.h"
#include "core/bench/benchworkload.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <thread>

namespace ws::bench {

size_t elementBytes(ElementType t)
{
    return t == ElementType::F32 ? 4 : 2;
}

namespace {

void cudaCheck(cudaError_t e, const char* what, const std::string& impl = {})
{
    if (e == cudaSuccess)
        return;
    std::string msg = std::string(what) + " failed";
    if (!impl.empty())
        msg += " in implementation '" + impl + "'";
    msg += ": " + std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
    throw CudaError(msg);
}

// Host decoding of the 16-bit types, so the check needs no CUDA headers beyond the runtime API.
double fromBf16(uint16_t h)
{
    const uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

double fromHalf(uint16_t h)
{
    const uint32_t sign = (h >> 15) & 1;
    const uint32_t exp = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(mant), -24);
    else if (exp == 31)
        v = mant ? std::nan("") : INFINITY;
    else
        v = std::ldexp(static_cast<double>(mant | 0x400), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

double elementAt(const std::vector<unsigned char>& host, size_t i, ElementType t)
{
    if (t == ElementType::F32) {
        float f;
        std::memcpy(&f, host.data() + i * 4, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, host.data() + i * 2, 2);
    return t == ElementType::BF16 ? fromBf16(h) : fromHalf(h);
}

std::vector<size_t> sampleIndices(size_t count, size_t samples, uint64_t seed)
{
    std::vector<size_t> out;
    if (samples == 0 || samples >= count) {
        out.resize(count);
        for (size_t i = 0; i < count; ++i)
            out[i] = i;
        return out;
    }
    std::set<size_t> picked {0, count - 1};
    std::mt19937_64 rng(seed);
    while (picked.size() < samples)
        picked.insert(static_cast<size_t>(rng() % count));
    return {picked.begin(), picked.end()};
}

class Stream {
public:
    Stream() { cudaCheck(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    ~Stream() { cudaStreamDestroy(m_stream); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return m_stream; }

private:
    cudaStream_t m_stream = nullptr;
};

class EventPool {
public:
    explicit EventPool(size_t n)
        : m_events(n, nullptr)
    {
        for (auto& e : m_events)
            cudaCheck(cudaEventCreate(&e), "cudaEventCreate");
    }
    ~EventPool()
    {
        for (auto e : m_events) {
            if (e)
                cudaEventDestroy(e);
        }
    }
    EventPool(const EventPool&) = delete;
    EventPool& operator=(const EventPool&) = delete;
    cudaEvent_t operator[](size_t i) const { return m_events[i]; }

private:
    std::vector<cudaEvent_t> m_events;
};

class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes)
    {
        if (bytes)
            cudaCheck(cudaMalloc(&m_ptr, bytes), "cudaMalloc of the L2 flush buffer");
    }
    ~DeviceBuffer() { cudaFree(m_ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void* get() const { return m_ptr; }

private:
    void* m_ptr = nullptr;
};

float elapsedMs(cudaEvent_t a, cudaEvent_t b, const std::string& impl)
{
    float ms = 0;
    cudaCheck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime", impl);
    return ms;
}

CheckReport checkImplementation(const Implementation& impl, const Reference& ref, const BenchOptions& o, cudaStream_t s)
{
    if (!impl.call)
        throw BenchOptionError("implementation '" + impl.name + "' has no call");
    if (!impl.output.data || impl.output.count == 0)
        throw BenchOptionError("implementation '" + impl.name
            + "' declares no output: every implementation is checked against the reference "
              "before timing");
    if (!ref.expected)
        throw BenchOptionError("no reference: every implementation is checked against one before timing");
    const size_t bytes = impl.output.count * elementBytes(impl.output.type);
    // Poison the output (all bits set is NaN in every float type) so an element the
    // implementation never writes cannot pass by holding a stale right answer.
    cudaCheck(
        cudaMemsetAsync(const_cast<void*>(impl.output.data), 0xFF, bytes, s), "cudaMemsetAsync (poison)", impl.name);
    if (impl.reset)
        impl.reset(s);
    impl.call(s);
    cudaCheck(cudaGetLastError(), "launch", impl.name);
    cudaCheck(cudaStreamSynchronize(s), "cudaStreamSynchronize after the check run", impl.name);
    std::vector<unsigned char> host(bytes);
    cudaCheck(cudaMemcpy(host.data(), impl.output.data, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy of the output",
        impl.name);

    CheckReport r;
    r.performed = true;
    r.rtol = o.rtol;
    r.atol = o.atol;
    r.reference = ref.description;
    r.total = static_cast<int64_t>(impl.output.count);
    const auto indices = sampleIndices(impl.output.count, ref.sampleCount, ref.seed);
    r.checked = static_cast<int64_t>(indices.size());
    int64_t bad = 0;
    size_t worst = 0;
    double worstExcess = -1;
    for (size_t i : indices) {
        const double a = elementAt(host, i, impl.output.type);
        const double e = ref.expected(i);
        const double diff = std::fabs(a - e);
        const double allowed = o.atol + o.rtol * std::fabs(e);
        if (std::isfinite(diff)) {
            r.maxAbsError = std::max(r.maxAbsError, diff);
            if (e != 0)
                r.maxRelError = std::max(r.maxRelError, diff / std::fabs(e));
        }
        // Written so that NaN (unwritten or invalid output) fails.
        if (!(diff <= allowed)) {
            ++bad;
            const double excess = std::isfinite(diff) ? diff - allowed : INFINITY;
            if (excess > worstExcess) {
                worstExcess = excess;
                worst = i;
            }
        }
    }
    r.passed = bad == 0;
    if (!r.passed) {
        char buf[512];
        std::snprintf(buf, sizeof buf,
            "implementation '%s' fails the correctness check, so nothing was timed: %lld of %lld compared "
            "elements differ from the reference (%s) by more than atol + rtol x |expected| (rtol %g, atol "
            "%g); worst: element %zu = %.6g, expected %.6g",
            impl.name.c_str(), static_cast<long long>(bad), static_cast<long long>(r.checked), ref.description.c_str(),
            o.rtol, o.atol, worst, elementAt(host, worst, impl.output.type), ref.expected(worst));
        throw CorrectnessError(buf);
    }
    return r;
}

struct Warmup {
    int64_t calls = 0;
    double elapsedMs = 0;
    std::vector<double> chunksUs;
};

Warmup warmUp(const Implementation& impl, const BenchOptions& o, cudaStream_t s, const EventPool& ev)
{
    Warmup w;
    int64_t calls = o.warmupCalls.value_or(0);
    if (!o.warmupCalls) {
        const double budget = o.effectiveWarmupMs();
        if (budget <= 0)
            return w;
        // Calibrate: a few calls give the time per call that turns the budget into a count.
        constexpr int kCalibration = 5;
        cudaCheck(cudaEventRecord(ev[0], s), "cudaEventRecord", impl.name);
        for (int i = 0; i < kCalibration; ++i)
            impl.call(s);
        cudaCheck(cudaEventRecord(ev[1], s), "cudaEventRecord", impl.name);
        cudaCheck(cudaEventSynchronize(ev[1]), "cudaEventSynchronize (warm-up calibration)", impl.name);
        const double ms = elapsedMs(ev[0], ev[1], impl.name);
        w.elapsedMs += ms;
        w.calls += kCalibration;
        const double perCall = std::max(ms / kCalibration, 1e-4);
        calls = static_cast<int64_t>(std::ceil(std::max(0.0, budget - ms) / perCall));
        calls = std::min<int64_t>(calls, 10'000'000);
    }
    if (calls <= 0)
        return w;
    // Timed in chunks so the drift check can tell whether the time per call is still falling.
    const int64_t chunks = std::min<int64_t>(calls, 20);
    for (int64_t c = 0; c < chunks; ++c) {
        const int64_t n = calls / chunks + (c < calls % chunks ? 1 : 0);
        cudaCheck(cudaEventRecord(ev[0], s), "cudaEventRecord", impl.name);
        for (int64_t i = 0; i < n; ++i)
            impl.call(s);
        cudaCheck(cudaEventRecord(ev[1], s), "cudaEventRecord", impl.name);
        cudaCheck(cudaEventSynchronize(ev[1]), "cudaEventSynchronize (warm-up)", impl.name);
        cudaCheck(cudaGetLastError(), "launch during warm-up", impl.name);
        const double ms = elapsedMs(ev[0], ev[1], impl.name);
        w.elapsedMs += ms;
        w.calls += n;
        w.chunksUs.push_back(ms * 1e3 / static_cast<double>(n));
    }
    return w;
}

class Flusher {
public:
    Flusher(int64_t bytes)
        : m_buffer(static_cast<size_t>(bytes))
        , m_bytes(static_cast<size_t>(bytes))
    {
    }
    void flush(cudaStream_t s)
    {
        // A different byte each time, so no level of the memory system can skip the write.
        m_value = (m_value + 1) & 0xFF;
        cudaCheck(cudaMemsetAsync(m_buffer.get(), m_value, m_bytes, s), "cudaMemsetAsync (L2 flush)");
    }

private:
    DeviceBuffer m_buffer;
    size_t m_bytes;
    int m_value = 0;
};

// One round of one implementation. Returns per-call values (empty for the batch timer) and
// sets `roundValue`.
std::vector<double> measureRound(const Implementation& impl, const BenchOptions& o, cudaStream_t s, const EventPool& ev,
    Flusher* flusher, double& roundValue)
{
    const auto repeat = static_cast<size_t>(o.repeat);
    std::vector<double> calls;
    switch (o.timer) {
    case TimerKind::CudaEventsPerBatch: {
        cudaCheck(cudaEventRecord(ev[0], s), "cudaEventRecord", impl.name);
        for (size_t i = 0; i < repeat; ++i)
            impl.call(s);
        cudaCheck(cudaEventRecord(ev[1], s), "cudaEventRecord", impl.name);
        cudaCheck(cudaEventSynchronize(ev[1]), "cudaEventSynchronize", impl.name);
        roundValue = elapsedMs(ev[0], ev[1], impl.name) * 1e3 / static_cast<double>(repeat);
        break;
    }
    case TimerKind::CudaEventsPerCall: {
        // Everything is enqueued first and read after one synchronization: the host stays
        // ahead of the GPU, so the stream does not idle between a start event and its call.
        for (size_t i = 0; i < repeat; ++i) {
            if (flusher)
                flusher->flush(s);
            cudaCheck(cudaEventRecord(ev[2 * i], s), "cudaEventRecord", impl.name);
            impl.call(s);
            cudaCheck(cudaEventRecord(ev[2 * i + 1], s), "cudaEventRecord", impl.name);
        }
        cudaCheck(cudaEventSynchronize(ev[2 * repeat - 1]), "cudaEventSynchronize", impl.name);
        calls.reserve(repeat);
        for (size_t i = 0; i < repeat; ++i)
            calls.push_back(elapsedMs(ev[2 * i], ev[2 * i + 1], impl.name) * 1e3);
        break;
    }
    case TimerKind::WallclockSyncPerCall: {
        calls.reserve(repeat);
        for (size_t i = 0; i < repeat; ++i) {
            if (flusher)
                flusher->flush(s);
            cudaCheck(cudaStreamSynchronize(s), "cudaStreamSynchronize", impl.name);
            const auto t0 = std::chrono::steady_clock::now();
            impl.call(s);
            cudaCheck(cudaStreamSynchronize(s), "cudaStreamSynchronize", impl.name);
            const auto t1 = std::chrono::steady_clock::now();
            calls.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
        break;
    }
    }
    cudaCheck(cudaGetLastError(), "launch", impl.name);
    if (!calls.empty()) {
        double sum = 0;
        for (double c : calls)
            sum += c;
        roundValue = sum / static_cast<double>(calls.size());
    }
    return calls;
}

void say(const Context& ctx, const std::string& msg)
{
    if (ctx.onMessage)
        ctx.onMessage(msg);
    else
        std::fprintf(stderr, "%s\n", msg.c_str());
}

} // namespace

BenchResult bench(const std::vector<Implementation>& implementations, const Reference& reference,
    const BenchOptions& options, const Context& context)
{
    validate(options);
    if (implementations.empty())
        throw BenchOptionError("no implementation to measure");
    for (size_t i = 0; i < implementations.size(); ++i) {
        for (size_t j = i + 1; j < implementations.size(); ++j) {
            if (implementations[i].name == implementations[j].name)
                throw BenchOptionError("two implementations are named '" + implementations[i].name + "'");
        }
    }
    int device = 0;
    cudaCheck(cudaGetDevice(&device), "cudaGetDevice");
    int l2 = 0;
    cudaCheck(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2 size)");
    validateForDevice(options, l2);

    BenchResult result;
    result.environment = collectEnvironment(device);
    result.devices.push_back(describeDevice(device));

    Stream stream;
    const cudaStream_t s = stream.get();

    // 1. Correctness, for every implementation, before anything is timed.
    std::vector<CheckReport> checks;
    for (const auto& impl : implementations) {
        checks.push_back(checkImplementation(impl, reference, options, s));
        say(context,
            "check passed: " + impl.name + " (" + std::to_string(checks.back().checked) + " of "
                + std::to_string(checks.back().total) + " elements vs " + reference.description + ")");
    }

    const bool perCall = options.timer != TimerKind::CudaEventsPerBatch;
    EventPool events(perCall ? 2 * static_cast<size_t>(options.repeat) : 2);
    const int64_t flushBytes = options.cache == CachePolicy::Flush ? options.resolvedFlushBytes(l2) : 0;
    std::unique_ptr<Flusher> flusher;
    if (flushBytes > 0)
        flusher = std::make_unique<Flusher>(flushBytes);

    addGpuState(result.environment, device, "gpu.before.");

    // 2. Warm-up, each implementation in turn.
    std::vector<Warmup> warmups;
    for (const auto& impl : implementations) {
        warmups.push_back(warmUp(impl, options, s, events));
        say(context, "warm-up: " + impl.name + ", " + std::to_string(warmups.back().calls) + " calls");
    }

    // 3. Rounds; the order rotates each round so no implementation always runs first (on a
    //    colder device) or last.
    const size_t n = implementations.size();
    std::vector<std::vector<double>> rounds(n);
    std::vector<std::vector<std::vector<double>>> calls(n);
    std::vector<std::vector<int>> positions(n);
    for (int r = 0; r < options.rounds; ++r) {
        for (size_t pos = 0; pos < n; ++pos) {
            const size_t i = options.alternate ? (pos + static_cast<size_t>(r)) % n : pos;
            if (options.cooldownMs > 0)
                std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.cooldownMs));
            double value = 0;
            auto c = measureRound(implementations[i], options, s, events, flusher.get(), value);
            rounds[i].push_back(value);
            if (perCall)
                calls[i].push_back(std::move(c));
            positions[i].push_back(static_cast<int>(pos));
        }
    }
    addGpuState(result.environment, device, "gpu.after.");

    for (size_t i = 0; i < n; ++i) {
        const auto& impl = implementations[i];
        BenchRunResult run;
        run.workload = context.workload;
        run.implementation = impl.name;
        run.size = context.size;
        run.dtype = context.dtype;
        run.options = options;
        run.flushBytes = flushBytes;
        run.unit = "us";
        run.boundary = describeBoundary(impl.operation, options.timer, options.cache, options.repeat, flushBytes);
        run.workFlops = impl.workFlops;
        run.workBytes = impl.workBytes;
        run.throughputKind = impl.throughputKind;
        run.workText = impl.workText;
        run.warmupCalls = warmups[i].calls;
        run.warmupElapsedMs = warmups[i].elapsedMs;
        run.warmupChunks = warmups[i].chunksUs;
        run.rounds = std::move(rounds[i]);
        run.calls = std::move(calls[i]);
        run.roundPositions = std::move(positions[i]);
        run.check = checks[i];
        run.warnings = driftWarnings(run);
        for (const auto& w : run.warnings)
            say(context, "warning: " + impl.name + ": " + w);
        result.runs.push_back(std::move(run));
    }
    return result;
}

void saveJson(const BenchResult& result, const std::string& path)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
    out << toJson(result);
    out.close();
    if (!out)
        throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

} // namespace ws::bench

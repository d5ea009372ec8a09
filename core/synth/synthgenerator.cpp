// SPDX-License-Identifier: MIT
#include "core/synth/synthgenerator.h"

#include "core/store/sessionerror.h"
#include "core/store/sessionwriter.h"

#include <algorithm>
#include <array>
#include <string>

namespace ws {

namespace {

// xoshiro256** seeded through splitmix64: fully specified, so the same seed gives the same
// session with any compiler and standard library (std:: distributions do not promise that).
class Rng {
public:
    explicit Rng(uint64_t seed)
    {
        for (auto& s : m_s) {
            seed += 0x9E3779B97F4A7C15ULL;
            uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
            s = z ^ (z >> 31);
        }
    }
    uint64_t next()
    {
        const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    // Uniform in [lo, hi]; the modulo bias is irrelevant for synthetic timings.
    int64_t range(int64_t lo, int64_t hi)
    {
        return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return unit() < p; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::array<uint64_t, 4> m_s {};
};

struct KernelKind {
    const char* mangled;
    const char* demangled;
    const char* shortName;
    int64_t durationNs; // typical duration on an H200
    int32_t grid[3];
    int32_t block[3];
    int32_t cluster[3];
    int32_t registers;
    int32_t staticSmem;
    int32_t dynamicSmem;
};

// Names as CUPTI reports them: mangled C++ (checked with c++filt), extern "C" library kernels.
constexpr KernelKind kKernels[] = {
    {"_Z17embedding_forwardPKiPKfPfii", "embedding_forward(int const*, float const*, float*, int, int)",
        "embedding_forward", 30000, {1024, 1, 1}, {256, 1, 1}, {0, 0, 0}, 32, 0, 0},
    {"_Z16layernorm_kernelPKfS0_S0_Pfiif",
        "layernorm_kernel(float const*, float const*, float const*, float*, int, int, float)", "layernorm_kernel",
        18000, {2048, 1, 1}, {256, 1, 1}, {0, 0, 0}, 40, 2048, 0},
    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
        "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 420000, {2, 66, 1}, {384, 1, 1}, {2, 1, 1}, 168, 0, 213188},
    {"_Z23rotary_embedding_kernelPfPKfS1_ii", "rotary_embedding_kernel(float*, float const*, float const*, int, int)",
        "rotary_embedding_kernel", 11000, {512, 1, 1}, {256, 1, 1}, {0, 0, 0}, 28, 0, 0},
    {"_Z21flash_attn_fwd_kernelPK6__halfS1_S1_PS_iiif",
        "flash_attn_fwd_kernel(__half const*, __half const*, __half const*, __half*, int, int, int, float)",
        "flash_attn_fwd_kernel", 350000, {64, 32, 1}, {128, 1, 1}, {0, 0, 0}, 255, 0, 98304},
    {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
     "cublas",
        "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
        "cublas",
        "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
        "cublas",
        600000, {132, 1, 1}, {384, 1, 1}, {1, 1, 1}, 168, 0, 196608},
    {"_Z11gelu_kernelPKfPfi", "gelu_kernel(float const*, float*, int)", "gelu_kernel", 12000, {528, 1, 1}, {512, 1, 1},
        {0, 0, 0}, 16, 0, 0},
    {"_Z10add_kernelPKfS0_Pfi", "add_kernel(float const*, float const*, float*, int)", "add_kernel", 6000, {528, 1, 1},
        {512, 1, 1}, {0, 0, 0}, 16, 0, 0},
    {"_Z20cross_entropy_kernelPKfPKiPfii", "cross_entropy_kernel(float const*, int const*, float*, int, int)",
        "cross_entropy_kernel", 20000, {256, 1, 1}, {256, 1, 1}, {0, 0, 0}, 38, 1024, 0},
    {"_Z14softmax_kernelILi256EEvPKfPfii", "void softmax_kernel<256>(float const*, float*, int, int)", "softmax_kernel",
        25000, {1024, 1, 1}, {256, 1, 1}, {0, 0, 0}, 30, 1024, 0},
    {"_Z14softmax_kernelILi128EEvPKfPfii", "void softmax_kernel<128>(float const*, float*, int, int)", "softmax_kernel",
        21000, {2048, 1, 1}, {128, 1, 1}, {0, 0, 0}, 30, 512, 0},
    {"_Z12matmul_tiledILi32EEvPKfS1_Pfiii", "void matmul_tiled<32>(float const*, float const*, float*, int, int, int)",
        "matmul_tiled", 150000, {64, 64, 1}, {32, 32, 1}, {0, 0, 0}, 64, 8192, 0},
    {"_Z16transpose_kernelPfPKfii", "transpose_kernel(float*, float const*, int, int)", "transpose_kernel", 22000,
        {128, 128, 1}, {32, 8, 1}, {0, 0, 0}, 20, 4224, 0},
    {"ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn", 250000, {32, 16, 1}, {128, 1, 1},
        {0, 0, 0}, 122, 32768, 0},
    {"_Z18dropout_fwd_kernelPfPKfPhfmy",
        "dropout_fwd_kernel(float*, float const*, unsigned char*, float, unsigned long, unsigned long long)",
        "dropout_fwd_kernel", 9000, {528, 1, 1}, {512, 1, 1}, {0, 0, 0}, 24, 0, 0},
    {"_Z17reduce_sum_kernelILi512EEvPKfPfi", "void reduce_sum_kernel<512>(float const*, float*, int)",
        "reduce_sum_kernel", 15000, {264, 1, 1}, {512, 1, 1}, {0, 0, 0}, 26, 2048, 0},
    {"_Z17reduce_sum_kernelILi256EEvPKfPfi", "void reduce_sum_kernel<256>(float const*, float*, int)",
        "reduce_sum_kernel", 13000, {528, 1, 1}, {256, 1, 1}, {0, 0, 0}, 26, 1024, 0},
    {"_Z11relu_kernelPfi", "relu_kernel(float*, int)", "relu_kernel", 8000, {528, 1, 1}, {512, 1, 1}, {0, 0, 0}, 16, 0,
        0},
    {"_Z18adam_update_kernelPfS_S_PKfffffi",
        "adam_update_kernel(float*, float*, float*, float const*, float, float, float, float, int)",
        "adam_update_kernel", 90000, {1056, 1, 1}, {256, 1, 1}, {0, 0, 0}, 40, 0, 0},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> "
        ">(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
        "vectorized_elementwise_kernel", 4000, {1056, 1, 1}, {128, 1, 1}, {0, 0, 0}, 18, 0, 0},
    {"_Z16histogram_atomicPKjPji", "histogram_atomic(unsigned int const*, unsigned int*, int)", "histogram_atomic",
        40000, {264, 1, 1}, {256, 1, 1}, {0, 0, 0}, 22, 1024, 0},
    {"_Z12scale_kernelPff", "scale_kernel(float*, float)", "scale_kernel", 5000, {528, 1, 1}, {512, 1, 1}, {0, 0, 0},
        12, 0, 0},
    {"_Z11copy_kernelPKfPfi", "copy_kernel(float const*, float*, int)", "copy_kernel", 7000, {528, 1, 1}, {512, 1, 1},
        {0, 0, 0}, 14, 0, 0},
    {"_Z13im2col_kernelPKfPfiiiii", "im2col_kernel(float const*, float*, int, int, int, int, int)", "im2col_kernel",
        35000, {1024, 1, 1}, {256, 1, 1}, {0, 0, 0}, 36, 0, 0},
    {"_Z19bias_add_relu_fusedP6__halfPKS_ii", "bias_add_relu_fused(__half*, __half const*, int, int)",
        "bias_add_relu_fused", 9500, {528, 1, 1}, {512, 1, 1}, {0, 0, 0}, 20, 0, 0},
    {"_Z24sgd_momentum_step_kernelPfS_PKfffi",
        "sgd_momentum_step_kernel(float*, float*, float const*, float, float, int)", "sgd_momentum_step_kernel", 60000,
        {1056, 1, 1}, {256, 1, 1}, {0, 0, 0}, 30, 0, 0},
};

enum Kernel : uint32_t {
    kEmbedding,
    kLayernorm,
    kNvjetGemm,
    kRotary,
    kFlashAttn,
    kXmmaGemm,
    kGelu,
    kAdd,
    kCrossEntropy,
    kSoftmax256,
    kSoftmax128,
    kMatmulTiled,
    kTranspose,
    kSgemm,
    kDropout,
    kReduce512,
    kReduce256,
    kRelu,
    kAdam,
    kFill,
    kHistogram,
    kScale,
    kCopy,
    kIm2col,
    kBiasRelu,
    kSgd,
};

struct ApiKind {
    const char* name;
    ApiDomain domain;
    int32_t cbid;
};

constexpr ApiKind kApis[] = {
    {"cudaLaunchKernel_v7000", ApiDomain::Runtime, 211},
    {"cuLaunchKernel", ApiDomain::Driver, 307},
    {"cudaMemcpyAsync_v3020", ApiDomain::Runtime, 41},
    {"cudaMemsetAsync_v3020", ApiDomain::Runtime, 51},
    {"cudaStreamSynchronize_v3020", ApiDomain::Runtime, 131},
    {"cudaEventRecord_v3020", ApiDomain::Runtime, 135},
    {"cudaGetLastError_v3020", ApiDomain::Runtime, 10},
};
enum Api : uint32_t { kApiLaunch, kApiDriverLaunch, kApiMemcpy, kApiMemset, kApiSync, kApiEventRecord, kApiLastError };

constexpr const char* kNvtxNames[]
    = {"train_step", "forward", "backward", "optimizer", "attention", "mlp", "step begin"};
enum Nvtx : uint32_t { kStep, kForward, kBackward, kOptimizer, kAttention, kMlp, kStepMark };
constexpr int kMaxLayers = 6;
constexpr uint32_t kNvtxColors[] = {0xFF76B900, 0xFF1F77B4, 0xFFFF7F0E, 0xFF2CA02C, 0xFFD62728, 0xFF9467BD};

// Monotonic clock of the synthetic host at the first event: 1000 s after boot.
constexpr TimeNs kClockStart = 1'000'000'000'000;
// Wall clock at kClockStart: 2026-01-01T00:00:00Z.
constexpr TimeNs kRealtimeAnchor = 1'767'225'600'000'000'000;

struct Action {
    enum class Type : uint8_t { Push, Pop, Launch, Memcpy, Memset, Sync, Misc, Mark };
    Type type = Type::Misc;
    uint32_t arg = 0; // kernel, NVTX name, API
    int64_t bytes = 0;
    bool onCopyStream = false;
    CopyKind copyKind = CopyKind::Unknown;
};

int64_t cost(const Action& a)
{
    // Events an action produces; NVTX ranges are counted when pushed, so popping is free.
    switch (a.type) {
    case Action::Type::Push:
    case Action::Type::Misc:
    case Action::Type::Mark:
        return 1;
    case Action::Type::Pop:
        return 0;
    case Action::Type::Launch:
        return 3; // runtime call, nested driver call, kernel
    case Action::Type::Memcpy:
    case Action::Type::Memset:
    case Action::Type::Sync:
        return 2; // runtime call and the GPU operation / sync record
    }
    return 1;
}

struct StreamState {
    int64_t pid = 0;
    uint32_t device = 0;
    uint32_t streamId = 0;
    TimeNs freeAt = 0;
};

struct ThreadState {
    size_t process = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    uint32_t device = 0;
    size_t computeStream = 0;
    size_t copyStream = 0;
    bool main = false;
    Rng rng {0};
    TimeNs clock = 0;
    std::vector<Action> plan;
    size_t cursor = 0;
    int64_t iteration = 0;
    std::vector<NvtxRangeRecord> ranges; // of the current outermost range, in start order
    std::vector<size_t> open;            // indices into `ranges`
};

DeviceInfo h200(uint32_t id, int64_t pid)
{
    // Properties of the H200 the project records on (../shared/reference/cupti-on-h200.md).
    DeviceInfo d;
    d.id = id;
    d.pid = pid;
    d.name = "NVIDIA H200";
    d.uuid = "GPU-5f1c9a2e-7b3d-4c8e-9a61-0000000000" + std::to_string(10 + id);
    d.ccMajor = 9;
    d.ccMinor = 0;
    d.smCount = 132;
    d.smClockKhz = 1980000;
    d.smClockMaxKhz = 1980000;
    d.memClockKhz = 3201000;
    d.memBusWidthBits = 6144;
    d.l2Bytes = 52428800;
    d.globalMemBytes = 143771LL * 1024 * 1024;
    d.regsPerSm = 65536;
    d.regsPerBlock = 65536;
    d.smemPerSm = 233472;
    d.smemPerBlock = 49152;
    d.smemPerBlockOptin = 232448;
    d.smemReservedPerBlock = 1024;
    d.maxWarpsPerSm = 64;
    d.maxBlocksPerSm = 32;
    d.maxThreadsPerBlock = 1024;
    d.warpSize = 32;
    const double clockHz = 1.98e9;
    d.dramBandwidthBytesPerS = 2.0 * 3201e6 * 6144 / 8;
    d.peakFp32FlopsPerS = 132 * 128 * 2 * clockHz;
    d.peakFp64FlopsPerS = 132 * 64 * 2 * clockHz;
    d.peakFp16TensorFlopsPerS = 132 * 4096 * clockHz;
    d.peakBf16TensorFlopsPerS = 132 * 4096 * clockHz;
    d.peakFp8TensorFlopsPerS = 132 * 8192 * clockHz;
    d.peakTf32TensorFlopsPerS = 132 * 2048 * clockHz;
    d.l2BandwidthBytesPerS = 132 * 64 * clockHz;
    d.l1BandwidthBytesPerS = 132 * 128 * clockHz;
    return d;
}

double nsPerByte(CopyKind kind)
{
    switch (kind) {
    case CopyKind::HtoD:
    case CopyKind::DtoH:
        return 1.0 / 25.0; // ~25 GB/s over PCIe 5 with pinned memory
    case CopyKind::DtoD:
        return 1.0 / 2000.0;
    case CopyKind::PtoP:
        return 1.0 / 300.0;
    default:
        return 1.0 / 10.0;
    }
}

} // namespace

struct SynthGenerator::State {
    SynthOptions options;
    SessionData header;
    std::vector<uint32_t> correlation; // per process
    std::vector<ThreadState> threads;
    std::vector<StreamState> streams;
    std::vector<StringId> kernelMangled, kernelDemangled, kernelShort, apiName, nvtxName, layerName;
    int64_t counted = 0; // events produced or promised (open NVTX ranges)
    bool finished = false;
    int64_t nextKernel = 1, nextMemcpy = 1, nextMemset = 1, nextApi = 1, nextRange = 1, nextMark = 1, nextSync = 1;
    SessionData* out = nullptr;

    void plan(ThreadState& t);
    void execute(ThreadState& t, const Action& a);
    void push(ThreadState& t, uint32_t name);
    void pop(ThreadState& t);
    ApiCallRecord& api(ThreadState& t, Api kind, TimeNs start, TimeNs end, uint32_t correlationId);
    TimeNs gpuStart(ThreadState& t, StreamState& s, TimeNs apiStart);
};

void SynthGenerator::State::plan(ThreadState& t)
{
    auto& rng = t.rng;
    std::vector<Action>& p = t.plan;
    p.clear();
    t.cursor = 0;
    const auto push = [&p](uint32_t name) { p.push_back({Action::Type::Push, name}); };
    const auto pop = [&p] { p.push_back({Action::Type::Pop}); };
    const auto launch = [&p](uint32_t kernel) { p.push_back({Action::Type::Launch, kernel}); };
    const int layers = static_cast<int>(rng.range(2, 4));

    if (t.main)
        p.push_back({Action::Type::Mark, kStepMark});
    push(kStep);
    p.push_back({Action::Type::Memcpy, kApiMemcpy, rng.range(4, 64) << 20, true, CopyKind::HtoD});
    launch(kEmbedding);
    push(kForward);
    for (int l = 0; l < layers; ++l) {
        push(layerName[static_cast<size_t>(l)]);
        push(kAttention);
        for (const uint32_t k : {kLayernorm, kNvjetGemm, kRotary, kFlashAttn, kNvjetGemm})
            launch(k);
        pop();
        push(kMlp);
        launch(kLayernorm);
        launch(kXmmaGemm);
        launch(rng.chance(0.3) ? kBiasRelu : kGelu);
        launch(kXmmaGemm);
        launch(kAdd);
        pop();
        pop();
    }
    pop();
    launch(kCrossEntropy);
    launch(rng.chance(0.5) ? kSoftmax256 : kSoftmax128);
    p.push_back({Action::Type::Misc, kApiEventRecord});
    push(kBackward);
    for (int l = layers - 1; l >= 0; --l) {
        push(layerName[static_cast<size_t>(l)]);
        launch(kMatmulTiled);
        launch(kTranspose);
        launch(rng.chance(0.5) ? kSgemm : kIm2col);
        launch(kDropout);
        launch(rng.chance(0.5) ? kReduce512 : kReduce256);
        launch(rng.chance(0.7) ? kRelu : kScale);
        if (rng.chance(0.2))
            p.push_back({Action::Type::Misc, kApiLastError});
        pop();
    }
    pop();
    push(kOptimizer);
    p.push_back({Action::Type::Memset, kApiMemset, rng.range(1, 256) << 20});
    launch(rng.chance(0.8) ? kAdam : kSgd);
    launch(kAdam);
    launch(kFill);
    launch(rng.chance(0.5) ? kHistogram : kCopy);
    pop();
    p.push_back({Action::Type::Memcpy, kApiMemcpy, 4 * rng.range(1, 1024), false, CopyKind::DtoH});
    if (rng.chance(0.125))
        p.push_back({Action::Type::Memcpy, kApiMemcpy, rng.range(1, 32) << 20, false,
            rng.chance(0.5) ? CopyKind::DtoD : CopyKind::PtoP});
    p.push_back({Action::Type::Sync, kApiSync});
    pop();
    ++t.iteration;
}

ApiCallRecord& SynthGenerator::State::api(ThreadState& t, Api kind, TimeNs start, TimeNs end, uint32_t correlationId)
{
    ApiCallRecord& r = out->apiCalls.emplace_back();
    r.id = nextApi++;
    r.pid = t.pid;
    r.tid = t.tid;
    r.correlationId = correlationId;
    r.start = start;
    r.end = end;
    r.domain = kApis[kind].domain;
    r.cbid = kApis[kind].cbid;
    r.name = apiName[kind];
    return r;
}

TimeNs SynthGenerator::State::gpuStart(ThreadState& t, StreamState& s, TimeNs apiStart)
{
    // Work starts after the API call that queued it (launch latency) and after the stream's
    // previous operation (streams execute in order).
    return std::max(apiStart + t.rng.range(2500, 6000), s.freeAt + t.rng.range(300, 1500));
}

void SynthGenerator::State::push(ThreadState& t, uint32_t name)
{
    t.clock += t.rng.range(200, 800);
    NvtxRangeRecord& r = t.ranges.emplace_back();
    r.pid = t.pid;
    r.tid = t.tid;
    r.endTid = t.tid;
    r.start = t.clock;
    r.end = t.clock;
    r.name = nvtxName[name];
    r.color = kNvtxColors[name % std::size(kNvtxColors)];
    r.style = NvtxStyle::PushPop;
    r.depth = static_cast<int32_t>(t.open.size());
    t.open.push_back(t.ranges.size() - 1);
}

void SynthGenerator::State::pop(ThreadState& t)
{
    if (t.open.empty())
        return;
    t.clock += t.rng.range(200, 800);
    t.ranges[t.open.back()].end = t.clock;
    t.open.pop_back();
    if (!t.open.empty())
        return;
    // The outermost range closed: its subtree is complete and already in start order.
    for (NvtxRangeRecord& r : t.ranges) {
        r.id = nextRange++;
        out->nvtxRanges.push_back(r);
    }
    t.ranges.clear();
}

void SynthGenerator::State::execute(ThreadState& t, const Action& a)
{
    auto& rng = t.rng;
    const uint32_t corr = ++correlation[t.process];
    switch (a.type) {
    case Action::Type::Push:
        --correlation[t.process]; // NVTX has no correlation id
        push(t, a.arg);
        return;
    case Action::Type::Pop:
        --correlation[t.process];
        pop(t);
        return;
    case Action::Type::Mark: {
        --correlation[t.process];
        t.clock += rng.range(100, 400);
        NvtxMarkRecord& m = out->nvtxMarks.emplace_back();
        m.id = nextMark++;
        m.pid = t.pid;
        m.tid = t.tid;
        m.ts = t.clock;
        m.name = nvtxName[a.arg];
        m.color = 0xFF808080;
        return;
    }
    case Action::Type::Misc: {
        const TimeNs start = t.clock + rng.range(300, 1500);
        const TimeNs end = start + (a.arg == kApiLastError ? rng.range(150, 500) : rng.range(500, 1500));
        api(t, static_cast<Api>(a.arg), start, end, corr);
        t.clock = end;
        return;
    }
    case Action::Type::Launch: {
        const KernelKind& k = kKernels[a.arg];
        StreamState& s = streams[t.computeStream];
        const TimeNs start = t.clock + rng.range(1000, 4000);
        const TimeNs end = start + rng.range(3000, 8000);
        api(t, kApiLaunch, start, end, corr);
        api(t, kApiDriverLaunch, start + rng.range(400, 900), end - rng.range(300, 700), corr);
        KernelRecord& r = out->kernels.emplace_back();
        r.id = nextKernel++;
        r.pid = t.pid;
        r.deviceId = s.device;
        r.contextId = 1;
        r.streamId = s.streamId;
        r.correlationId = corr;
        r.start = gpuStart(t, s, start);
        // Mostly within +-15 % of the typical duration, with an occasional slow outlier.
        const double jitter = 0.85 + 0.3 * rng.unit() + (rng.chance(0.02) ? 0.5 + rng.unit() : 0.0);
        r.end = r.start + std::max<int64_t>(1000, static_cast<int64_t>(static_cast<double>(k.durationNs) * jitter));
        r.mangledName = kernelMangled[a.arg];
        r.demangledName = kernelDemangled[a.arg];
        r.shortName = kernelShort[a.arg];
        r.gridX = k.grid[0], r.gridY = k.grid[1], r.gridZ = k.grid[2];
        r.blockX = k.block[0], r.blockY = k.block[1], r.blockZ = k.block[2];
        r.clusterX = k.cluster[0], r.clusterY = k.cluster[1], r.clusterZ = k.cluster[2];
        r.registersPerThread = k.registers;
        r.staticSmemBytes = k.staticSmem;
        r.dynamicSmemBytes = k.dynamicSmem;
        s.freeAt = r.end;
        t.clock = end;
        return;
    }
    case Action::Type::Memcpy: {
        StreamState& s = streams[a.onCopyStream ? t.copyStream : t.computeStream];
        const TimeNs start = t.clock + rng.range(1000, 4000);
        const TimeNs end = start + rng.range(4000, 9000);
        api(t, kApiMemcpy, start, end, corr);
        MemcpyRecord& r = out->memcpys.emplace_back();
        r.id = nextMemcpy++;
        r.pid = t.pid;
        r.deviceId = s.device;
        r.contextId = 1;
        r.streamId = s.streamId;
        r.correlationId = corr;
        r.start = gpuStart(t, s, start);
        r.end = r.start + 1500 + static_cast<int64_t>(static_cast<double>(a.bytes) * nsPerByte(a.copyKind));
        r.bytes = a.bytes;
        r.copyKind = a.copyKind;
        // CUpti_ActivityMemoryKind: 1 pageable, 2 device, 3 pinned.
        r.srcKind = a.copyKind == CopyKind::HtoD ? 3 : 2;
        r.dstKind = a.copyKind == CopyKind::DtoH ? 3 : 2;
        s.freeAt = r.end;
        t.clock = end;
        return;
    }
    case Action::Type::Memset: {
        StreamState& s = streams[t.computeStream];
        const TimeNs start = t.clock + rng.range(1000, 4000);
        const TimeNs end = start + rng.range(3000, 6000);
        api(t, kApiMemset, start, end, corr);
        MemsetRecord& r = out->memsets.emplace_back();
        r.id = nextMemset++;
        r.pid = t.pid;
        r.deviceId = s.device;
        r.contextId = 1;
        r.streamId = s.streamId;
        r.correlationId = corr;
        r.start = gpuStart(t, s, start);
        r.end = r.start + 1200 + a.bytes / 2500;
        r.bytes = a.bytes;
        r.value = 0;
        s.freeAt = r.end;
        t.clock = end;
        return;
    }
    case Action::Type::Sync: {
        StreamState& s = streams[t.computeStream];
        const TimeNs start = t.clock + rng.range(500, 2000);
        const TimeNs end = std::max(start + rng.range(800, 2000), s.freeAt + rng.range(1000, 3000));
        api(t, kApiSync, start, end, corr);
        SyncRecord& r = out->syncs.emplace_back();
        r.id = nextSync++;
        r.pid = t.pid;
        r.tid = t.tid;
        r.deviceId = s.device;
        r.contextId = 1;
        r.streamId = s.streamId;
        r.correlationId = corr;
        r.start = start;
        r.end = end;
        r.kind = SyncKind::StreamSynchronize;
        t.clock = end;
        return;
    }
    }
}

SynthGenerator::SynthGenerator(const SynthOptions& options)
    : d(std::make_unique<State>())
{
    SynthOptions& o = d->options;
    o = options;
    o.events = std::max<int64_t>(0, o.events);
    o.processes = std::clamp(o.processes, 1, 16);
    o.threadsPerProcess = std::clamp(o.threadsPerProcess, 1, 64);
    o.devicesPerProcess = std::clamp(o.devicesPerProcess, 1, 16);
    o.streamsPerDevice = std::clamp(o.streamsPerDevice, 1, 32);
    o.batchEvents = std::max<int64_t>(1024, o.batchEvents);

    SessionData& h = d->header;
    StringTable& strings = h.strings;
    for (const KernelKind& k : kKernels) {
        d->kernelMangled.push_back(strings.intern(k.mangled));
        d->kernelDemangled.push_back(strings.intern(k.demangled));
        d->kernelShort.push_back(strings.intern(k.shortName));
    }
    for (const ApiKind& a : kApis)
        d->apiName.push_back(strings.intern(a.name));
    for (const char* n : kNvtxNames)
        d->nvtxName.push_back(strings.intern(n));
    for (int l = 0; l < kMaxLayers; ++l) {
        d->layerName.push_back(static_cast<uint32_t>(d->nvtxName.size()));
        d->nvtxName.push_back(strings.intern("layer " + std::to_string(l)));
    }

    h.meta["synthetic"] = "1";
    h.meta["synthetic_seed"] = std::to_string(o.seed);
    h.meta["synthetic_events"] = std::to_string(o.events);
    h.environment["host"] = "synthetic";
    h.environment["os"] = "Linux (synthetic)";
    h.environment["driver_version"] = "580.65.06";
    h.environment["cuda_version"] = "13.0";
    h.environment["cupti_version"] = "26";
    h.environment["command_line"] = "python3 train.py --synthetic";

    Rng layout(o.seed ^ 0xA5A5A5A5DEADBEEFULL);
    for (int p = 0; p < o.processes; ++p) {
        const int64_t pid = 41000 + 1000 * p + layout.range(0, 999);
        ProcessInfo& proc = h.processes.emplace_back();
        proc.pid = pid;
        proc.name = "python3";
        proc.commandLine = "python3 train.py --synthetic --rank " + std::to_string(p);
        proc.exitCode = 0;
        proc.anchorRealtimeNs = kRealtimeAnchor;
        proc.anchorMonotonicNs = kClockStart;
        proc.parentPid = 40000;
        d->correlation.push_back(0);
        const size_t firstStream = d->streams.size();
        for (int dev = 0; dev < o.devicesPerProcess; ++dev) {
            h.devices.push_back(h200(static_cast<uint32_t>(dev), pid));
            for (int s = 0; s < o.streamsPerDevice; ++s) {
                // CUPTI numbers the legacy default stream 7 and created streams from 13 on.
                const uint32_t streamId = s == 0 ? 7u : 12u + static_cast<uint32_t>(s);
                StreamInfo& info = h.streams.emplace_back();
                info.pid = pid;
                info.deviceId = static_cast<uint32_t>(dev);
                info.contextId = 1;
                info.streamId = streamId;
                info.priority = s == o.streamsPerDevice - 1 && s > 0 ? -1 : 0;
                info.label
                    = s == 0 ? "default" : (s == o.streamsPerDevice - 1 ? "copy" : "compute " + std::to_string(s));
                d->streams.push_back({pid, static_cast<uint32_t>(dev), streamId, kClockStart});
            }
        }
        for (int t = 0; t < o.threadsPerProcess; ++t) {
            ThreadInfo& info = h.threads.emplace_back();
            info.pid = pid;
            info.tid = pid + (t == 0 ? 0 : 10 + t);
            info.name = t == 0 ? "python3" : "worker " + std::to_string(t);
            ThreadState& ts = d->threads.emplace_back();
            ts.process = static_cast<size_t>(p);
            ts.pid = pid;
            ts.tid = info.tid;
            ts.main = t == 0;
            ts.device = static_cast<uint32_t>(t % o.devicesPerProcess);
            const size_t deviceStreams = firstStream + ts.device * static_cast<size_t>(o.streamsPerDevice);
            // Compute on the default or a compute stream, copies on the device's last stream.
            const int computeSlots = std::max(1, o.streamsPerDevice - 1);
            ts.computeStream = deviceStreams + static_cast<size_t>((t / o.devicesPerProcess) % computeSlots);
            ts.copyStream = deviceStreams + static_cast<size_t>(o.streamsPerDevice - 1);
            ts.rng = Rng(o.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(ts.tid));
            ts.clock = kClockStart + ts.rng.range(0, 200000);
        }
    }
}

SynthGenerator::~SynthGenerator() = default;

const SessionData& SynthGenerator::header() const
{
    return d->header;
}

int64_t SynthGenerator::eventsProduced() const
{
    return d->counted;
}

bool SynthGenerator::next(SessionData& batch)
{
    batch.kernels.clear();
    batch.memcpys.clear();
    batch.memsets.clear();
    batch.apiCalls.clear();
    batch.nvtxRanges.clear();
    batch.nvtxMarks.clear();
    batch.syncs.clear();
    if (d->finished)
        return false;
    d->out = &batch;
    const int64_t limit = d->counted + d->options.batchEvents;
    while (d->counted < limit) {
        const int64_t remaining = d->options.events - d->counted;
        if (remaining <= 0) {
            // Close every open range at its thread's clock; they were counted when pushed.
            for (ThreadState& t : d->threads) {
                while (!t.open.empty())
                    d->pop(t);
            }
            d->finished = true;
            break;
        }
        // The thread furthest behind acts next, so API calls come in global time order.
        ThreadState* t = &d->threads.front();
        for (ThreadState& candidate : d->threads) {
            if (candidate.clock < t->clock)
                t = &candidate;
        }
        if (t->cursor >= t->plan.size())
            d->plan(*t);
        Action action = t->plan[t->cursor];
        if (cost(action) > remaining) {
            // The last one or two events: a cheap API call that fits the exact count.
            action = Action {Action::Type::Misc, kApiLastError};
        } else {
            ++t->cursor;
        }
        d->counted += cost(action);
        d->execute(*t, action);
    }
    d->out = nullptr;
    return true;
}

void writeSyntheticSession(const SynthOptions& options, SessionWriter& writer, const ProgressCallback& progress,
    const CancellationToken& cancel)
{
    SynthGenerator generator(options);
    writer.writeHeaderTables(generator.header());
    SessionData batch;
    const double total = static_cast<double>(std::max<int64_t>(1, options.events));
    while (generator.next(batch)) {
        if (cancel.isCancelled())
            throw SessionError(
                SessionError::Kind::Cancelled, writer.path(), "writing the synthetic session was cancelled");
        writer.appendApiCalls(batch.apiCalls);
        writer.appendKernels(batch.kernels);
        writer.appendMemcpys(batch.memcpys);
        writer.appendMemsets(batch.memsets);
        writer.appendNvtxRanges(batch.nvtxRanges);
        writer.appendNvtxMarks(batch.nvtxMarks);
        writer.appendSyncs(batch.syncs);
        if (progress)
            progress(std::min(1.0, static_cast<double>(generator.eventsProduced()) / total), "writing events");
    }
}

SessionData makeSyntheticSession(const SynthOptions& options)
{
    SynthGenerator generator(options);
    SessionData data = generator.header();
    SessionData batch;
    while (generator.next(batch)) {
        const auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
        append(data.kernels, batch.kernels);
        append(data.memcpys, batch.memcpys);
        append(data.memsets, batch.memsets);
        append(data.apiCalls, batch.apiCalls);
        append(data.nvtxRanges, batch.nvtxRanges);
        append(data.nvtxMarks, batch.nvtxMarks);
        append(data.syncs, batch.syncs);
    }
    return data;
}

} // namespace ws

// Experiment (not part of the product): what ptxas does around an in-kernel event in a loop with
// a runtime trip count, per way of reading the timers and storing.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
__device__ __forceinline__ uint32_t clkAsmMem()
{
    uint64_t c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return (uint32_t)c;
}
__device__ __forceinline__ uint32_t clkAsm()
{
    uint64_t c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
    return (uint32_t)c;
}
__device__ __forceinline__ uint32_t clkLo()
{
    uint32_t c;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(c));
    return c;
}
__device__ __forceinline__ uint32_t gtAsmMem()
{
    uint32_t g;
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(g)::"memory");
    return g;
}
__device__ __forceinline__ uint32_t gtVol()
{
    uint32_t g;
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(g));
    return g;
}
__device__ __forceinline__ uint32_t gtDep(uint32_t c)
{
    uint32_t g;
    asm("mov.u32 %0, %%globaltimer_lo;" : "=r"(g) : "r"(c));
    return g;
}
__device__ __forceinline__ void stAsm(uint32_t on, void* dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.u32 p, %0, 0;\n @p st.global.cs.v4.u32 [%1], {%2, %3, %4, %5};\n}" ::"r"(on),
        "l"(dst), "r"(a), "r"(b), "r"(c), "r"(d));
}
// V: 0 none; 1 asm+memory (today); 2 asm, no memory clobber; 3 clock64() builtin + gt volatile + __stcs;
//    4 clock64() + gt dep + __stcs; 5 asm+memory timers, __stcs store; 6 %clock (32-bit) + gt volatile + asm store
template <int V> __global__ void k(int steps, int work, float* sink, uint4* buf, uint32_t scratch)
{
    float x = threadIdx.x;
    uint32_t n = 0;
    const uint32_t on = (threadIdx.x & 31) == 0;
    uint4 prev = make_uint4(0, 0, 0, 0);
    for (int i = 0; i < steps; ++i) {
        if constexpr (V == 7 || V == 8) {
            // The previous event's registers stay live until this call (folded into this event's
            // token), so the compiler cannot reuse them right after the store that reads them.
            const uint32_t c = V == 7 ? clkAsmMem() : clkLo();
            const uint32_t g = gtAsmMem();
            const uint4 e = make_uint4(c, g, 4u << 16, prev.x ^ prev.y ^ prev.z ^ prev.w);
            stAsm(on, buf + min(n, scratch), e.x, e.y, e.z, e.w);
            prev = e;
            ++n;
        } else if constexpr (V != 0) {
            uint32_t c, g;
            if constexpr (V == 1 || V == 5) {
                c = clkAsmMem();
                g = gtAsmMem();
            } else if constexpr (V == 2) {
                c = clkAsm();
                g = gtVol();
            } else if constexpr (V == 3) {
                c = (uint32_t)clock64();
                g = gtVol();
            } else if constexpr (V == 4) {
                c = (uint32_t)clock64();
                g = gtDep(c);
            } else {
                c = clkLo();
                g = gtVol();
            }
            uint4* p = buf + min(n, scratch);
            if constexpr (V == 3 || V == 4 || V == 5) {
                if (on)
                    __stcs(p, make_uint4(c, g, 4u << 16, 0u));
            } else
                stAsm(on, p, c, g, 4u << 16, 0u);
            ++n;
        }
        for (int j = 0; j < work; ++j)
            x = fmaf(x, 1.0001f, 0.5f);
    }
    if (x == 12345.f)
        sink[0] = x + prev.w;
}
template <int V> float timeIt(int steps, int work, float* sink, uint4* buf, int reps)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(a);
        k<V><<<132, 128>>>(steps, work, sink, buf, steps);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
int main()
{
    const int steps = 1000, work = 490, reps = 15;
    float* sink;
    uint4* buf;
    cudaMalloc(&sink, 4);
    cudaMalloc(&buf, sizeof(uint4) * 132 * 128 * (steps + 1));
    const char* names[] = {"none", "asm+memory (today)", "asm, no memory clobber", "clock64() + gt volatile + __stcs",
        "clock64() + gt dep + __stcs", "asm+memory timers + __stcs", "%clock32 + gt volatile + asm store",
        "asm+memory, previous event kept live", "%clock32, previous event kept live"};
    float med[9][3];
    for (int round = 0; round < 3; ++round) {
        med[0][round] = timeIt<0>(steps, work, sink, buf, reps);
        med[1][round] = timeIt<1>(steps, work, sink, buf, reps);
        med[2][round] = timeIt<2>(steps, work, sink, buf, reps);
        med[3][round] = timeIt<3>(steps, work, sink, buf, reps);
        med[4][round] = timeIt<4>(steps, work, sink, buf, reps);
        med[5][round] = timeIt<5>(steps, work, sink, buf, reps);
        med[6][round] = timeIt<6>(steps, work, sink, buf, reps);
        med[7][round] = timeIt<7>(steps, work, sink, buf, reps);
        med[8][round] = timeIt<8>(steps, work, sink, buf, reps);
    }
    printf("# 132 CTAs x 4 warps, %d marks per warp, %d dependent FMAs after each (runtime trip count), median of %d, "
           "3 rounds interleaved\n",
        steps, work, reps);
    printf("variant,median_us_round1,round2,round3,ns_per_event_round1,round2,round3\n");
    for (int v = 0; v < 9; ++v)
        printf("\"%s\",%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", names[v], med[v][0], med[v][1], med[v][2],
            (med[v][0] - med[0][0]) * 1000 / steps, (med[v][1] - med[0][1]) * 1000 / steps,
            (med[v][2] - med[0][2]) * 1000 / steps);
    return cudaDeviceSynchronize() != cudaSuccess;
}

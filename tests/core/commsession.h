// SPDX-License-Identifier: MIT
#pragma once

// Random multi-process, multi-device sessions with NCCL kernels and peer copies for the
// multi-GPU tests (core, cli, ui): data-parallel-like ranks, each driving one or more GPUs
// with several streams, compute and communication interleaved and overlapping across streams.
// Times stay below `horizon` so a per-nanosecond oracle can check the interval arithmetic.

#include "core/model/commranks.h"
#include "core/model/sessiondata.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace ws::test {

struct CommSessionOptions {
    uint64_t seed = 1;
    int processes = 2;
    int devices = 2;           // device ordinals 0..devices-1
    int devicesPerProcess = 1; // process p drives devices (p + d) % devices
    int streamsPerDevice = 3;
    int kernelsPerStream = 12;
    TimeNs horizon = 4000;
    bool ranks = true; // RANK / LOCAL_RANK / WORLD_SIZE in meta, as ingest stores them
};

inline constexpr int64_t kFirstPid = 4242;

// Names as the tools write them; the first kComputeNames are compute.
inline const std::vector<std::string>& commSessionKernelNames()
{
    static const std::vector<std::string> names = {
        "gemm_kernel",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
        "_Z12relu_forwardPfi",
        // communication
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)",
        "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
        "ncclDevKernel_SendRecv",
    };
    return names;
}
inline constexpr size_t kComputeNames = 4;

inline SessionData makeCommSession(const CommSessionOptions& o)
{
    SessionData s;
    std::mt19937_64 rng(o.seed);
    const auto uniform = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    const auto& names = commSessionKernelNames();
    std::vector<StringId> ids;
    for (const auto& n : names)
        ids.push_back(s.strings.intern(n));

    for (int d = 0; d < o.devices; ++d) {
        DeviceInfo dev;
        dev.id = static_cast<uint32_t>(d);
        dev.pid = kFirstPid + (d % o.processes);
        dev.name = "NVIDIA H200";
        dev.uuid = "GPU-" + std::to_string(d);
        s.devices.push_back(dev);
    }
    int64_t nextId = 1; // renumbered in start order below
    for (int p = 0; p < o.processes; ++p) {
        const int64_t pid = kFirstPid + p;
        ProcessInfo proc;
        proc.pid = pid;
        proc.name = "python3";
        proc.commandLine = "python3 ddp_step.py";
        proc.parentPid = 4000;
        // Each process has its own (REALTIME, MONOTONIC) anchor, read at its own start.
        proc.anchorRealtimeNs = 1'795'956'000'000'000'000 + p * 1000;
        proc.anchorMonotonicNs = 14'000'000'000'000 + p * 1000;
        s.processes.push_back(proc);
        s.threads.push_back({pid, pid, "python3"});
        if (o.ranks) {
            s.meta[rankMetaKey("rank", pid)] = std::to_string(p);
            s.meta[rankMetaKey("local_rank", pid)] = std::to_string(p);
            s.meta[rankMetaKey("world_size", pid)] = std::to_string(o.processes);
        }
        for (int dd = 0; dd < o.devicesPerProcess; ++dd) {
            const auto device = static_cast<uint32_t>((p + dd) % o.devices);
            for (int st = 0; st < o.streamsPerDevice; ++st) {
                const auto stream = static_cast<uint32_t>(7 + st);
                s.streams.push_back({pid, device, 1, stream, 0, ""});
                // One stream's work is sequential; streams overlap one another.
                TimeNs t = uniform(0, o.horizon / 8);
                for (int k = 0; k < o.kernelsPerStream && t < o.horizon; ++k) {
                    const TimeNs len = uniform(0, 9) == 0 ? 0 : uniform(1, o.horizon / 10);
                    const TimeNs end = std::min(o.horizon, t + len);
                    const int64_t what = uniform(0, 9);
                    if (what == 0) { // a copy: peer or host-to-device
                        MemcpyRecord m;
                        m.id = nextId++;
                        m.pid = pid;
                        m.deviceId = device;
                        m.contextId = 1;
                        m.streamId = stream;
                        m.start = t;
                        m.end = end;
                        m.bytes = 1 << 20;
                        m.copyKind = uniform(0, 1) ? CopyKind::PtoP : CopyKind::HtoD;
                        s.memcpys.push_back(m);
                    } else {
                        KernelRecord kr;
                        kr.id = nextId++;
                        kr.pid = pid;
                        kr.deviceId = device;
                        kr.contextId = 1;
                        kr.streamId = stream;
                        kr.start = t;
                        kr.end = end;
                        const auto n = static_cast<size_t>(uniform(0, static_cast<int64_t>(names.size()) - 1));
                        // Importers fill different name columns; the classifier must read any.
                        if (names[n].rfind("_Z", 0) == 0)
                            kr.mangledName = ids[n];
                        else if (uniform(0, 1))
                            kr.demangledName = ids[n];
                        else
                            kr.shortName = ids[n];
                        kr.gridX = kr.gridY = kr.gridZ = 1;
                        kr.blockX = 128;
                        kr.blockY = kr.blockZ = 1;
                        s.kernels.push_back(kr);
                    }
                    t = end + uniform(0, o.horizon / 20);
                }
            }
        }
    }
    // Ids follow start order, as ingest numbers them.
    std::stable_sort(s.kernels.begin(), s.kernels.end(),
        [](const KernelRecord& a, const KernelRecord& b) { return a.start < b.start; });
    std::stable_sort(s.memcpys.begin(), s.memcpys.end(),
        [](const MemcpyRecord& a, const MemcpyRecord& b) { return a.start < b.start; });
    for (size_t i = 0; i < s.kernels.size(); ++i)
        s.kernels[i].id = static_cast<int64_t>(i + 1);
    for (size_t i = 0; i < s.memcpys.size(); ++i)
        s.memcpys[i].id = static_cast<int64_t>(i + 1);
    return s;
}

} // namespace ws::test

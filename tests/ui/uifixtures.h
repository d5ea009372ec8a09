// SPDX-License-Identifier: MIT
#pragma once

// Hand-made sessions for the ui tests: lanes with known events, so every expectation can be
// computed from the numbers written here.

#include "core/timeline/timelinemodel.h"
#include "ui/session/sessionsnapshot.h"

#include <memory>
#include <random>
#include <string>

namespace ws::test {

struct EventSpec {
    TimeNs start;
    TimeNs end;
    const char* name;
    EventTable table = EventTable::Kernel;
};

inline TimelineLane makeLane(TimelineModel& m, LaneKind kind, int64_t pid, int64_t tid, uint32_t device,
    uint32_t stream, int depth, const std::string& label, std::initializer_list<EventSpec> events)
{
    TimelineLane l;
    l.kind = kind;
    l.pid = pid;
    l.tid = tid;
    l.deviceId = device;
    l.streamId = stream;
    l.depth = depth;
    l.label = label;
    int64_t row = 1;
    for (const auto& e : events) {
        l.start.push_back(e.start);
        l.appendEnd(e.end);
        l.name.push_back(m.strings.intern(e.name));
        l.ref.push_back(EventRef::make(e.table, row++));
    }
    return l;
}

// Process 100 (thread 100: API depth 0, NVTX depth 0 and 1), GPU 0 (streams 7 and 13) and a
// counter on GPU 0. Times are in ns from 1'000'000.
inline std::shared_ptr<SessionSnapshot> smallSession(bool withCounter = true)
{
    auto m = std::make_shared<TimelineModel>();
    constexpr TimeNs t0 = 1'000'000;
    m->processes.push_back({100, "python3", "python3 train.py", 0, 0, 0, 0, 1});
    m->threads.push_back({100, 100, "main"});
    DeviceInfo d;
    d.id = 0;
    d.pid = 100;
    d.name = "NVIDIA H200";
    m->devices.push_back(d);
    m->lanes.push_back(makeLane(*m, LaneKind::CudaApi, 100, 100, 0, 0, 0, "CUDA API",
        {{t0 + 0, t0 + 5'000, "cudaLaunchKernel", EventTable::ApiCall},
            {t0 + 10'000, t0 + 14'000, "cudaLaunchKernel", EventTable::ApiCall},
            {t0 + 20'000, t0 + 90'000, "cudaStreamSynchronize", EventTable::ApiCall}}));
    m->lanes.push_back(makeLane(
        *m, LaneKind::Nvtx, 100, 100, 0, 0, 0, "NVTX", {{t0 + 0, t0 + 95'000, "step", EventTable::NvtxRange}}));
    m->lanes.push_back(makeLane(*m, LaneKind::Nvtx, 100, 100, 0, 0, 1, "NVTX (depth 1)",
        {{t0 + 0, t0 + 40'000, "forward", EventTable::NvtxRange},
            {t0 + 40'000, t0 + 95'000, "backward", EventTable::NvtxRange}}));
    m->lanes.push_back(makeLane(*m, LaneKind::GpuStream, 100, 0, 0, 7, 0, "stream 7",
        {{t0 + 6'000, t0 + 30'000, "gemm_kernel"}, {t0 + 50'000, t0 + 80'000, "relu_kernel"}}));
    m->lanes.push_back(makeLane(*m, LaneKind::GpuStream, 100, 0, 0, 13, 0, "stream 13",
        {{t0 + 15'000, t0 + 25'000, "[CUDA memcpy Host-to-Device]", EventTable::Memcpy}}));
    m->begin = t0;
    m->end = t0 + 100'000;
    m->eventCount = 9;
    std::vector<CounterSeries> counters;
    if (withCounter) {
        CounterSeries c({t0, t0 + 25'000, t0 + 50'000, t0 + 75'000}, {10.0, 80.0, 40.0, 95.0});
        c.trackId = 1;
        c.pid = 100;
        c.deviceId = 0;
        c.name = "sm_active";
        c.unit = "%";
        counters.push_back(std::move(c));
    }
    return SessionSnapshot::build(m, std::move(counters), {});
}

// One GPU stream with `n` events: random sub-microsecond kernels in bursts, for LOD tests.
inline std::shared_ptr<SessionSnapshot> denseSession(size_t n, uint64_t seed)
{
    auto m = std::make_shared<TimelineModel>();
    m->processes.push_back({1, "bench", "bench", 0, 0, 0, 0, 0});
    TimelineLane l;
    l.kind = LaneKind::GpuStream;
    l.pid = 1;
    l.streamId = 7;
    l.label = "stream 7";
    const StringId names[] = {m->strings.intern("k_small"), m->strings.intern("k_mid"), m->strings.intern("k_big")};
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> dur(50, 900);
    std::uniform_int_distribution<int> gap(0, 400);
    TimeNs t = 0;
    l.start.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        t += (i % 10000 == 9999) ? 5'000'000 : gap(rng); // idle gaps between bursts
        const TimeNs d = dur(rng);
        l.start.push_back(t);
        l.appendEnd(t + d);
        l.name.push_back(names[d % 3]);
        l.ref.push_back(EventRef::make(EventTable::Kernel, static_cast<int64_t>(i + 1)));
        t += d;
    }
    m->begin = 0;
    m->end = t;
    m->eventCount = static_cast<int64_t>(n);
    m->lanes.push_back(std::move(l));
    return SessionSnapshot::build(m, {}, {});
}

} // namespace ws::test

// SPDX-License-Identifier: MIT
#pragma once

// Sessions with cross-stream dependencies built in code: a program is a list of calls in issue
// order (launch a kernel on a stream, record an event on a stream, make a stream wait for an
// event, synchronise on an event). streamDepSession turns it into what the recorder would have
// stored: kernels with their launch API calls, event_op rows, streams, and GPU times from a
// small simulation of the streams (a kernel starts when its stream is free and every event its
// stream waited for has completed), so the timeline tests can draw it.
#include "core/model/sessiondata.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ws::test {

struct DepCall {
    enum class Op { Launch, Record, Wait, Sync } op = Op::Launch;
    uint32_t stream = 0;
    uint64_t event = 0;
    std::string name; // Launch: the kernel's name
    int64_t pid = 100;
    int32_t returnValue = 0;
    TimeNs duration = 10'000; // Launch: GPU time
};

inline DepCall launch(uint32_t stream, std::string name, TimeNs duration = 10'000, int64_t pid = 100)
{
    return {DepCall::Op::Launch, stream, 0, std::move(name), pid, 0, duration};
}
inline DepCall record(uint64_t event, uint32_t stream, int64_t pid = 100)
{
    return {DepCall::Op::Record, stream, event, {}, pid};
}
inline DepCall wait(uint32_t stream, uint64_t event, int64_t pid = 100)
{
    return {DepCall::Op::Wait, stream, event, {}, pid};
}
inline DepCall sync(uint64_t event, int64_t pid = 100)
{
    return {DepCall::Op::Sync, 0, event, {}, pid};
}

struct DepSessionOptions {
    TimeNs hostStep = 1'000;    // host time between two calls
    TimeNs launchLatency = 500; // a kernel starts no earlier than this after its launch call
    bool correlationIds = true; // false: event_op rows without correlation ids (issue order by time)
};

// Calls get correlation ids 1, 2, ... and host times hostStep, 2 hostStep, ... in list order.
inline SessionData streamDepSession(const std::vector<DepCall>& calls, const DepSessionOptions& o = {})
{
    SessionData d;
    std::map<int64_t, bool> pids;
    std::map<std::pair<int64_t, uint32_t>, bool> streams;
    std::map<std::pair<int64_t, uint32_t>, TimeNs> streamFree; // when the stream's last op ends
    std::map<std::pair<int64_t, uint64_t>, TimeNs> eventDone;  // completion of the latest record
    const StringId launchName = d.strings.intern("cudaLaunchKernel_v7000");
    for (size_t i = 0; i < calls.size(); ++i) {
        const DepCall& c = calls[i];
        const auto corr = static_cast<uint32_t>(i + 1);
        const TimeNs host = o.hostStep * static_cast<TimeNs>(i + 1);
        pids[c.pid] = true;
        const auto sk = std::make_pair(c.pid, c.stream);
        if (c.op != DepCall::Op::Sync)
            streams[sk] = true;
        if (c.op == DepCall::Op::Launch) {
            KernelRecord k;
            k.pid = c.pid;
            k.streamId = c.stream;
            k.correlationId = corr;
            k.start = std::max(host + o.launchLatency, streamFree[sk]);
            k.end = k.start + c.duration;
            streamFree[sk] = k.end;
            k.mangledName = k.demangledName = k.shortName = d.strings.intern(c.name);
            k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
            d.kernels.push_back(k);
            ApiCallRecord a;
            a.pid = c.pid;
            a.tid = c.pid + 1;
            a.correlationId = corr;
            a.start = host;
            a.end = host + o.hostStep / 4;
            a.cbid = 211;
            a.name = launchName;
            d.apiCalls.push_back(a);
            continue;
        }
        EventOpRecord e;
        e.pid = c.pid;
        e.tid = c.pid + 1;
        e.correlationId = o.correlationIds ? corr : 0;
        e.start = host;
        e.end = host + o.hostStep / 4;
        e.event = c.event;
        e.returnValue = c.returnValue;
        e.kind = c.op == DepCall::Op::Record ? EventOpKind::Record
            : c.op == DepCall::Op::Wait      ? EventOpKind::Wait
                                             : EventOpKind::Synchronize;
        e.streamId = c.op == DepCall::Op::Sync ? 0 : c.stream;
        e.stream = e.streamId * 0x1000;
        if (c.returnValue == 0) {
            if (c.op == DepCall::Op::Record)
                eventDone[{c.pid, c.event}] = std::max(host, streamFree[sk]);
            else if (c.op == DepCall::Op::Wait && eventDone.contains({c.pid, c.event}))
                streamFree[sk] = std::max(streamFree[sk], eventDone[{c.pid, c.event}]);
        }
        d.eventOps.push_back(e);
    }
    // Ids in start order, as ingest assigns them.
    std::stable_sort(d.kernels.begin(), d.kernels.end(),
        [](const KernelRecord& a, const KernelRecord& b) { return a.start < b.start; });
    for (size_t i = 0; i < d.kernels.size(); ++i)
        d.kernels[i].id = static_cast<int64_t>(i) + 1;
    for (size_t i = 0; i < d.apiCalls.size(); ++i)
        d.apiCalls[i].id = static_cast<int64_t>(i) + 1;
    for (size_t i = 0; i < d.eventOps.size(); ++i)
        d.eventOps[i].id = static_cast<int64_t>(i) + 1;
    for (const auto& [pid, _] : pids) {
        ProcessInfo p;
        p.pid = pid;
        p.name = "prog";
        p.exitCode = 0;
        d.processes.push_back(p);
        ThreadInfo t;
        t.pid = pid;
        t.tid = pid + 1;
        t.name = "main";
        d.threads.push_back(t);
        DeviceInfo dev;
        dev.pid = pid;
        dev.name = "test GPU";
        d.devices.push_back(dev);
    }
    for (const auto& [key, _] : streams) {
        StreamInfo s;
        s.pid = key.first;
        s.streamId = key.second;
        d.streams.push_back(s);
    }
    return d;
}

} // namespace ws::test

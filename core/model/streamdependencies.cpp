// SPDX-License-Identifier: MIT
#include "core/model/streamdependencies.h"

#include "core/model/launchindex.h"
#include "core/model/recordsource.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace ws {

namespace {

// Issue order of two calls of one process: correlation ids when both have one, else host times.
bool issuedBefore(uint32_t corrA, TimeNs timeA, uint32_t corrB, TimeNs timeB)
{
    if (corrA != 0 && corrB != 0)
        return corrA < corrB;
    return timeA < timeB;
}

using StreamKey = std::pair<int64_t, uint32_t>; // (pid, stream id)

// The GPU ops of one stream in issue order.
struct StreamOps {
    std::vector<const GpuOp*> ops;

    const GpuOp* lastBefore(uint32_t corr, TimeNs time) const
    {
        if (corr != 0) {
            // Ops without a correlation id sort first and are never "before" by id; the
            // binary search covers the ops that have one.
            const auto it = std::lower_bound(
                ops.begin(), ops.end(), corr, [](const GpuOp* o, uint32_t c) { return o->correlationId < c; });
            for (auto i = it; i != ops.begin();) {
                --i;
                if ((*i)->correlationId != 0)
                    return *i;
            }
            return nullptr;
        }
        const GpuOp* best = nullptr;
        for (const GpuOp* o : ops)
            if (o->issued < time && (!best || o->issued >= best->issued))
                best = o;
        return best;
    }

    const GpuOp* firstAfter(uint32_t corr, TimeNs time) const
    {
        if (corr != 0) {
            const auto it = std::upper_bound(
                ops.begin(), ops.end(), corr, [](uint32_t c, const GpuOp* o) { return c < o->correlationId; });
            return it == ops.end() ? nullptr : *it;
        }
        const GpuOp* best = nullptr;
        for (const GpuOp* o : ops)
            if (o->issued > time && (!best || o->issued < best->issued))
                best = o;
        return best;
    }
};

} // namespace

std::vector<GpuOp> gpuOpsOf(const SessionData& data)
{
    const MemoryRecordSource source(data);
    const LaunchIndex launches(source);
    std::vector<GpuOp> ops;
    ops.reserve(data.kernels.size() + data.memcpys.size() + data.memsets.size());
    const auto add = [&](GpuOpRef::Table table, const auto& rows) {
        for (const auto& r : rows) {
            GpuOp o;
            o.ref = {table, r.id};
            o.pid = r.pid;
            o.streamId = r.streamId;
            o.correlationId = r.correlationId;
            o.start = r.start;
            o.end = r.end;
            const auto* launch = launches.find(r.pid, r.correlationId);
            o.issued = launch ? launch->start : r.start;
            ops.push_back(o);
        }
    };
    add(GpuOpRef::Table::Kernel, data.kernels);
    add(GpuOpRef::Table::Memcpy, data.memcpys);
    add(GpuOpRef::Table::Memset, data.memsets);
    return ops;
}

void anchorEventOps(std::span<EventOpRecord> eventOps, std::span<const GpuOp> ops)
{
    std::map<StreamKey, StreamOps> streams;
    for (const GpuOp& o : ops)
        streams[{o.pid, o.streamId}].ops.push_back(&o);
    for (auto& [key, s] : streams)
        std::stable_sort(s.ops.begin(), s.ops.end(), [](const GpuOp* a, const GpuOp* b) {
            return std::tie(a->correlationId, a->issued) < std::tie(b->correlationId, b->issued);
        });
    for (EventOpRecord& e : eventOps) {
        e.opTable = static_cast<int32_t>(GpuOpRef::Table::None);
        e.opId = 0;
        e.opStart = e.opEnd = 0;
        if (e.kind == EventOpKind::Synchronize)
            continue;
        const auto s = streams.find({e.pid, e.streamId});
        if (s == streams.end())
            continue;
        const GpuOp* o = e.kind == EventOpKind::Record ? s->second.lastBefore(e.correlationId, e.start)
                                                       : s->second.firstAfter(e.correlationId, e.start);
        if (!o)
            continue;
        e.opTable = static_cast<int32_t>(o->ref.table);
        e.opId = o->ref.id;
        e.opStart = o->start;
        e.opEnd = o->end;
    }
}

void anchorEventOps(SessionData& data)
{
    if (data.eventOps.empty())
        return;
    const std::vector<GpuOp> ops = gpuOpsOf(data);
    anchorEventOps(data.eventOps, ops);
}

bool allAnchored(std::span<const EventOpRecord> eventOps)
{
    return std::all_of(eventOps.begin(), eventOps.end(), [](const EventOpRecord& e) { return e.opTable >= 0; });
}

std::vector<StreamDependency> pairEventOps(std::span<const EventOpRecord> eventOps)
{
    // Records per (pid, event), for finding the one in effect at a wait.
    std::map<std::pair<int64_t, uint64_t>, std::vector<const EventOpRecord*>> records;
    for (const EventOpRecord& e : eventOps)
        if (e.kind == EventOpKind::Record && e.returnValue == 0)
            records[{e.pid, e.event}].push_back(&e);

    std::vector<const EventOpRecord*> waits;
    for (const EventOpRecord& e : eventOps)
        if (e.kind != EventOpKind::Record && e.returnValue == 0)
            waits.push_back(&e);
    std::stable_sort(waits.begin(), waits.end(), [](const auto* a, const auto* b) { return a->id < b->id; });

    const auto anchor = [](const EventOpRecord& e) {
        return e.opTable > 0 ? GpuOpRef {static_cast<GpuOpRef::Table>(e.opTable), e.opId} : GpuOpRef {};
    };
    std::vector<StreamDependency> out;
    for (const EventOpRecord* w : waits) {
        const auto rs = records.find({w->pid, w->event});
        if (rs == records.end())
            continue;
        const EventOpRecord* record = nullptr;
        for (const EventOpRecord* r : rs->second) {
            if (!issuedBefore(r->correlationId, r->start, w->correlationId, w->start))
                continue;
            if (!record || issuedBefore(record->correlationId, record->start, r->correlationId, r->start))
                record = r;
        }
        if (!record || record->streamId == 0)
            continue;
        const bool hostWait = w->kind == EventOpKind::Synchronize;
        if (!hostWait && (w->streamId == 0 || w->streamId == record->streamId))
            continue;

        StreamDependency d;
        d.pid = w->pid;
        d.event = w->event;
        d.recordId = record->id;
        d.waitId = w->id;
        d.waitKind = w->kind;
        d.producerStream = record->streamId;
        d.consumerStream = hostWait ? 0 : w->streamId;
        d.recordTime = record->start;
        d.waitTime = w->start;
        d.producer = anchor(*record);
        if (d.producer.valid()) {
            d.producerStart = record->opStart;
            d.producerEnd = record->opEnd;
        }
        if (!hostWait) {
            d.consumer = anchor(*w);
            if (d.consumer.valid()) {
                d.consumerStart = w->opStart;
                d.consumerEnd = w->opEnd;
            }
        }
        out.push_back(d);
    }
    return out;
}

std::vector<StreamDependency> deriveStreamDependencies(
    std::span<const EventOpRecord> eventOps, std::span<const GpuOp> ops)
{
    std::vector<EventOpRecord> anchored(eventOps.begin(), eventOps.end());
    anchorEventOps(anchored, ops);
    return pairEventOps(anchored);
}

std::vector<StreamDependency> deriveStreamDependencies(const SessionData& data)
{
    if (data.eventOps.empty())
        return {};
    const std::vector<GpuOp> ops = gpuOpsOf(data);
    return deriveStreamDependencies(data.eventOps, ops);
}

const char* eventOpName(const EventOpRecord& e)
{
    const bool driver = e.domain == ApiDomain::Driver;
    switch (e.kind) {
    case EventOpKind::Record:
        return driver ? "cuEventRecord" : "cudaEventRecord";
    case EventOpKind::Wait:
        return driver ? "cuStreamWaitEvent" : "cudaStreamWaitEvent";
    case EventOpKind::Synchronize:
        return driver ? "cuEventSynchronize" : "cudaEventSynchronize";
    }
    return "event";
}

std::vector<StreamDependency> dependenciesOf(std::span<const StreamDependency> all, GpuOpRef op)
{
    std::vector<StreamDependency> out;
    for (const StreamDependency& d : all)
        if (d.consumer == op)
            out.push_back(d);
    return out;
}

} // namespace ws

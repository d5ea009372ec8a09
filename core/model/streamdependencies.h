// SPDX-License-Identifier: MIT
#pragma once

// Cross-stream dependencies, derived from the event_op rows (event records, stream waits,
// event synchronisations) and the GPU work of the session:
//
//   record(E) on stream A  ->  the GPU op that completes before it on A (the producer)
//   wait(E) on stream B    ->  the first GPU op on B after the wait (the consumer)
//
// A wait waits for the latest record of its event that the process issued before it (CUDA's
// rule); a wait on an event never recorded is a no-op and gives no dependency, and neither does
// a record and a wait on one stream (the stream's own order already holds). "Before" and
// "after" are in issue order: CUPTI correlation ids, which every API call of a process takes
// from one counter, or the host times of the calls where a record has no correlation id.
// cudaEventSynchronize is a dependency of the host thread on the producer (no consumer op).

#include "core/model/sessiondata.h"

#include <cstdint>
#include <span>
#include <vector>

namespace ws {

// A piece of GPU work on a stream: a kernel, copy or memset row.
struct GpuOpRef {
    enum class Table : int32_t { None = 0, Kernel = 1, Memcpy = 2, Memset = 3 };
    Table table = Table::None;
    int64_t id = 0;
    bool valid() const { return table != Table::None; }
    bool operator==(const GpuOpRef&) const = default;
    auto operator<=>(const GpuOpRef&) const = default;
};

// What the derivation needs of one GPU op.
struct GpuOp {
    GpuOpRef ref;
    int64_t pid = 0;
    uint32_t streamId = 0;
    uint32_t correlationId = 0;
    TimeNs issued = 0; // host time of the API call that issued it (its GPU start when unknown)
    TimeNs start = 0;
    TimeNs end = 0;
};

struct StreamDependency {
    int64_t pid = 0;
    uint64_t event = 0;
    int64_t recordId = 0; // event_op ids
    int64_t waitId = 0;
    EventOpKind waitKind = EventOpKind::Wait; // Wait, or Synchronize (the host waits)
    uint32_t producerStream = 0;
    uint32_t consumerStream = 0; // 0 for Synchronize
    TimeNs recordTime = 0;       // host time of the record and wait calls
    TimeNs waitTime = 0;
    GpuOpRef producer; // invalid when the recording stream had no work before the record
    TimeNs producerStart = 0, producerEnd = 0;
    GpuOpRef consumer; // invalid for Synchronize, or when nothing followed the wait
    TimeNs consumerStart = 0, consumerEnd = 0;
    bool operator==(const StreamDependency&) const = default;
};

// The session's GPU ops (kernels, copies, memsets), with issue times from their API calls.
std::vector<GpuOp> gpuOpsOf(const SessionData& data);

// Resolves each row's anchor (EventOpRecord::opTable, opId, opStart, opEnd) from `ops`: for a
// Record the last op issued on its stream before it, for a Wait the first op issued on its
// stream after it, none for a Synchronize. Ingest does this once, so readers pair the rows
// without the GPU tables.
void anchorEventOps(std::span<EventOpRecord> eventOps, std::span<const GpuOp> ops);
void anchorEventOps(SessionData& data);
bool allAnchored(std::span<const EventOpRecord> eventOps);

// Every dependency, in the order of the waits (event_op id), from anchored rows.
std::vector<StreamDependency> pairEventOps(std::span<const EventOpRecord> anchored);

// Anchors a copy of the rows from `ops`, then pairs them.
std::vector<StreamDependency> deriveStreamDependencies(
    std::span<const EventOpRecord> eventOps, std::span<const GpuOp> ops);
std::vector<StreamDependency> deriveStreamDependencies(const SessionData& data);

// "cudaEventRecord", "cuStreamWaitEvent", ...: the call an event_op row records.
const char* eventOpName(const EventOpRecord& e);

// The dependencies whose consumer is `op`: what it waited for.
std::vector<StreamDependency> dependenciesOf(std::span<const StreamDependency> all, GpuOpRef op);

} // namespace ws

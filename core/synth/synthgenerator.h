// SPDX-License-Identifier: MIT
#pragma once

// Deterministic synthetic sessions for tests and benchmarks: a training-loop-like workload
// (nested NVTX ranges, CUDA runtime + driver calls, kernels, copies, memsets, stream syncs)
// on several processes, threads, devices and streams. The same (events, seed) always gives
// identical tables; only meta.created and meta.tool_version depend on when and by what.

#include "core/model/sessiondata.h"
#include "core/util/cancellation.h"

#include <cstdint>
#include <memory>

namespace ws {

class SessionWriter;

struct SynthOptions {
    int64_t events = 100000; // rows over kernel, memcpy, memset, api_call, nvtx_range, nvtx_mark, sync
    uint64_t seed = 1;
    int processes = 2;
    int threadsPerProcess = 4;
    int devicesPerProcess = 2;
    int streamsPerDevice = 3;
    int64_t batchEvents = 1 << 16; // events per append batch (memory use is about this many)
};

// Produces a synthetic session batch by batch, never holding more than one batch of events.
class SynthGenerator {
public:
    explicit SynthGenerator(const SynthOptions& options);
    ~SynthGenerator();
    SynthGenerator(const SynthGenerator&) = delete;
    SynthGenerator& operator=(const SynthGenerator&) = delete;

    // Strings, meta, environment, processes, threads, devices and streams: known up front.
    const SessionData& header() const;

    // Clears the event tables of `batch` and fills them with the next events (about
    // batchEvents of them). Returns false once every event was produced (batch then empty).
    bool next(SessionData& batch);

    int64_t eventsProduced() const;

private:
    struct State;
    std::unique_ptr<State> d;
};

// Streams a synthetic session into `writer` (header tables, then events in batches). The
// caller commits. Progress is events written / events; cancellation throws SessionError(Cancelled).
void writeSyntheticSession(const SynthOptions& options, SessionWriter& writer, const ProgressCallback& progress = {},
    const CancellationToken& cancel = {});

// The same session in memory (tests; small event counts).
SessionData makeSyntheticSession(const SynthOptions& options);

} // namespace ws

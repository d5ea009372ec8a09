// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace ws::inject {

class Recorder;

// `record --gpu-metrics`: CUPTI PM sampling of the first GPU the program uses, as counter
// tracks (tensor pipe, DRAM throughput, warps active). A sampler thread sets it up once the
// device's first context exists, decodes the hardware buffer every 10 ms and writes one
// PmSample record per completed sample that overlaps a capture window (the first sample is
// always written: ingest drops it, since it spans time from before Start). Failures become
// messages in the raw file; the trace goes on without metrics.
namespace pm {

// From the CONTEXT_CREATED callback. Starts the sampler on the first call when
// WS_GPU_METRICS_PERIOD_NS is set. `ctx` is the CUcontext.
void contextCreated(Recorder& recorder, void* ctx, uint32_t deviceOrdinal);

// From Recorder::startCapture/stopCapture: samples outside capture windows are not written.
void captureChanged(Recorder& recorder, bool capturing, int64_t nowNs);

// The exit path: stops sampling and writes what is left. Idempotent.
void shutdown();

} // namespace pm
} // namespace ws::inject

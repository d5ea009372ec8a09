// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace ws::inject {

class Recorder;

// `record --gpu-metrics`: CUPTI PM sampling of the first GPU the program uses, as counter
// tracks (tensor pipe, DRAM throughput, warps active). Set up in the device's first
// CONTEXT_CREATED callback; then a decode thread empties the hardware buffer into counter-data
// images every ~128 sampling periods (raw::pmSizing), and evaluator threads turn each image
// into PmSample records for the samples that overlap a capture window (the first sample is
// always written: ingest drops it, since it spans time from before Start). Every stretch without
// samples becomes a PmGap record. At the program's end sampling stops at once and the rest is
// decoded (samples after the end are idle time and are skipped). Failures become messages in
// the raw file; the trace goes on without metrics.
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

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"

#include <cstdint>
#include <ostream>

namespace ws {

struct ChromeTraceSummary {
    int64_t events = 0;          // every element of traceEvents, metadata and flows included
    int64_t slices = 0;          // X events
    int64_t flows = 0;           // launch -> GPU work arrows (one "s" plus one "f" each)
    int64_t dependencyFlows = 0; // cross-stream dependency arrows (cat "dependency"), see below
};

// Writes a session as Chrome Trace Event JSON the way Perfetto's JSON importer reads it
// (nsight-formats.md section 5), streaming: events go out as they are visited, through a
// small buffer, so memory does not grow with the session (only the launch index does).
//
// Layout, per recorded process (pid = the real pid):
//   tid = real tid        CUDA runtime/driver API calls, X events (cat cuda_api/cuda_driver)
//   tid = 2^30 + n        "NVTX <thread>": push/pop ranges as X events, marks as thread
//                         instants; start/end ranges (which may overlap) are async b/e pairs
//   tid = 2^30 + n        "GPU <dev> stream <id>": kernels, memcpy, memset as X events
//   tid = 2^30 + n        "kernel #<id> block <b> · <role> · warp <w>": in-kernel trace events
//                         (cat iket): push/pop ranges as X events, marks as thread instants,
//                         asynchronous ranges as b/e pairs (cat iket_async, id 2^40 + row id);
//                         sorted after the GPU streams, in the process that ran the kernel
// Synthetic tids start at 2^30, far above Linux thread ids (pid_max <= 2^22). Every track
// gets process_name/thread_name metadata before its first event. Each GPU operation whose
// launch call is recorded gets a v1 flow: "s" 1 ns into the API slice (so that a driver call
// nested in the runtime call is not the one picked), "f" (bp "e") at the GPU slice's midpoint,
// each with its own id, so one API call may fan out to many kernels (graph launches).
// Cross-stream dependencies (event_op, core/model/streamdependencies.h): event records, stream
// waits and event synchronisations are X slices (cat cuda_event) on a "CUDA events <thread>"
// track; each dependency gets a flow record -> wait -> first GPU op after the wait ("s", "t",
// "f", name "event 0x<handle>") and a flow producer op -> that op (name "waited for"), both
// cat "dependency", ids from 2^50.
// ts/dur are microseconds with 3 decimals (exact ns), relative to the session's first
// event; the origin in ns is kept in otherData.time_origin_ns. Syncs are not exported.
//
// Throws std::runtime_error when the stream fails.
ChromeTraceSummary writeChromeTrace(const RecordSource& source, std::ostream& out);

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string_view>

namespace ws::inject {

class Recorder;

// `record --nvtx-timing NAME`: GPU-stream time of every instance of the named NVTX ranges in an
// unmodified program. At push/start the recorder records a CUDA event on the legacy default
// stream of the thread's current context, at the matching pop/end another; a resolver thread
// reads cuEventElapsedTime once the end event completed and writes an NvtxTiming record.
// Boundary: the legacy default stream orders against every blocking stream, so the interval
// covers the work the program queued on the default stream and on blocking streams between push
// and pop; work on non-blocking streams (cudaStreamNonBlocking) or on the per-thread default
// stream is not bracketed.
namespace nvtxtiming {

// From the NVTX injection. `level` is the push's nesting level on this thread (the value
// nvtxRangePush returns), which the matching pop returns too.
void pushed(Recorder& recorder, std::string_view name, int level);
void popped(Recorder& recorder, int level);
void started(Recorder& recorder, std::string_view name, uint64_t rangeId);
void ended(Recorder& recorder, uint64_t rangeId);

// The exit path: waits for outstanding end events and writes their records. Idempotent.
void shutdown();

} // namespace nvtxtiming
} // namespace ws::inject

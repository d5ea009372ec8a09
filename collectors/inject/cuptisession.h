// SPDX-License-Identifier: MIT
#pragma once

#include "activityconverter.h"

#include <cstddef>
#include <cstdint>

namespace ws::inject {

class Recorder;
class RawWriter;

// Everything that talks to CUPTI and the driver: activity setup, API filtering, buffer
// conversion, device properties.
namespace cupti {

// Called from InitializeInjection (inside cuInit). False when CUPTI could not be set up; the
// reason is recorded as an error message in the raw file.
bool initialize(Recorder& recorder);

// Turns activity collection on or off (capture ranges, --duration).
void enableActivity();
void disableActivity();

// cuptiActivityFlushAll: forced at exit, otherwise only buffers whose records are complete.
void flush(bool forced);

// Converts the records of one completed CUPTI buffer into raw frames on `writer`
// (ActivityConverter), and hands the buffer to the capture when WS_CUPTI_CAPTURE is set.
void convertBuffer(uint8_t* buffer, size_t validBytes, RawWriter& writer, ConverterCache& cache);

// Queries that must not run inside CUDA callbacks: current clocks through NVML, the CUDA
// runtime version. Run by the writer thread.
void runDeferredQueries(Recorder& recorder);

} // namespace cupti
} // namespace ws::inject

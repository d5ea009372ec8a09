// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

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

// Per-writer-thread caches so converting a buffer takes no lock per record.
struct ConverterCache {
    std::unordered_map<std::string, uint32_t> names;
    std::unordered_map<uint64_t, uint32_t> apiNames; // (domain << 32 | cbid) -> string id
    std::unordered_map<int64_t, bool> threadsNamed;
};

// Converts the records of one completed CUPTI buffer into raw frames on `writer`.
void convertBuffer(uint8_t* buffer, size_t validBytes, RawWriter& writer, ConverterCache& cache);

// Queries that must not run inside CUDA callbacks: current clocks through NVML, the CUDA
// runtime version. Run by the writer thread.
void runDeferredQueries(Recorder& recorder);

} // namespace cupti
} // namespace ws::inject

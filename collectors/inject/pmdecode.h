// SPDX-License-Identifier: MIT
#pragma once

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The part of PM sampling that needs no GPU: reading a decoded counter-data image (how many
// samples it holds, each one's interval, each one's metric values). The sampler runs it in the
// target process; tests/pm decodes a counter-data image captured on the H200 with the same code.
namespace ws::inject::pm {

// A profiler host object for PM sampling evaluation: chip name, the device's counter
// availability image (may be empty) and the metrics. CUPTI keeps pointers to `chip` and
// `availability`: they must outlive the host object. On failure returns nullptr and says which
// call failed in `error`.
CUpti_Profiler_Host_Object* createHost(const std::string& chip, const std::vector<uint8_t>& availability,
    std::vector<const char*>& names, std::string& error, CUptiResult* result = nullptr);
void destroyHost(CUpti_Profiler_Host_Object* host);

// Completed samples in a decoded image (0 when the image cannot be read).
size_t completedSamples(const std::vector<uint8_t>& image);

// Start and end of sample `index`, in CUPTI's clock. `object` is the PM sampling object that
// decoded the image (nullptr offline).
CUptiResult sampleTimes(
    CUpti_PmSampling_Object* object, const std::vector<uint8_t>& image, size_t index, uint64_t& start, uint64_t& end);

// The metric values of sample `index` into `values` (names.size() doubles).
CUptiResult evaluate(CUpti_Profiler_Host_Object* host, const std::vector<uint8_t>& image, size_t index,
    std::vector<const char*>& names, double* values);

std::string resultText(CUptiResult r);

} // namespace ws::inject::pm

// SPDX-License-Identifier: MIT
#pragma once

#include <cuda.h>
#include <cupti_result.h>

#include <cstddef>
#include <string>

namespace ws::profiler {

// A zeroed CUPTI/NVPW parameter struct with its structSize set (brace-initialising only the
// size trips -Wmissing-field-initializers).
template <typename T> T params(size_t structSize)
{
    T p {};
    p.structSize = structSize;
    return p;
}

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)" for messages.
std::string cuptiStatus(CUptiResult r);

// "what: CUDA_ERROR_ILLEGAL_ADDRESS" for messages about a failed driver call.
std::string driverStatus(const char* what, CUresult r);

// The user-facing explanation for errors that have a known remedy, empty otherwise.
std::string cuptiRemedy(CUptiResult r);

} // namespace ws::profiler

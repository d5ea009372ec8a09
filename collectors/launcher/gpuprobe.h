// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace ws {

// Whether this machine can run CUDA, and whether the injection library can be loaded here,
// asked in a short-lived child process so the launcher itself never loads the driver or CUPTI.
struct GpuProbe {
    bool driverUsable = false; // libcuda loads, cuInit succeeds, at least one device
    int deviceCount = 0;
    std::string driverStatus; // one line: what was found or why CUDA is unusable
    bool injectionLoadable = false;
    std::string injectionStatus; // dlerror() text when it is not loadable

    // `injectionLibrary` empty: only the driver is probed.
    static GpuProbe run(const std::string& injectionLibrary);
};

} // namespace ws

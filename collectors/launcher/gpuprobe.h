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

// Where libwarpscope-inject.so is: $WS_INJECT_LIB if set, else next to the running
// executable in ../lib (installed and build trees alike: build/<dir>/bin/warpscope-cli and
// build/<dir>/lib/libwarpscope-inject.so), else in the executable's own directory. Empty when
// none of them exists; `searched` lists where it looked.
std::string findInjectionLibrary(std::string* searched = nullptr);

} // namespace ws

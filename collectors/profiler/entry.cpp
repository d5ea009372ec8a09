// SPDX-License-Identifier: MIT
// libwarpscope-profiler.so: loaded into the program by the CUDA driver through
// CUDA_INJECTION64_PATH for `warpscope-cli profile`. A separate library from the tracing
// injection (libwarpscope-inject.so) because CUPTI zeroes kernel timestamps when activity
// tracing and range profiling run in one process.
#include "kernelprofiler.h"

#include <cstdlib>

namespace {

void onExit()
{
    ws::profiler::KernelProfiler::instance().finish();
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    static bool done = false;
    if (done)
        return 1;
    done = true;
    if (ws::profiler::KernelProfiler::instance().initialize())
        std::atexit(onExit);
    return 1;
}

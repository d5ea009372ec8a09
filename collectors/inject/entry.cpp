// SPDX-License-Identifier: MIT
// libwarpscope-inject.so: loaded into the traced program by the CUDA driver
// (CUDA_INJECTION64_PATH, entry InitializeInjection, called inside cuInit) and by NVTX
// (NVTX_INJECTION64_PATH, entry InitializeInjectionNvtx2 in nvtxinjection.cpp). Both load
// the same file, so both entries share one Recorder.
#include "collectors/crash/crashreport.h"
#include "cuptisession.h"
#include "recorder.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    using namespace ws::inject;
    Recorder* r = Recorder::instance();
    if (!r)
        return 0;
    ws::crash::installReport("warpscope-inject", /*tracksActivity=*/false);
    // Runs after any earlier registration (e.g. from an NVTX call before cuInit), so the flush
    // at exit happens while the CUDA runtime is still up.
    r->registerExitHandler();
    return cupti::initialize(*r) ? 1 : 0;
}

// SPDX-License-Identifier: MIT
#include "cudadriver.h"

#include <atomic>
#include <dlfcn.h>

namespace ws::inject {

namespace {

template <typename Fn> void resolve(void* lib, const char* name, Fn& fn)
{
    fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

} // namespace

const CudaDriver* cudaDriver()
{
    // Leaked once complete (see Recorder: late NVTX calls may come after static destructors).
    static std::atomic<const CudaDriver*> resolved {nullptr};
    if (const CudaDriver* d = resolved.load(std::memory_order_acquire))
        return d;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
        return nullptr;
    auto* d = new CudaDriver;
    resolve(lib, "cuCtxGetCurrent", d->ctxGetCurrent);
    resolve(lib, "cuCtxSetCurrent", d->ctxSetCurrent);
    resolve(lib, "cuDeviceGet", d->deviceGet);
    resolve(lib, "cuEventCreate", d->eventCreate);
    // The plain (not _ptsz) entry: a null stream is then the legacy default stream.
    resolve(lib, "cuEventRecord", d->eventRecord);
    resolve(lib, "cuEventQuery", d->eventQuery);
    resolve(lib, "cuEventSynchronize", d->eventSynchronize);
    resolve(lib, "cuEventElapsedTime_v2", d->eventElapsedTime);
    if (!d->eventElapsedTime)
        resolve(lib, "cuEventElapsedTime", d->eventElapsedTime);
    resolve(lib, "cuEventDestroy_v2", d->eventDestroy);
    dlclose(lib); // drops only the reference RTLD_NOLOAD took; the program keeps libcuda loaded
    if (!d->ctxGetCurrent || !d->ctxSetCurrent || !d->eventCreate || !d->eventRecord || !d->eventQuery
        || !d->eventSynchronize || !d->eventElapsedTime) {
        delete d;
        return nullptr;
    }
    const CudaDriver* expected = nullptr;
    if (!resolved.compare_exchange_strong(expected, d)) {
        delete d;
        return expected;
    }
    return d;
}

} // namespace ws::inject

// SPDX-License-Identifier: MIT
#include "launcher/gpuprobe.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ws {

namespace {

// Runs `body` in a child and returns what it wrote to the pipe (at most a few KB).
template <typename Body> std::string inChild(Body body)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return {};
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return {};
    }
    if (pid == 0) {
        ::close(fds[0]);
        const std::string out = body();
        [[maybe_unused]] const auto n = ::write(fds[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[1024];
    for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof(buf));
        if (n > 0)
            out.append(buf, static_cast<size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    ::close(fds[0]);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) { }
    return out;
}

std::string probeDriver()
{
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda)
        return "0|no CUDA driver: libcuda.so.1 cannot be loaded";
    using InitFn = int (*)(unsigned);
    using CountFn = int (*)(int*);
    auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
    auto count = reinterpret_cast<CountFn>(dlsym(cuda, "cuDeviceGetCount"));
    if (!init || !count)
        return "0|no CUDA driver: libcuda.so.1 lacks cuInit";
    const int r = init(0);
    if (r != 0) {
        // 100 CUDA_ERROR_NO_DEVICE, 35 CUDA_ERROR_INSUFFICIENT_DRIVER, 999 unknown...
        const char* what = r == 100 ? "no CUDA-capable device"
            : r == 35               ? "driver too old for this CUDA"
                                    : "cuInit failed";
        return "0|" + std::string(what) + " (CUresult " + std::to_string(r) + ")";
    }
    int n = 0;
    count(&n);
    if (n <= 0)
        return "0|CUDA driver present but no device";
    return std::to_string(n) + "|" + std::to_string(n) + " CUDA device(s)";
}

std::string probeInjection(const std::string& lib)
{
    // RTLD_LAZY: we only ask whether the library and its dependencies (libcupti) resolve.
    void* h = dlopen(lib.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        return std::string("0|") + (e ? e : "cannot be loaded");
    }
    if (!dlsym(h, "InitializeInjection"))
        return "0|" + lib + " has no InitializeInjection entry point";
    return "1|ok";
}

std::pair<int, std::string> split(const std::string& s)
{
    const auto bar = s.find('|');
    if (bar == std::string::npos)
        return {0, "probe failed"};
    return {std::atoi(s.substr(0, bar).c_str()), s.substr(bar + 1)};
}

} // namespace

GpuProbe GpuProbe::run(const std::string& injectionLibrary)
{
    GpuProbe p;
    const auto [devices, status] = split(inChild(&probeDriver));
    p.deviceCount = devices;
    p.driverUsable = devices > 0;
    p.driverStatus = status;
    if (!injectionLibrary.empty()) {
        const auto [ok, why] = split(inChild([&] { return probeInjection(injectionLibrary); }));
        p.injectionLoadable = ok == 1;
        p.injectionStatus = why;
    } else {
        p.injectionStatus = "libwarpscope-inject.so not found";
    }
    return p;
}

} // namespace ws

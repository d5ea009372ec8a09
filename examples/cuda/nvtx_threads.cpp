// SPDX-License-Identifier: MIT
// Host-only NVTX workload (no GPU needed): the main thread and two workers push/pop nested
// ranges, one start/end range crosses threads, plus a named domain, a named category, a named
// thread, a registered string, colours and marks. The recorder's tests run it on machines
// without a GPU to exercise the NVTX injection, the launcher and ingest end to end.
// Options: --exit N (exit code), --crash (SIGSEGV after the work), --kill (SIGKILL),
// --sleep-ms N (pause before exiting/crashing, so a periodic flush can happen first),
// --child (re-run itself once as a child process).
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

void worker(int index, nvtxRangeId_t crossThreadRange)
{
    const std::string name = "worker " + std::to_string(index);
    nvtxNameOsThreadA(static_cast<uint32_t>(syscall(SYS_gettid)), name.c_str());
    for (int i = 0; i < 3; ++i) {
        nvtxRangePushA("outer");
        nvtxRangePushA("inner");
        nvtxRangePop();
        nvtxRangePop();
    }
    if (index == 1)
        nvtxRangeEnd(crossThreadRange); // started on the main thread
}

bool flag(int argc, char** argv, const char* name)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return true;
    return false;
}

int argInt(int argc, char** argv, const char* name, int fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return std::atoi(argv[i + 1]);
    return fallback;
}

} // namespace

int main(int argc, char** argv)
{
    nvtxNameCategoryA(7, "io");
    nvtxDomainHandle_t domain = nvtxDomainCreateA("ws.test");
    nvtxStringHandle_t registered = nvtxDomainRegisterStringA(domain, "registered name");

    nvtxEventAttributes_t a {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xff00ff00u;
    a.category = 7;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "main";
    nvtxRangePushEx(&a);

    const nvtxRangeId_t cross = nvtxRangeStartA("cross-thread");
    std::thread t0(worker, 0, cross), t1(worker, 1, cross);
    t0.join();
    t1.join();

    nvtxEventAttributes_t r {};
    r.version = NVTX_VERSION;
    r.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    r.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    r.message.registered = registered;
    nvtxDomainRangePushEx(domain, &r);
    nvtxDomainMarkEx(domain, &r);
    nvtxDomainRangePop(domain);
    nvtxMarkA("done");

    if (flag(argc, argv, "--child")) {
        const pid_t pid = fork();
        if (pid == 0) {
            execl("/proc/self/exe", argv[0], static_cast<char*>(nullptr));
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(argInt(argc, argv, "--sleep-ms", 0)));
    if (flag(argc, argv, "--crash"))
        std::raise(SIGSEGV); // "main" stays open: the session must close it at its end
    if (flag(argc, argv, "--kill"))
        std::raise(SIGKILL);
    nvtxRangePop();
    return argInt(argc, argv, "--exit", 0);
}

// SPDX-License-Identifier: MIT
#include "crashreport.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace ws::crash {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr int kSignalCount = sizeof kSignals / sizeof kSignals[0];

struct sigaction g_previous[kSignalCount];
const char* g_tool = "warpscope";
bool g_tracksActivity = true;
std::atomic<bool> g_installed {false};
std::atomic<bool> g_reporting {false};
// Two buffers: a writer fills the idle one and publishes it, so the handler never reads one
// half-written (it may read a note that was just replaced, which is still a whole note).
char g_notes[2][256];
std::atomic<int> g_current {-1};

// Where report() writes: stderr, then the report file. Async-signal-safe output: write(2) only.
int g_fd = STDERR_FILENO;
// WS_CRASH_DIR's value at installation; the handler writes <dir>/crash-<pid>.txt.
char g_dir[512];

void put(const char* s)
{
    if (!s)
        return;
    size_t n = std::strlen(s);
    while (n > 0) {
        const ssize_t w = ::write(g_fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= static_cast<size_t>(w);
    }
}

void putHex(uintptr_t v)
{
    char buf[2 + 2 * sizeof v + 1];
    char* p = buf + sizeof buf - 1;
    *p = 0;
    do {
        *--p = "0123456789abcdef"[v & 0xf];
        v >>= 4;
    } while (v);
    *--p = 'x';
    *--p = '0';
    put(p);
}

void putInt(long v)
{
    char buf[24];
    char* p = buf + sizeof buf - 1;
    *p = 0;
    const bool neg = v < 0;
    unsigned long u = neg ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
    do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg)
        *--p = '-';
    put(p);
}

int indexOf(int sig)
{
    for (int i = 0; i < kSignalCount; ++i)
        if (kSignals[i] == sig)
            return i;
    return -1;
}

void report(int sig, siginfo_t* info)
{
    put(g_tool);
    put(": the program received signal ");
    putInt(sig);
    put(" (");
    put(strsignal(sig));
    put(")");
    if (sig != SIGABRT && info) {
        put(" at address ");
        putHex(reinterpret_cast<uintptr_t>(info->si_addr));
    }
    put("\n");
    const int current = g_current.load(std::memory_order_acquire);
    put(g_tool);
    put(": while the collector was ");
    if (current >= 0 && g_notes[current][0])
        put(g_notes[current]);
    else if (g_tracksActivity)
        put("not in one of its callbacks (the program's own code)");
    else
        put("not noting its activity (frames in its own library below are its own)");
    put("\n");
    void* frames[48];
    const int n = backtrace(frames, 48);
    // dladdr is not on the async-signal-safe list but takes only the loader's lock, which a
    // crash inside the loader would hold: the frames are printed raw first, so that case loses
    // only the names.
    for (int i = 0; i < n; ++i) {
        put(g_tool);
        put(":   #");
        putInt(i);
        put(" ");
        putHex(reinterpret_cast<uintptr_t>(frames[i]));
        Dl_info d {};
        if (dladdr(frames[i], &d) && d.dli_fname) {
            put(" ");
            put(d.dli_fname);
            put(" + ");
            putHex(reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(d.dli_fbase));
            if (d.dli_sname) {
                put(" (");
                put(d.dli_sname);
                put(")");
            }
        }
        put("\n");
    }
}

// "<dir>/crash-<pid>.txt" into `out` without the allocator (snprintf is not async-signal-safe).
bool reportPath(char* out, size_t size)
{
    const size_t dir = std::strlen(g_dir);
    char pid[24];
    char* p = pid + sizeof pid - 1;
    *p = 0;
    long v = static_cast<long>(getpid());
    do {
        *--p = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v > 0);
    const size_t pidLen = std::strlen(p);
    if (dir == 0 || dir + 7 + pidLen + 5 >= size)
        return false;
    std::memcpy(out, g_dir, dir);
    std::memcpy(out + dir, "/crash-", 7);
    std::memcpy(out + dir + 7, p, pidLen);
    std::memcpy(out + dir + 7 + pidLen, ".txt", 5);
    return true;
}

// The program has a handler of its own for `i`'s signal (installed before ours).
bool programHandles(int i)
{
    if (i < 0)
        return false;
    const struct sigaction& prev = g_previous[i];
    if (prev.sa_flags & SA_SIGINFO)
        return prev.sa_sigaction != nullptr;
    return prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN;
}

void onSignal(int sig, siginfo_t* info, void* uctx)
{
    const int i = indexOf(sig);
    // A program with a handler of its own may use the signal on purpose (guard pages, a runtime's
    // null checks): outside our callbacks that is its business, and a report would be noise.
    const bool inCallback = g_current.load(std::memory_order_acquire) >= 0;
    if ((inCallback || !programHandles(i)) && !g_reporting.exchange(true)) {
        g_fd = STDERR_FILENO;
        report(sig, info);
        // The same report for the collector's launcher, which reads it after the exit.
        char path[600];
        if (reportPath(path, sizeof path)) {
            const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                g_fd = fd;
                report(sig, info);
                ::close(fd);
                g_fd = STDERR_FILENO;
            }
        }
    }
    // Hand the signal on as if we had not been here.
    if (i >= 0) {
        const struct sigaction& prev = g_previous[i];
        if (prev.sa_flags & SA_SIGINFO) {
            if (prev.sa_sigaction) {
                prev.sa_sigaction(sig, info, uctx);
                return;
            }
        } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
            prev.sa_handler(sig);
            return;
        }
        sigaction(sig, &prev, nullptr);
    } else {
        signal(sig, SIG_DFL);
    }
    // A fault returns to the faulting instruction, which faults again under the restored action;
    // a signal that was sent (kill, raise, abort) must be raised again.
    if (!info || info->si_code <= 0 || sig == SIGABRT)
        raise(sig);
}

} // namespace

void noteActivity(const char* what)
{
    if (!what || !*what) {
        g_current.store(-1, std::memory_order_release);
        return;
    }
    const int next = g_current.load(std::memory_order_relaxed) == 0 ? 1 : 0;
    std::strncpy(g_notes[next], what, sizeof g_notes[next] - 1);
    g_notes[next][sizeof g_notes[next] - 1] = 0;
    g_current.store(next, std::memory_order_release);
}

void installReport(const char* tool, bool tracksActivity)
{
    if (g_installed.exchange(true))
        return;
    g_tool = tool;
    g_tracksActivity = tracksActivity;
    if (const char* dir = std::getenv("WS_CRASH_DIR"); dir && std::strlen(dir) < sizeof g_dir)
        std::strcpy(g_dir, dir);
    // backtrace() loads libgcc_s on its first call (malloc, dlopen): not in a signal handler.
    void* warm[1];
    backtrace(warm, 1);
    for (int i = 0; i < kSignalCount; ++i) {
        struct sigaction sa { };
        sa.sa_sigaction = onSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigaction(kSignals[i], &sa, &g_previous[i]);
    }
}

} // namespace ws::crash

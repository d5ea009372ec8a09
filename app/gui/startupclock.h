// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <malloc.h>
#include <string>
#include <unistd.h>

// Start-up figures for `WS_STARTUP_TIMES=1 warpscope FILE`: milliseconds since the process was
// started (the kernel's start time, 10 ms resolution, so dynamic loading before main() counts)
// at each step, on stderr. What a user waits for from the command to the drawn timeline.
class StartupClock {
public:
    StartupClock()
        : m_enabled(qEnvironmentVariableIsSet("WS_STARTUP_TIMES"))
        , m_startMs(processStartMs())
    {
        if (m_enabled)
            mark("main() entered");
    }
    bool enabled() const { return m_enabled; }
    double sinceStartMs() const { return nowMs() - m_startMs; }
    void mark(const char* step)
    {
        if (m_enabled)
            std::fprintf(stderr, "warpscope: startup %8.1f ms  %s\n", sinceStartMs(), step);
    }
    // Resident memory of the whole process, per event of the open session. With
    // WS_STARTUP_SMAPS=FILE also copies /proc/self/smaps to FILE and prints malloc_stats() at this
    // moment, to attribute the resident set (docs/timeline.md, "bytes per event").
    void markMemory(long long events, long long snapshotBytes = 0)
    {
        if (!m_enabled || events <= 0)
            return;
        long pages = 0;
        if (FILE* f = std::fopen("/proc/self/statm", "r")) {
            long size = 0;
            if (std::fscanf(f, "%ld %ld", &size, &pages) != 2)
                pages = 0;
            std::fclose(f);
        }
        const double bytes = static_cast<double>(pages) * static_cast<double>(sysconf(_SC_PAGESIZE));
        std::fprintf(stderr, "warpscope: startup resident %.0f MB, %.1f B/event (%lld events)\n", bytes / 1e6,
            bytes / static_cast<double>(events), events);
        if (const char* dump = std::getenv("WS_STARTUP_SMAPS")) {
            std::ifstream in("/proc/self/smaps");
            std::ofstream out(dump);
            out << in.rdbuf();
            std::fprintf(stderr, "warpscope: startup snapshot (lanes, LOD, strings) %.1f MB, %.1f B/event\n",
                static_cast<double>(snapshotBytes) / 1e6,
                static_cast<double>(snapshotBytes) / static_cast<double>(events));
            malloc_stats();
        }
    }

private:
    static double nowMs()
    {
        timespec ts {};
        clock_gettime(CLOCK_BOOTTIME, &ts);
        return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
    }
    // Field 22 of /proc/self/stat: start time in clock ticks since boot (CLOCK_BOOTTIME).
    static double processStartMs()
    {
        std::ifstream f("/proc/self/stat");
        std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        const size_t paren = stat.rfind(')'); // the command name may contain spaces
        if (paren == std::string::npos)
            return nowMs();
        std::string rest = stat.substr(paren + 2);
        // rest starts at field 3 (state); starttime is field 22.
        size_t pos = 0;
        for (int field = 3; field < 22 && pos != std::string::npos; ++field)
            pos = rest.find(' ', pos) + 1;
        if (pos == 0 || pos == std::string::npos)
            return nowMs();
        const double ticks = std::strtod(rest.c_str() + pos, nullptr);
        return ticks * 1e3 / static_cast<double>(sysconf(_SC_CLK_TCK));
    }

    bool m_enabled;
    double m_startMs;
};

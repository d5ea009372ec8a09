// SPDX-License-Identifier: MIT
#pragma once

// The one question every gpu-labelled suite asks before it runs anything: is there an NVIDIA
// GPU on this machine at all? Decided up front from the device nodes, never from how a run
// went, so that on a GPU machine a crash or an empty recording fails instead of skipping.
#include <QFile>
#include <QFileInfo>
#include <QString>

namespace ws::test {

inline bool gpuPresent()
{
    return QFile::exists(QStringLiteral("/dev/nvidia0")) || QFile::exists(QStringLiteral("/dev/nvidiactl"));
}

// Why the gpu suites skip here; empty on a machine with a GPU.
inline QString whyNoGpu()
{
    return gpuPresent() ? QString()
                        : QStringLiteral("no NVIDIA GPU on this machine (/dev/nvidia0 and /dev/nvidiactl missing)");
}

// Whether this build configured the CUDA programs and injection libraries (nvcc and CUPTI found;
// tests/CMakeLists.txt defines WS_TEST_CUDA_PROGRAMS). Then one of them missing on a GPU machine
// is a broken build or stage: a failure, never a skip.
inline constexpr bool cudaProgramsConfigured()
{
#ifdef WS_TEST_CUDA_PROGRAMS
    return true;
#else
    return false;
#endif
}

// The line of `record`'s stderr in which the PM sampler (collectors/inject/pmsampler.cpp) says
// this machine cannot sample at all: the only reason for a GPU-metrics test to skip once a GPU is
// present; empty otherwise (then a run without samples is a bug).
inline QString pmSamplingUnavailable(const QString& err)
{
    static const char* const reasons[] = {
        "this CUPTI has no PM sampling API",
        "PM sampling is not supported on",
        "no permission to read the GPU performance counters",
    };
    for (const QString& line : err.split(QLatin1Char('\n')))
        for (const char* why : reasons)
            if (line.contains(QLatin1String(why)))
                return line;
    return {};
}

} // namespace ws::test

// In a test function or initTestCase: skips when `path` is missing because this build has no CUDA
// toolkit, fails when it is missing although the build configured it.
#define WS_REQUIRE_CUDA_PROGRAM(path)                                                                                  \
    do {                                                                                                               \
        const QString wsProgram_ = (path);                                                                             \
        if (!QFileInfo::exists(wsProgram_)) {                                                                          \
            if (ws::test::cudaProgramsConfigured())                                                                    \
                QFAIL(                                                                                                 \
                    qPrintable(wsProgram_ + " is missing although this build configured it (broken build or stage)")); \
            QSKIP(qPrintable(wsProgram_ + " was not built (no CUDA toolkit at configure time)"));                      \
        }                                                                                                              \
    } while (false)

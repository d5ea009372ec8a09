// SPDX-License-Identifier: MIT
#pragma once

// The one question every gpu-labelled suite asks before it runs anything: is there an NVIDIA
// GPU on this machine at all? Decided up front from the device nodes, never from how a run
// went, so that on a GPU machine a crash or an empty recording fails instead of skipping.
#include <QFile>
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

} // namespace ws::test

// SPDX-License-Identifier: MIT
#pragma once

// What the CLI tests share: running the built warpscope-cli as a child process, and the
// example program the recorder tests trace (it runs host-side on machines without a GPU).
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace ws::test {

struct CliRun {
    int exitCode = -1; // -1 when it crashed or timed out
    QString out;
    QString err;
};

// Runs warpscope-cli (WS_CLI_PATH) with `args` in `env`; a run past `timeoutMs` is killed and says
// so in err.
inline CliRun runCli(const QStringList& args, const QProcessEnvironment& env, int timeoutMs = 300000)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(WS_CLI_PATH), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// The same in this process's environment.
inline CliRun runCli(const QStringList& args, int timeoutMs = 120000)
{
    return runCli(args, QProcessEnvironment::systemEnvironment(), timeoutMs);
}

inline QString nvtxExample()
{
    return QStringLiteral(WS_BUILD_DIR "/bin/ws-example-nvtx-threads");
}

// The injection library and the NVTX example exist only where the CUDA toolkit was found.
inline bool nvtxRecordable()
{
    return QFileInfo::exists(nvtxExample())
        && QFileInfo::exists(QStringLiteral(WS_BUILD_DIR "/lib/libwarpscope-inject.so"));
}

} // namespace ws::test

// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/runrecipe.h"

#include <QString>

#include <optional>

namespace ws {

// What the window needs to know about an open session to re-run it: read off the GUI thread
// (these functions block on the file) and handed over as values. Reading never runs anything.
struct SessionRecipe {
    QString path;
    RunRecipe recipe;
    int runCount = 0;
    // "" when the recipe can be re-run here; else why not ("imported trace: no program to run",
    // "program not found on this machine: /opt/x").
    QString unavailableReason;
    // How the target of the session's last run ended when it did not end well: "target killed
    // by SIGKILL", "target exited with code 2", "run 3 failed: <reason>"; "" otherwise.
    QString targetProblem;
    QString error; // the file could not be read
};

SessionRecipe readSessionRecipe(const QString& path);

// What "collect metrics for this kernel" needs about one launch: its mangled name and its
// launch ordinal (SessionReader::launchOrdinal).
struct KernelLaunchInfo {
    std::string mangledName;
    int64_t ordinal = 0;
    RunInfo run; // the trace run it belongs to (its capture range decides how launches count)
    QString error;
};
KernelLaunchInfo readKernelLaunch(const QString& path, int64_t kernelId);

// "target killed by SIGKILL" from a run_status / target_exit value ("killed by signal 9 (Killed)",
// "exited with code 2", "failed: ..."): "" for a clean exit.
QString describeTargetEnd(const QString& status);

// The next attempt's file name: x.wscope -> x-2.wscope, x-2.wscope -> x-3.wscope, skipping names
// that exist.
QString nextAttemptPath(const QString& path);

// This machine's host name and this user, as collectors record them in run rows.
std::string localHost();
std::string localUser();

} // namespace ws

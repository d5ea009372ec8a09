// SPDX-License-Identifier: MIT
#pragma once

#include "launcher/targetprocess.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// The program a collector runs, as every collector (record, profile, bench) starts it: resolved
// like execvp() when constructed, given the launcher's environment less the variables the
// collector owns plus the ones it sets, started with its stdio shared with ours, and waited for
// with signals forwarded. Plain POSIX: no CUDA, no Qt.
class TargetLauncher {
public:
    // Resolves command[0]; throws std::runtime_error with a one-line reason (no program, not
    // found in PATH, not executable, a directory).
    explicit TargetLauncher(std::vector<std::string> command);

    const std::vector<std::string>& command() const { return m_command; }
    // The path that will be executed.
    const std::string& program() const { return m_program; }
    // The shell-quoted command line stored in sessions (see joinCommand()).
    std::string commandLine() const;

    // The environment starts as the launcher's own. Removes every variable whose name `owned`
    // accepts, so a value the user's shell exported cannot override the collector's.
    void removeVariables(const std::function<bool(std::string_view name)>& owned);
    // Sets NAME=value, replacing an earlier value of NAME.
    void setVariable(std::string_view name, const std::string& value);
    // NAME=value entries, in the order the target receives them.
    const std::vector<std::string>& environment() const { return m_environment; }

    // Starts the program (throws std::runtime_error when fork or exec fails) and waits for it.
    void start();
    ExitStatus wait();
    pid_t pid() const { return m_process.pid(); }

private:
    std::vector<std::string> m_command;
    std::string m_program;
    std::vector<std::string> m_environment;
    TargetProcess m_process;
};

// The running executable (/proc/self/exe); empty when it cannot be read.
std::string executablePath();

// Where a collector's library (libwarpscope-inject.so, libwarpscope-profiler.so) is: the path in
// $`overrideVariable` if set, else beside the running executable in ../lib (build and install
// trees alike: build/<dir>/bin/warpscope-cli and build/<dir>/lib/<library>), in ./lib, or in its
// own directory. Empty when none exists; `searched` then lists the places looked at.
std::string findCollectorLibrary(
    const std::string& fileName, const char* overrideVariable, std::string* searched = nullptr);

} // namespace ws

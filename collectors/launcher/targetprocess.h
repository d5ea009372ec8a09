// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace ws {

// How a process ended, as waitpid() reported it.
struct ExitStatus {
    int exitCode = -1;            // -1 when killed by a signal
    int exitSignal = 0;           // 0 when it exited normally
    std::string describe() const; // "exited with code 0", "killed by signal 11 (Segmentation fault)"
};

// The traced program: resolved like execvp() would, started with fork/exec and a prepared
// environment, its stdin/stdout/stderr shared with ours. Signals the launcher receives from
// another process (kill, not the terminal, which signals the whole foreground group itself)
// are forwarded to it while we wait.
class TargetProcess {
public:
    // The path execvp() would run for `program`. Throws std::runtime_error with a one-line
    // reason: not found in PATH, no such file, is a directory, not executable.
    static std::string resolve(const std::string& program);

    // Starts argv[0] (already resolved) with exactly `environment`. Throws std::runtime_error
    // when fork or exec fails (exec errors are reported back from the child through a pipe).
    void start(
        const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>& environment);

    pid_t pid() const { return m_pid; }

    // Waits for the process to end, forwarding signals meanwhile.
    ExitStatus wait();

private:
    pid_t m_pid = -1;
};

} // namespace ws

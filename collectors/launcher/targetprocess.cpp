// SPDX-License-Identifier: MIT
#include "launcher/targetprocess.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ws {

namespace {

std::atomic<pid_t> g_child {-1};

void forwardSignal(int sig, siginfo_t* info, void*)
{
    // Terminal-generated signals (si_code SI_KERNEL) already reached the whole foreground
    // process group, the target included; forwarding them would deliver them twice.
    const pid_t child = g_child.load();
    if (child > 0 && (!info || info->si_code != SI_KERNEL))
        ::kill(child, sig);
}

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

} // namespace

std::string ExitStatus::describe() const
{
    if (exitSignal != 0) {
        const char* name = strsignal(exitSignal);
        return "killed by signal " + std::to_string(exitSignal) + " (" + (name ? name : "unknown") + ")";
    }
    return "exited with code " + std::to_string(exitCode);
}

std::string TargetProcess::resolve(const std::string& program)
{
    if (program.empty())
        throw std::runtime_error("no program given to record");
    const auto check = [](const std::string& path) {
        struct stat st { };
        if (::stat(path.c_str(), &st) != 0)
            throw std::runtime_error(path + ": no such file");
        if (S_ISDIR(st.st_mode))
            throw std::runtime_error(path + ": is a directory, not a program");
        if (::access(path.c_str(), X_OK) != 0)
            throw std::runtime_error(path + ": not executable (" + std::strerror(errno) + ")");
        return path;
    };
    if (program.find('/') != std::string::npos)
        return check(program);
    const char* pathEnv = std::getenv("PATH");
    const std::string path = pathEnv ? pathEnv : "/usr/local/bin:/usr/bin:/bin";
    std::string firstNotExecutable;
    size_t pos = 0;
    while (pos <= path.size()) {
        const size_t colon = std::min(path.find(':', pos), path.size());
        std::string candidate = colon > pos ? path.substr(pos, colon - pos) : std::string(".");
        candidate += '/';
        candidate += program;
        struct stat st { };
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            if (::access(candidate.c_str(), X_OK) == 0)
                return candidate;
            if (firstNotExecutable.empty())
                firstNotExecutable = candidate;
        }
        pos = colon + 1;
    }
    if (!firstNotExecutable.empty())
        throw std::runtime_error(firstNotExecutable + ": not executable");
    throw std::runtime_error(program + ": program not found in PATH");
}

void TargetProcess::start(
    const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>& environment)
{
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> env;
    env.reserve(environment.size() + 1);
    for (const auto& e : environment)
        env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);

    // exec failures come back through a close-on-exec pipe: EOF means exec succeeded.
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::close(fds[0]);
        // Default dispositions for the target, whatever the launcher installed.
        for (int sig : kForwarded)
            ::signal(sig, SIG_DFL);
        ::execve(path.c_str(), args.data(), env.data());
        const int err = errno;
        [[maybe_unused]] const auto n = ::write(fds[1], &err, sizeof(err));
        ::_exit(127);
    }
    ::close(fds[1]);
    int childErrno = 0;
    ssize_t n = 0;
    do {
        n = ::read(fds[0], &childErrno, sizeof(childErrno));
    } while (n < 0 && errno == EINTR);
    ::close(fds[0]);
    if (n == sizeof(childErrno)) {
        ::waitpid(pid, nullptr, 0);
        throw std::runtime_error(path + ": cannot execute: " + std::strerror(childErrno));
    }
    m_pid = pid;
    g_child.store(pid);
    struct sigaction sa { };
    sa.sa_sigaction = &forwardSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int sig : kForwarded)
        ::sigaction(sig, &sa, nullptr);
}

ExitStatus TargetProcess::wait()
{
    ExitStatus result;
    int status = 0;
    pid_t r = 0;
    do {
        r = ::waitpid(m_pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    g_child.store(-1);
    for (int sig : kForwarded)
        ::signal(sig, SIG_DFL);
    if (r == m_pid) {
        if (WIFEXITED(status))
            result.exitCode = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            result.exitSignal = WTERMSIG(status);
    }
    return result;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/store/sessionappend.h"

#include "core/store/sessionerror.h"
#include "core/store/sessionmerge.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ws {

void checkAppendable(const std::string& path)
{
    const SessionReader reader(path); // throws SessionError naming the file
    reader.readRuns();
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw SessionError(SessionError::Kind::WriteFailed, path,
            "cannot append a run: the directory " + dir.string() + " is not writable (" + std::strerror(errno) + ")");
}

namespace {

// Holds an exclusive flock on the session file being replaced, so appends to one session from
// several processes (two kernels collected at once) take turns: each reads the file the previous
// one renamed into place. The lock is on the inode; one that was replaced while we waited is let
// go and the new file locked instead.
class AppendLock {
public:
    explicit AppendLock(const std::string& path)
    {
        for (;;) {
            m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (m_fd < 0)
                throw SessionError(
                    SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
            while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) { }
            struct stat held { };
            struct stat now { };
            if (::fstat(m_fd, &held) == 0 && ::stat(path.c_str(), &now) == 0 && held.st_ino == now.st_ino
                && held.st_dev == now.st_dev)
                return;
            ::close(m_fd);
        }
    }
    ~AppendLock() { ::close(m_fd); }
    AppendLock(const AppendLock&) = delete;
    AppendLock& operator=(const AppendLock&) = delete;

private:
    int m_fd = -1;
};

} // namespace

AppendResult appendRun(
    const std::string& path, const SessionData& run, const std::function<void(SessionWriter&)>& prepare)
{
    const AppendLock lock(path);
    AppendResult result;
    SessionData merged = mergeSessions(SessionReader(path).readAll(), run, &result.warnings);
    result.runs = merged.runs.size();
    result.links = merged.kernelLinks.size();
    result.runId = std::max_element(merged.runs.begin(), merged.runs.end(), [](const RunInfo& a, const RunInfo& b) {
        return a.id < b.id;
    })->id;
    SessionWriter writer(path);
    if (prepare)
        prepare(writer);
    writer.write(merged);
    writer.commit();
    return result;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"
#include "core/raw/rawreader.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ws {

// Turns the raw record files of one recording (one file per traced process) into a SessionData:
// strings re-interned into one table, GPU work and API calls sorted by start and numbered,
// NVTX push/pop and start/end events paired into ranges with their nesting depth, threads,
// streams and devices collected, device peaks derived, and process exit statuses attached.
//
// Files may be incomplete: a process that was killed leaves a truncated last frame and no End
// record; everything before the cut is kept and the session's meta says what was missing.
class RawIngest {
public:
    RawIngest();
    ~RawIngest();
    RawIngest(const RawIngest&) = delete;
    RawIngest& operator=(const RawIngest&) = delete;

    // Adds one process's raw file.
    void addFile(raw::RawFile file);
    // Adds every ws-<pid>.raw file in `dir`; files that cannot be read at all are skipped with a
    // warning. Returns the number of files added.
    size_t addDirectory(const std::string& dir);
    // A process the launcher started and waited for. It appears in the session even when it
    // wrote no raw file (it never initialised CUDA), with the exit status waitpid() reported.
    struct LaunchedProcess {
        int64_t pid = 0;
        int64_t parentPid = 0;
        std::string name;
        std::string commandLine;
        int exitCode = -1;
        int exitSignal = 0;
        TimeNs anchorRealtimeNs = 0;
        TimeNs anchorMonotonicNs = 0;
    };
    void addLaunchedProcess(const LaunchedProcess& p);

    // Following a recording while its program runs: `follow` names the raw directory, and each
    // poll() reads what the processes appended since the last one (new files included) and
    // converts it, so that finish() after the exit has only the rest to read. The session is
    // the one addDirectory() on the finished files gives; should a file ever not be readable
    // that way as it grows, finish() reads the whole files instead. poll() and finish() must
    // not run at the same time.
    void follow(const std::string& dir);
    void poll();

    // While following: the rows of the big tables (kernels, copies, memsets, API calls) that
    // start before `horizon` and so, unless a record arrives late, can no longer change, with
    // their final ids, each table sorted and continuing the previous call's rows. A writer may
    // store them before the program ends; after finish(), settledRowsHold() says whether they are
    // the session's first rows of each table (false when a row arrived that sorts before them:
    // write the session from finish()'s data instead).
    struct Settled {
        std::vector<KernelRecord> kernels;
        std::vector<MemcpyRecord> memcpys;
        std::vector<MemsetRecord> memsets;
        std::vector<ApiCallRecord> apiCalls;
        bool empty() const { return kernels.empty() && memcpys.empty() && memsets.empty() && apiCalls.empty(); }
    };
    Settled settle(TimeNs horizon);
    bool settledRowsHold() const { return m_settledRowsHold; }
    // How following went, for the record command's post-run line: "followed", or why finish()
    // read the whole files or the early rows could not stay.
    const std::string& followStatus() const { return m_followStatus; }

    // Builds the session from everything added. Call once.
    SessionData finish();

    // Problems found along the way, one line each, for the CLI to print; also in meta.
    const std::vector<std::string>& warnings() const { return m_warnings; }

private:
    struct Following;
    std::unique_ptr<Following> m_following;
    bool m_settledRowsHold = true;
    std::string m_followStatus;
    std::vector<raw::RawFile> m_files;
    std::map<int64_t, LaunchedProcess> m_launched;
    std::vector<std::string> m_warnings;
};

} // namespace ws

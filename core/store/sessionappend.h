// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ws {

class SessionWriter;

// What `warpscope-cli record|profile|bench --append SESSION` does with the run it collected:
// one place, so every collector appends the same way.

// Checks, before anything is collected, that `path` is a complete session this user can
// replace: it opens as a session (else the reader's SessionError naming it: missing, not a
// session, damaged, newer schema) and its directory is writable (SessionError WriteFailed).
void checkAppendable(const std::string& path);

struct AppendResult {
    uint32_t runId = 0;                // the appended run's id in the session
    size_t runs = 0;                   // runs in the session now
    size_t links = 0;                  // profiled launches linked to traced ones
    std::vector<std::string> warnings; // linkKernels' (ambiguous --launch-skip)
};

// Reads the session at `path`, appends the runs of `run` (mergeSessions: ids remapped, kernel
// links recomputed) and writes the result to a temporary file in the same directory that
// replaces `path` only once complete (SessionWriter), so a failure leaves the old file as it
// was. Appends to one file from several processes take turns (an exclusive flock on it while
// it is read and replaced), so none is lost. `prepare` is called on the writer before anything is written
// (attachLaneCache: the lane cache lives in a layer above the store). Throws SessionError naming the file.
AppendResult appendRun(
    const std::string& path, const SessionData& run, const std::function<void(SessionWriter&)>& prepare = {});

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/model/sessiondata.h"
#include "core/store/sessionappend.h"

#include <string>

namespace ws {

// Where a collector's run goes: a new session (-o FILE) or one more run of an existing session
// (--append FILE). Exactly one of the two is set.
struct SessionOutput {
    std::string output;
    std::string append;

    const std::string& path() const { return append.empty() ? output : append; }
    bool appending() const { return !append.empty(); }

    // Before anything runs: exactly one of -o / --append (`usage` ends the "give one" message),
    // and for --append a complete session that can be replaced. Throws std::runtime_error or
    // SessionError naming the file.
    void check(const std::string& usage) const;

    // Writes the run's session (-o) or appends it (--append); with the lane cache either way.
    // Throws SessionError naming the file; the file at path() is unchanged then.
    AppendResult write(const SessionData& data) const;

    // --append only: stores the row of a collection that failed (describeFailedRun) so the
    // session says what was tried and why it failed; the earlier runs stay as they were. Returns
    // "" or why even that could not be stored (the caller adds it to its own error).
    std::string appendFailed(const RunInfo& run) const;
};

} // namespace ws

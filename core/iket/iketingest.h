// SPDX-License-Identifier: MIT
#pragma once

#include "core/iket/iketlaunch.h"
#include "core/iket/launchassembler.h"
#include "core/model/sessiondata.h"
#include "core/raw/rawreader.h"

#include <map>
#include <string>
#include <vector>

namespace ws::iket {

// The in-kernel trace records of a recording, gathered while ingest reads the raw files and
// decoded once the session's kernels and API calls are sorted (they find their kernel there).
class LaunchCollector {
public:
    // One raw IketLaunch frame of the raw file at `path` (with `header`); `label` and `names`
    // already resolved from its strings. A malformed record is skipped with a warning naming
    // the file.
    void add(const std::string& path, const raw::FileHeader& header, std::string_view payload, std::string label,
        std::string_view names, std::vector<std::string>& warnings);

    // One frame of a launch split over several (raw/iketformat.h, type 51); the launch joins
    // the others once all its parts are there. The payload is kept, not copied.
    void addPart(const std::string& path, const raw::FileHeader& header, std::string&& payload, std::string label,
        std::string_view names, std::vector<std::string>& warnings);

    // Decodes every launch into session.warpEvents (ids continue after existing rows) and puts
    // the figures in meta: iket_launches, iket_events, iket_dropped_events, iket_unbalanced_warps
    // (and iket_unbalanced: one line per warp), iket_unmatched_launches, iket_clock, and what
    // the alignment to each kernel did: iket_events_moved_into_kernel, iket_events_outside_kernel
    // (with a warning per launch), iket_kernel_shifts_ns ("kernel id:shift,..."; raw position =
    // stored time - shift).
    void finish(SessionData& session, std::vector<std::string>& warnings);

    size_t size() const { return m_launches.size(); }

private:
    std::vector<LaunchBuffer> m_launches;
    LaunchAssembler m_parts;
    std::map<int64_t, int64_t> m_anchors; // pid -> realtime minus monotonic, for joined launches
};

} // namespace ws::iket

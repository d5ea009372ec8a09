// SPDX-License-Identifier: MIT
#pragma once

#include "import/importer.h"
#include "model/sessiondata.h"

#include <string>
#include <vector>

namespace ws {

// The steps every importer ends with, so an imported session looks like a recorded one to
// the store, the timeline and the analyses: records sorted by start with ids 1..n in that
// order, NVTX nesting depth per thread, and process / thread / stream rows for everything the
// records reference (a trace may never name them).
void finishImport(SessionData& data, ImportFormat format, const std::string& source);

// Depth of each range on its (pid, tid): 0 for the outermost. Ranges that only partly overlap
// their predecessor are treated as nested under it, so no two ranges of one depth overlap
// unless the source itself had crossing ranges.
void assignNvtxDepths(std::vector<NvtxRangeRecord>& ranges);

// Reads a whole (small) file: SessionError(NotFound) when it cannot be read, BadInput when it is
// larger than `maxBytes`.
std::string readWholeFile(const std::string& path, size_t maxBytes);

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/importer.h"
#include "core/model/sessiondata.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ws {

// The steps every importer ends with, so an imported session looks like a recorded one to
// the store, the timeline and the analyses: records sorted by start with ids 1..n in that
// order, NVTX nesting depth per thread, and process / thread / stream rows for everything the
// records reference (a trace may never name them).
// `rangesStreamed`: data.nvtxRanges went to an NvtxRangeSink with their final ids already
// (ChromeTraceBuilder::rangesStreamed); they only name threads here and are released after.
void finishImport(SessionData& data, ImportFormat format, const std::string& source, bool rangesStreamed = false);

// Sorts ranges by start (an enclosing range before the ranges it encloses when both start
// together), numbers them 1..n in that order and sets each one's depth on its (pid, tid): 0 for
// the outermost. A range that only partly overlaps the one open before it counts as nested in
// it (the timeline's lane builder does the same). Ranges of one thread that already come in
// order, as tracers write them, cost no sort; the threads are then merged, not sorted.
// Large tables use several threads (defaultOrderParts); the result does not depend on how many.
void orderNvtxRanges(std::vector<NvtxRangeRecord>& ranges);
void orderNvtxRanges(std::vector<NvtxRangeRecord>& ranges, unsigned parts);
unsigned defaultOrderParts(size_t ranges);

// Reads a whole (small) file: SessionError(NotFound) when it cannot be read, BadInput when it is
// larger than `maxBytes`.
std::string readWholeFile(const std::string& path, size_t maxBytes);

// rows[i] becomes the old rows[order[i]], in place (for vectors too large to copy).
template <typename Record> void applyPermutation(std::vector<Record>& rows, const std::vector<uint32_t>& order)
{
    // Follow each cycle of the permutation once, with one temporary per cycle.
    std::vector<bool> done(rows.size(), false);
    for (size_t start = 0; start < rows.size(); ++start) {
        if (done[start])
            continue;
        done[start] = true;
        if (order[start] == start)
            continue;
        Record first = std::move(rows[start]);
        size_t i = start;
        while (true) {
            const size_t from = order[i];
            if (from == start) {
                rows[i] = std::move(first);
                break;
            }
            rows[i] = std::move(rows[from]);
            done[from] = true;
            i = from;
        }
    }
}

} // namespace ws

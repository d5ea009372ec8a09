// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ws {

// Numbers NVTX ranges while an import is still reading them, so that their rows can be written
// during the parse. The result is exactly orderNvtxRanges' (importfinish.h): ids by (start,
// depth, file index) over the whole file, depth per (pid, tid) from that thread's ranges in
// (start, end descending, file index) order.
//
// Why this can work at all: tracers write a thread's ranges in that order (a call before the
// calls it makes). Then nothing still to come on a thread starts before the last start it gave,
// and every range that starts before the lowest such start over the threads (the watermark) is
// final: those are merged and handed out. Depth needs only the thread's earlier ranges, so it is
// known on arrival.
//
// What it cannot know: a thread not seen yet, or one that has gone quiet, may still bring an
// earlier range. The watermark has to guess there (it waits `warmUp` ranges for the threads to
// show up, and ignores threads quiet for `quietAfter` ranges, or one thread that ended early
// would hold everything back). A guess only costs speed, never the result: a range that would sort
// before one already handed out, or a thread whose ranges break order, makes the order fail; the
// caller then voids what was handed out and orders the whole table afterwards.
class NvtxRangeOrder {
public:
    struct Limits {
        // Ranges between two hand-outs: a hand-out merges the threads and becomes one batch of
        // rows for the writer (~5 MB), so it is paid per batch, not per range.
        size_t handOutEvery = size_t(1) << 16;
        size_t warmUp = size_t(1) << 16;
        size_t quietAfter = size_t(1) << 20;
        // More ranges held back than this: give up rather than hold a second copy of the table.
        size_t maxHeld = size_t(1) << 22;
    };

    NvtxRangeOrder();
    explicit NvtxRangeOrder(Limits limits);

    // The next range in file order.
    void add(const NvtxRangeRecord& range);
    // handOutEvery ranges arrived since the last takeFinal().
    bool handOutDue() const { return m_arrived - m_lastHandOut >= m_limits.handOutEvery; }
    // The ranges that became final since the last call, in id order with id and depth set.
    std::vector<NvtxRangeRecord> takeFinal();
    // At the end of the file: every range still held, in order.
    std::vector<NvtxRangeRecord> takeRest();

    // Stops ordering for a reason the caller knows (a range whose row changes after the parse).
    void fail(std::string why);
    bool failed() const { return !m_failure.empty(); }
    const std::string& failure() const { return m_failure; }
    int64_t handedOut() const { return m_nextId - 1; }

private:
    struct Thread {
        bool any = false;
        TimeNs lastStart = 0;
        TimeNs lastEnd = 0;
        uint64_t lastArrival = 0;
        std::vector<TimeNs> openEnds; // ends of the ranges that enclose the next start
        // Ranges not handed out yet, from `head` on, in merge order; `id` is the file index
        // until the range is handed out.
        std::vector<NvtxRangeRecord> held;
        size_t head = 0;
    };

    Thread& threadOf(int64_t pid, int64_t tid);
    // Hands out every held range that starts before `below` (all of them for nullopt).
    std::vector<NvtxRangeRecord> handOut(std::optional<TimeNs> below);

    Limits m_limits;
    std::map<std::pair<int64_t, int64_t>, Thread> m_threads;
    Thread* m_last = nullptr;
    std::pair<int64_t, int64_t> m_lastKey {0, 0};
    uint64_t m_arrived = 0;
    uint64_t m_lastHandOut = 0; // m_arrived at the last takeFinal()
    size_t m_held = 0;
    int64_t m_nextId = 1;
    // The last range handed out: a later arrival must sort after it.
    TimeNs m_handedStart = 0;
    int32_t m_handedDepth = 0;
    std::string m_failure;
};

} // namespace ws

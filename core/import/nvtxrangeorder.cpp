// SPDX-License-Identifier: MIT
#include "core/import/nvtxrangeorder.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <queue>
#include <tuple>

namespace ws {

NvtxRangeOrder::NvtxRangeOrder()
    : NvtxRangeOrder(Limits {})
{
}

NvtxRangeOrder::NvtxRangeOrder(Limits limits)
    : m_limits(limits)
{
}

NvtxRangeOrder::Thread& NvtxRangeOrder::threadOf(int64_t pid, int64_t tid)
{
    // Consecutive ranges are mostly on one thread: skip the lookup for repeats.
    const std::pair<int64_t, int64_t> key {pid, tid};
    if (!m_last || key != m_lastKey) {
        m_last = &m_threads[key];
        m_lastKey = key;
    }
    return *m_last;
}

void NvtxRangeOrder::fail(std::string why)
{
    if (failed())
        return;
    m_failure = why.empty() ? "failed" : std::move(why);
    m_threads.clear();
    m_last = nullptr;
    m_held = 0;
}

void NvtxRangeOrder::add(const NvtxRangeRecord& range)
{
    if (failed())
        return;
    Thread& t = threadOf(range.pid, range.tid);
    if (t.any && (range.start < t.lastStart || (range.start == t.lastStart && range.end > t.lastEnd))) {
        fail("a thread's ranges are not in start order");
        return;
    }
    // The same stack of open ends as orderNvtxRanges, over the same sequence.
    while (!t.openEnds.empty() && t.openEnds.back() <= range.start)
        t.openEnds.pop_back();
    const auto depth = static_cast<int32_t>(t.openEnds.size());
    if (m_nextId > 1 && std::tie(range.start, depth) < std::tie(m_handedStart, m_handedDepth)) {
        fail("a range sorts before ranges already numbered");
        return;
    }
    t.openEnds.push_back(range.end);
    NvtxRangeRecord& held = t.held.emplace_back(range);
    held.depth = depth;
    held.id = static_cast<int64_t>(m_arrived);
    t.any = true;
    t.lastStart = range.start;
    t.lastEnd = range.end;
    t.lastArrival = m_arrived++;
    if (++m_held > m_limits.maxHeld)
        fail("too many ranges held back");
}

std::vector<NvtxRangeRecord> NvtxRangeOrder::takeFinal()
{
    m_lastHandOut = m_arrived;
    if (failed() || m_arrived < m_limits.warmUp)
        return {};
    TimeNs watermark = std::numeric_limits<TimeNs>::max();
    for (const auto& [key, t] : m_threads) {
        if (m_arrived - t.lastArrival <= m_limits.quietAfter)
            watermark = std::min(watermark, t.lastStart);
    }
    return handOut(watermark);
}

std::vector<NvtxRangeRecord> NvtxRangeOrder::takeRest()
{
    if (failed())
        return {};
    return handOut(std::nullopt);
}

std::vector<NvtxRangeRecord> NvtxRangeOrder::handOut(std::optional<TimeNs> below)
{
    const auto ready
        = [&](const Thread& t) { return t.head < t.held.size() && (!below || t.held[t.head].start < *below); };
    // Each thread's held ranges are already in merge order (sorted by start; at one start the
    // enclosing range, of lower depth, first), so a merge of the threads' heads is enough.
    const auto later = [](const Thread* a, const Thread* b) {
        const NvtxRangeRecord& x = a->held[a->head];
        const NvtxRangeRecord& y = b->held[b->head];
        return std::tie(y.start, y.depth, y.id) < std::tie(x.start, x.depth, x.id);
    };
    std::priority_queue<Thread*, std::vector<Thread*>, decltype(later)> heads(later);
    for (auto& [key, t] : m_threads) {
        if (ready(t))
            heads.push(&t);
    }
    std::vector<NvtxRangeRecord> out;
    out.reserve(m_held); // at most; capacity beyond what is filled is address space only
    while (!heads.empty()) {
        Thread* t = heads.top();
        heads.pop();
        NvtxRangeRecord& r = out.emplace_back(t->held[t->head++]);
        r.id = m_nextId++;
        if (ready(*t))
            heads.push(t);
    }
    if (!out.empty()) {
        m_handedStart = out.back().start;
        m_handedDepth = out.back().depth;
    }
    m_held -= out.size();
    for (auto& [key, t] : m_threads) {
        // Drop what was handed out once it is half of the list: amortised O(1) per range.
        if (t.head == t.held.size()) {
            t.held.clear();
            t.head = 0;
        } else if (t.head > t.held.size() / 2) {
            t.held.erase(t.held.begin(), t.held.begin() + static_cast<std::ptrdiff_t>(t.head));
            t.head = 0;
        }
    }
    return out;
}

} // namespace ws

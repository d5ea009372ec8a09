// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/nvtxrangesink.h"
#include "core/util/handoffqueue.h"

#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace ws {

class SessionWriter;

// Writes the NVTX ranges an import streams (NvtxRangeSink) into a SessionWriter on a thread of
// its own: SQLite's inserts are half of a large import's time, and this way they run on the
// second core while the parse goes on. Between construction and finish() (or discard()) only
// that thread uses the writer. Batches cross over by move, so no range is ever shared.
class BackgroundRangeWriter final : public NvtxRangeSink {
public:
    explicit BackgroundRangeWriter(SessionWriter& writer);
    ~BackgroundRangeWriter() override; // stops (what still waits is not written) and joins
    BackgroundRangeWriter(const BackgroundRangeWriter&) = delete;
    BackgroundRangeWriter& operator=(const BackgroundRangeWriter&) = delete;

    void take(std::vector<NvtxRangeRecord>&& ranges) override;
    // Stops at once; the rows already written stay in the writer, which the caller replaces.
    void discard() override;

    // Waits until every range taken is written, then rethrows the writer's error if it failed.
    void finish();
    bool discarded() const { return m_discarded; }
    size_t rangesTaken() const { return m_taken; }

private:
    void run();
    void stop();

    SessionWriter& m_writer;
    // A few batches in flight: enough to ride out a slow insert, bounded so that a parse far
    // ahead of the inserts waits instead of holding the table twice.
    HandoffQueue<std::vector<NvtxRangeRecord>> m_queue {4};
    std::atomic<bool> m_abandon {false};
    std::exception_ptr m_error; // set by the thread, read after join
    std::thread m_thread;
    size_t m_taken = 0;
    bool m_discarded = false;
};

} // namespace ws

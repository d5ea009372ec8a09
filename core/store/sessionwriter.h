// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"
#include "core/store/rowobserver.h"

#include <memory>
#include <span>
#include <string>

namespace ws {

// Writes a session file atomically: everything goes into "<path>.tmp-<pid>" and is renamed
// over <path> by commit(). A writer destroyed without commit() removes the temp file, so a
// half-written session is never presented as complete.
//
// Records may be appended in several batches (the synthetic generator and the recorder's
// ingest stream millions of events without holding them all); strings are written at commit.
// Each append is one transaction over persistent prepared statements. Event records with
// id 0 get the next rowid as id. A NaN in a REAL column is rejected (SessionError BadInput):
// SQLite cannot store NaN. commit() stores per-table content checksums (table_check) and the
// rows an attached SessionRowObserver derives (the lane cache, lane_blob: attach it with
// attachLaneCache(writer) from core/timeline/lanebuilder.h), see docs/session-format.md.
class SessionWriter {
public:
    explicit SessionWriter(std::string path); // throws SessionError(WriteFailed)
    ~SessionWriter();
    SessionWriter(const SessionWriter&) = delete;
    SessionWriter& operator=(const SessionWriter&) = delete;

    // Sees every event row from now on and adds its rows at commit; attach before appending.
    void attach(std::unique_ptr<SessionRowObserver> observer);

    // Schema v2 runs. beginRun stores a run row (id 0: the next free id) and returns its id;
    // rows carry their run in their runId (default 1). A writer whose producer sets no run stores
    // one at commit, inferred from meta and environment (store/runinference.h).
    uint32_t beginRun(RunInfo run);
    void appendKernelLinks(std::span<const KernelLink> rows);

    // Writes every table of `data` (strings, meta and environment included).
    void write(const SessionData& data);

    void appendKernels(std::span<const KernelRecord> rows);
    void appendMemcpys(std::span<const MemcpyRecord> rows);
    void appendMemsets(std::span<const MemsetRecord> rows);
    void appendApiCalls(std::span<const ApiCallRecord> rows);
    void appendNvtxRanges(std::span<const NvtxRangeRecord> rows);
    void appendNvtxMarks(std::span<const NvtxMarkRecord> rows);
    void appendSyncs(std::span<const SyncRecord> rows);
    void appendOverheads(std::span<const OverheadRecord> rows);
    void appendWarpEvents(std::span<const WarpEvent> rows);
    void appendEventOps(std::span<const EventOpRecord> rows);
    void appendCounterSamples(std::span<const CounterSample> rows);
    void appendBenchSamples(std::span<const BenchSample> rows);
    void appendKernelMetrics(std::span<const KernelMetric> rows);
    // Small tables and strings: replaces what was written before.
    void writeHeaderTables(const SessionData& data);

    // Marks the session complete and renames it into place. Throws SessionError(WriteFailed).
    void commit();

    const std::string& path() const { return m_path; }
    // Rows appended so far over all event tables.
    int64_t rowsWritten() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    std::string m_path;
};

} // namespace ws

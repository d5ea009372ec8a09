// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"
#include "core/model/streamdependencies.h"
#include "core/util/cancellation.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// Opens a session file strictly read-only (the file is never modified, not even its journal)
// and validates it: SQLite header, application_id, schema version, required tables, size
// against page count, meta.complete. Every failure is a SessionError naming the file.
// The connection uses a "file:...?mode=ro&immutable=1" URI: SQLite then takes no locks and
// never creates -journal, -wal or -shm files next to the session. That is safe because
// sessions are written to a temporary file and renamed into place, never modified in place.
// One thread at a time may use a reader (the connection is opened without SQLite's mutex,
// which costs ~15 % of a row scan); move it to a worker thread, don't share it.
class SessionReader {
public:
    explicit SessionReader(const std::string& path);
    ~SessionReader();
    SessionReader(const SessionReader&) = delete;
    SessionReader& operator=(const SessionReader&) = delete;

    const std::string& path() const { return m_path; }
    int schemaVersion() const;
    std::map<std::string, std::string> meta() const;

    // Row counts per table, for `warpscope-cli info`: every table of the schema, plus the optional
    // ones (PC-sampling source counters) the file has.
    std::map<std::string, int64_t> tableCounts() const;

    // Reads everything. Progress is reported per table; cancellation throws SessionError(Cancelled).
    SessionData readAll(const ProgressCallback& progress = {}, const CancellationToken& cancel = {}) const;

    // Pieces of readAll for loaders that need only a few tables (TimelineModel). Like readAll
    // they verify the table's content checksum and throw SessionError.
    StringTable readStrings() const;
    std::vector<ProcessInfo> readProcesses() const;
    std::vector<ThreadInfo> readThreads() const;
    std::vector<DeviceInfo> readDevices() const;
    std::vector<WarpEvent> readWarpEvents() const; // in-kernel traces (small: not in the lane cache)
    // Row counts the writer recorded at commit (table table_check); empty for files without.
    std::map<std::string, int64_t> storedRowCounts() const;

    // --- Typed reads: every question core and ui ask a session file. No SQL leaves core/store. ---
    // They throw SessionError (Corrupted/BadInput) naming the file when SQLite fails.
    // R is one of the record types of core/model/records.h that has a table (see rowcodec.h).

    // One row by its id (event tables and others keyed by `id`); nullopt when there is none.
    template <class R> std::optional<R> readRow(int64_t id) const;
    std::optional<KernelRecord> readKernel(int64_t id) const { return readRow<KernelRecord>(id); }
    std::optional<MemcpyRecord> readMemcpy(int64_t id) const { return readRow<MemcpyRecord>(id); }
    std::optional<MemsetRecord> readMemset(int64_t id) const { return readRow<MemsetRecord>(id); }
    std::optional<ApiCallRecord> readApiCall(int64_t id) const { return readRow<ApiCallRecord>(id); }
    std::optional<NvtxRangeRecord> readNvtxRange(int64_t id) const { return readRow<NvtxRangeRecord>(id); }
    std::optional<SyncRecord> readSync(int64_t id) const { return readRow<SyncRecord>(id); }
    std::optional<WarpEvent> readWarpEvent(int64_t id) const { return readRow<WarpEvent>(id); }

    // Rows of process `pid` whose correlation id is `correlationId` (kernel, memcpy, memset,
    // api_call, sync), in id order. Scans the table (there is no index on correlation ids).
    template <class R> std::vector<R> readByCorrelation(int64_t pid, int64_t correlationId) const;
    // Of the rows `ids`, the ids of those whose correlation id is `correlationId`: one lookup per
    // id, for walking candidates found on the timeline. Same tables as readByCorrelation.
    template <class R>
    std::vector<int64_t> idsWithCorrelation(int64_t correlationId, std::span<const int64_t> ids) const;

    // Streams a table in stored order without holding it; with a window, only rows that overlap
    // [window.begin, window.end] (by the table's time columns, see TimeWindow). No checksum check:
    // that needs the whole table (use the read* functions for that).
    struct TimeWindow {
        int64_t begin = 0;
        int64_t end = 0;
    };
    template <class R> void forEachRow(const std::function<void(const R&)>& visit) const;
    template <class R> void forEachRow(TimeWindow window, const std::function<void(const R&)>& visit) const;
    // Only the rows whose id lies in [first, last) (tables keyed by `id`): one slice of a table,
    // so that several connections can read one table at once (KernelLaunchTable's parallel build).
    struct IdRange {
        int64_t first = 0;
        int64_t last = 0;
    };
    template <class R> void forEachRow(IdRange ids, const std::function<void(const R&)>& visit) const;
    // Smallest and largest id of a table; nullopt when the table is empty.
    template <class R> std::optional<std::pair<int64_t, int64_t>> idRange() const;
    // A whole table, its checksum verified against table_check (like readAll).
    template <class R> std::vector<R> readTable() const;
    // Smallest start and largest end of a table (nvtx_mark: ts); nullopt when the table is empty.
    template <class R> std::optional<std::pair<int64_t, int64_t>> timeRange() const;
    // Rows in a table now (SELECT count(*)), for files without table_check.
    template <class R> int64_t rowCount() const;

    // Counter series.
    std::vector<CounterTrack> readCounterTracks() const;
    std::vector<CounterSample> readCounterSamples() const;                 // all tracks, stored order
    std::vector<CounterSample> readCounterSamples(uint32_t trackId) const; // one track, stored order

    // Lane cache chunks (table lane_blob) in key order; `visit` returns false to stop early.
    // `key` and `data` are valid during the call only.
    struct LaneChunk {
        std::string_view key;
        int64_t format = 0;
        std::span<const std::byte> data;
    };
    void forEachLaneChunk(const std::function<bool(const LaneChunk&)>& visit) const;
    // Only the chunks whose key starts with `keyPrefix` (a key range: the other rows are not read).
    void forEachLaneChunk(std::string_view keyPrefix, const std::function<bool(const LaneChunk&)>& visit) const;

    // Metrics. readMeasuredKernels: the launches that have at least one kernel_metric row (a
    // trace of millions of launches has none; a profile one per profiled launch), and those a
    // profiled launch links to (kernel_link), in id order.
    std::vector<MetricDef> readMetricDefs() const;
    std::vector<KernelMetric> readKernelMetrics() const;
    std::vector<KernelRecord> readMeasuredKernels() const;

    // Source tables (PC sampling): empty when the file has no such table; checksums verified.
    std::vector<SassFunction> readSassFunctions() const;
    std::vector<SassInstruction> readSassInstructions() const;
    std::vector<SourceCounter> readSourceCounters() const;
    std::vector<SourceFile> readSourceFiles() const;
    // Event records, stream waits and event synchronisations (optional table event_op).
    std::vector<EventOpRecord> readEventOps() const;
    // The GPU work (kernels, copies, memsets) on the streams of `streams` ((pid, stream id)
    // pairs), just what the dependency derivation needs: ids, stream, correlation id, times
    // (issue time = GPU start: callers with event ops that lack correlation ids join api_call).
    std::vector<GpuOp> readGpuOps(const std::set<std::pair<int64_t, uint32_t>>& streams) const;

    // Schema v2 runs, in id order. A v1 file has one run, inferred from its meta and
    // environment (store/runinference.h): every row of it belongs to run 1.
    std::vector<RunInfo> readRuns() const;
    // Profiled launch -> traced launch (table kernel_link); empty for v1 files.
    std::vector<KernelLink> readKernelLinks() const;
    // The launch's index among the launches of the same kernel (mangled name) by the same
    // process in the same run, in launch order: what a profiler's --launch-skip counts when its
    // filter matches that kernel only. nullopt when no launch has this id.
    std::optional<int64_t> launchOrdinal(int64_t kernelId) const;

    // Metric values by kernel: for every launch that has metrics, its own or those of the
    // profiled launch linked to it (kernel_link), with the launch and run they were measured in.
    // A launch's own metrics win over linked ones. In kernel id order.
    struct KernelMetricValues {
        int64_t kernelId = 0;                            // the launch the values are shown for
        int64_t measuredKernelId = 0;                    // the launch they were measured on (== kernelId when own)
        uint32_t runId = 1;                              // the run of the measured launch
        std::vector<std::pair<uint32_t, double>> values; // (metric_def.id, value)
    };
    std::vector<KernelMetricValues> readMetricsByKernel() const;
    // The same for one launch (event details): nullopt when it has no metrics, own or linked.
    std::optional<KernelMetricValues> readMetricsOfKernel(int64_t kernelId) const;

    // Environment (host, driver, command line...); checksum verified.
    std::map<std::string, std::string> readEnvironment() const;
    bool hasTable(std::string_view table) const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    std::string m_path;
};

} // namespace ws

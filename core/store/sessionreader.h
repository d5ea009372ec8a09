// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"
#include "core/util/cancellation.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct sqlite3;

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

    // Raw handle for code in core that needs its own queries (timeline loader, stats).
    ::sqlite3* handle() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    std::string m_path;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/analysis/sessionfilesource.h"

// Before sessionreader.h: its `struct sqlite3* handle()` must name the global ::sqlite3.
#include <sqlite3.h>

#include "core/store/rowcodec.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sqlite.h"

#include <algorithm>
#include <string>

namespace ws {

namespace {

// Rows are decoded with the store's own codec (store/rowcodec.h), so this streaming reader and
// SessionWriter/SessionReader can never disagree on column order.
template <class R> void streamTable(const SessionReader& reader, const std::function<void(const R&)>& visit)
{
    try {
        sqlite::Statement statement(reader.handle(), store::selectSql<R>(), false);
        R row;
        while (statement.step()) {
            store::ColumnReader columns {statement};
            store::Codec<R>::fields(columns, row);
            visit(row);
        }
    } catch (const sqlite::Error& e) {
        throw SessionError(e.isCorruption() ? SessionError::Kind::Corrupted : SessionError::Kind::BadInput,
            reader.path(), "reading table " + std::string(store::Codec<R>::table) + ": " + e.what());
    }
}

template <class R> std::vector<R> readTable(const SessionReader& reader)
{
    std::vector<R> rows;
    streamTable<R>(reader, [&](const R& row) { rows.push_back(row); });
    return rows;
}

} // namespace

SessionFileSource::SessionFileSource(const SessionReader& reader)
    : m_reader(reader)
{
    // The reader's own table readers verify the stored checksums of these small tables.
    m_header.meta = reader.meta();
    m_header.strings = reader.readStrings();
    m_header.processes = reader.readProcesses();
    m_header.threads = reader.readThreads();
    m_header.devices = reader.readDevices();
    m_header.streams = readTable<StreamInfo>(reader);
    m_header.counterTracks = readTable<CounterTrack>(reader);
    try {
        sqlite::Statement environment(reader.handle(), "SELECT key, value FROM environment", false);
        while (environment.step())
            m_header.environment[std::string(environment.columnText(0))] = std::string(environment.columnText(1));
    } catch (const sqlite::Error& e) {
        throw SessionError(
            SessionError::Kind::Corrupted, reader.path(), std::string("reading environment: ") + e.what());
    }
}

void SessionFileSource::forEachKernel(const std::function<void(const KernelRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachSync(const std::function<void(const SyncRecord&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachWarpEvent(const std::function<void(const WarpEvent&)>& visit) const
{
    streamTable(m_reader, visit);
}

void SessionFileSource::forEachCounterSample(const std::function<void(const CounterSample&)>& visit) const
{
    streamTable(m_reader, visit);
}

TimeSpan SessionFileSource::timeSpan() const
{
    // min/max per table: one scan each inside SQLite, no row crosses into C++.
    static constexpr const char* kQueries[] = {
        "SELECT min(start), max(end) FROM kernel",
        "SELECT min(start), max(end) FROM memcpy",
        "SELECT min(start), max(end) FROM memset",
        "SELECT min(start), max(end) FROM api_call",
        "SELECT min(start), max(end) FROM nvtx_range",
        "SELECT min(ts), max(ts) FROM nvtx_mark",
        "SELECT min(start), max(end) FROM sync",
    };
    TimeSpan span;
    try {
        for (const char* sql : kQueries) {
            sqlite::Statement q(m_reader.handle(), sql, false);
            if (!q.step() || q.columnType(0) == SQLITE_NULL)
                continue;
            const TimeNs begin = q.columnInt64(0);
            const TimeNs end = q.columnInt64(1);
            span.begin = span.valid ? std::min(span.begin, begin) : begin;
            span.end = span.valid ? std::max(span.end, end) : end;
            span.valid = true;
        }
    } catch (const sqlite::Error& e) {
        throw SessionError(
            SessionError::Kind::Corrupted, m_reader.path(), std::string("reading time span: ") + e.what());
    }
    return span;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/store/eventqueries.h"

#include "core/store/rowcodec.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sqlite.h"

#include <algorithm>
#include <string>

namespace ws {

namespace {

// Every read names the file and what it was doing, like SessionReader's own.
template <class F> auto guarded(const SessionReader& reader, const char* what, F&& f)
{
    try {
        return f();
    } catch (const sqlite::Error& e) {
        throw SessionError(SessionError::Kind::Corrupted, reader.path(), std::string(what) + ": " + e.what());
    }
}

} // namespace

template <class R> std::optional<R> readRowById(const SessionReader& reader, int64_t id)
{
    return guarded(reader, "reading one row", [&]() -> std::optional<R> {
        sqlite::Statement q(reader.handle(), store::selectSql<R>() + " WHERE id = ?1", false);
        q.bind(1, id);
        if (!q.step())
            return std::nullopt;
        R row {};
        store::ColumnReader columns {q};
        store::Codec<R>::fields(columns, row);
        return row;
    });
}

template <class R>
std::vector<int64_t> idsWithCorrelation(
    const SessionReader& reader, uint32_t correlationId, std::span<const int64_t> ids)
{
    if (ids.empty())
        return {};
    return guarded(reader, "finding correlated rows", [&] {
        std::string sql
            = "SELECT id FROM " + std::string(store::Codec<R>::table) + " WHERE correlation_id = ?1 AND id IN (";
        for (size_t i = 0; i < ids.size(); ++i)
            sql += (i ? ",?" : "?") + std::to_string(i + 2);
        sql += ") ORDER BY id";
        sqlite::Statement q(reader.handle(), sql, false);
        q.bind(1, static_cast<int64_t>(correlationId));
        for (size_t i = 0; i < ids.size(); ++i)
            q.bind(static_cast<int>(i + 2), ids[i]);
        std::vector<int64_t> hits;
        while (q.step())
            hits.push_back(q.columnInt64(0));
        return hits;
    });
}

template std::optional<KernelRecord> readRowById<KernelRecord>(const SessionReader&, int64_t);
template std::optional<MemcpyRecord> readRowById<MemcpyRecord>(const SessionReader&, int64_t);
template std::optional<MemsetRecord> readRowById<MemsetRecord>(const SessionReader&, int64_t);
template std::optional<ApiCallRecord> readRowById<ApiCallRecord>(const SessionReader&, int64_t);
template std::optional<NvtxRangeRecord> readRowById<NvtxRangeRecord>(const SessionReader&, int64_t);
template std::optional<SyncRecord> readRowById<SyncRecord>(const SessionReader&, int64_t);
template std::optional<WarpEvent> readRowById<WarpEvent>(const SessionReader&, int64_t);

template std::vector<int64_t> idsWithCorrelation<KernelRecord>(
    const SessionReader&, uint32_t, std::span<const int64_t>);
template std::vector<int64_t> idsWithCorrelation<MemcpyRecord>(
    const SessionReader&, uint32_t, std::span<const int64_t>);
template std::vector<int64_t> idsWithCorrelation<MemsetRecord>(
    const SessionReader&, uint32_t, std::span<const int64_t>);
template std::vector<int64_t> idsWithCorrelation<ApiCallRecord>(
    const SessionReader&, uint32_t, std::span<const int64_t>);

std::vector<CounterTrack> readCounterTracks(const SessionReader& reader)
{
    return guarded(reader, "reading counter tracks", [&] {
        std::vector<CounterTrack> tracks;
        sqlite::Statement q(reader.handle(), store::selectSql<CounterTrack>() + " ORDER BY id", false);
        while (q.step()) {
            store::ColumnReader columns {q};
            store::Codec<CounterTrack>::fields(columns, tracks.emplace_back());
        }
        return tracks;
    });
}

bool forEachCounterSample(
    const SessionReader& reader, const std::function<void(const CounterSample&)>& sink, const CancellationToken& cancel)
{
    return guarded(reader, "reading counter samples", [&] {
        // One pass in file order: the table has no index, so a query per track would scan it
        // once per track.
        sqlite::Statement q(reader.handle(), store::selectSql<CounterSample>(), false);
        size_t rows = 0;
        CounterSample s;
        while (q.step()) {
            if ((++rows & 0xFFFF) == 0 && cancel.isCancelled())
                return false;
            store::ColumnReader columns {q};
            store::Codec<CounterSample>::fields(columns, s);
            sink(s);
        }
        return true;
    });
}

} // namespace ws

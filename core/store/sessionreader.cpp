// SPDX-License-Identifier: MIT
#include "core/store/sessionreader.h"

#include "core/store/rowcodec.h"
#include "core/store/runinference.h"
#include "core/store/schema.h"
#include "core/store/sessionerror.h"
#include "core/store/sqlite.h"
#include "core/store/storeerror.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ws {

namespace {

using Kind = SessionError::Kind;

constexpr char kSqliteMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};

uint32_t bigEndian32(const unsigned char* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

struct Header {
    int64_t fileSize = 0;
    int64_t pageSize = 0;
    int64_t pageCount = 0; // 0 when the header's count is not known to be valid
    uint32_t applicationId = 0;
    int32_t userVersion = 0;
};

// Everything that can be said from the first 100 bytes, before SQLite sees the file: this
// is how "not SQLite", "not ours", "newer" and "truncated" get their own clear messages.
Header inspectHeader(const std::string& path)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0)
        throw SessionError(Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        throw SessionError(Kind::NotFound, path, "is a directory, not a session file");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw SessionError(Kind::NotFound, path, std::string("cannot read: ") + std::strerror(errno));
    unsigned char bytes[100] = {};
    ssize_t got = 0;
    while (got < static_cast<ssize_t>(sizeof(bytes))) {
        const ssize_t n = ::read(fd, bytes + got, sizeof(bytes) - static_cast<size_t>(got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += n;
    }
    ::close(fd);

    Header h;
    h.fileSize = static_cast<int64_t>(st.st_size);
    if (got == 0)
        throw SessionError(Kind::NotSqlite, path, "the file is empty, not a Warpscope session");
    if (got < 16 || std::memcmp(bytes, kSqliteMagic, sizeof(kSqliteMagic)) != 0)
        throw SessionError(Kind::NotSqlite, path, "not a SQLite database, so not a Warpscope session");
    if (got < 100)
        throw SessionError(Kind::Truncated, path,
            "the file is truncated: " + std::to_string(got) + " bytes, shorter than a SQLite header");
    h.pageSize = (int64_t(bytes[16]) << 8) | bytes[17];
    if (h.pageSize == 1)
        h.pageSize = 65536;
    if (h.pageSize < 512 || (h.pageSize & (h.pageSize - 1)) != 0)
        throw SessionError(Kind::Corrupted, path, "the file is damaged: invalid page size in the SQLite header");
    h.userVersion = static_cast<int32_t>(bigEndian32(bytes + 60));
    h.applicationId = bigEndian32(bytes + 68);
    // The in-header page count is only valid when "version-valid-for" matches the change counter.
    if (bigEndian32(bytes + 92) == bigEndian32(bytes + 24))
        h.pageCount = bigEndian32(bytes + 28);
    return h;
}

std::string newerSchemaReason(int64_t version)
{
    return "written by a newer Warpscope (schema " + std::to_string(version) + ", this build reads up to "
        + std::to_string(schema::kSchemaVersion) + ")";
}

// Capacity to reserve for a table whose writer stored `rows`. table_check is part of the file being
// opened, so a damaged or forged count must not decide the allocation: beyond this cap the vector grows
// as rows actually arrive, and the count mismatch is reported as corruption afterwards.
size_t reservationFor(int64_t rows)
{
    constexpr int64_t kMaxReservedRows = int64_t(1) << 22;
    return static_cast<size_t>(std::clamp<int64_t>(rows, 0, kMaxReservedRows));
}

} // namespace

struct SessionReader::Impl {
    std::string path;
    std::unique_ptr<sqlite::Database> db;
    int schemaVersion = 0;
    std::map<std::string, std::pair<int64_t, uint64_t>> checks; // table -> (rows, hash)
    std::vector<std::string_view> optionalTables;               // optional tables the file has

    // Reads a table, verifying its row count and content hash against table_check.
    template <class R, class Tick> std::vector<R> readTable(Tick&& tick) const
    {
        using C = store::Codec<R>;
        std::vector<R> rows;
        const auto check = checks.find(std::string(C::info.name));
        if (check != checks.end())
            rows.reserve(reservationFor(check->second.first));
        try {
            sqlite::Statement st = db->prepare(store::selectSql<R>(schemaVersion));
            uint64_t hash = 0;
            while (st.step()) {
                R& row = rows.emplace_back();
                store::ColumnReader reader(st, schemaVersion);
                C::fields(reader, row);
                hash += store::rowHash(row, schemaVersion);
                if ((rows.size() & 0xffff) == 0)
                    tick(C::info.name, rows.size());
            }
            verify(C::info.name, static_cast<int64_t>(rows.size()), hash);
        } catch (const sqlite::Error& e) {
            throw store::readError(path, e, "reading table " + std::string(C::info.name));
        }
        tick(C::info.name, rows.size());
        return rows;
    }

    void verify(std::string_view table, int64_t rows, uint64_t hash) const
    {
        const auto check = checks.find(std::string(table));
        if (check == checks.end())
            return;
        if (check->second.first != rows)
            throw SessionError(Kind::Corrupted, path,
                "the file is damaged: table " + std::string(table) + " has " + std::to_string(rows)
                    + " rows, the writer stored " + std::to_string(check->second.first));
        if (check->second.second != hash)
            throw SessionError(Kind::Corrupted, path,
                "the file is damaged: the content of table " + std::string(table) + " does not match its checksum");
    }

    std::map<std::string, std::string> keyValues(const char* sql, std::string_view table) const
    {
        std::map<std::string, std::string> values;
        try {
            sqlite::Statement st = db->prepare(sql);
            uint64_t hash = 0;
            while (st.step()) {
                RowHasher h;
                h.add(st.columnText(0));
                h.add(st.columnText(1));
                hash += h.value();
                values.emplace(st.columnText(0), st.columnText(1));
            }
            if (table != "meta")
                verify(table, static_cast<int64_t>(values.size()), hash);
        } catch (const sqlite::Error& e) {
            throw store::readError(path, e, "reading table " + std::string(table));
        }
        return values;
    }

    template <class R> std::vector<R> optionalTable() const;

    StringTable strings() const
    {
        std::vector<std::string> all;
        const auto check = checks.find("string");
        if (check != checks.end())
            all.reserve(reservationFor(check->second.first));
        try {
            sqlite::Statement st = db->prepare("SELECT id, text FROM string");
            uint64_t hash = 0;
            while (st.step()) {
                const int64_t id = st.columnInt64(0);
                // Ids are dense from 0: names are referenced by position everywhere.
                if (id != static_cast<int64_t>(all.size()))
                    throw SessionError(Kind::Corrupted, path,
                        "the file is damaged: string ids are not consecutive at id " + std::to_string(id));
                all.emplace_back(st.columnText(1));
                RowHasher h;
                h.add(id);
                h.add(std::string_view(all.back()));
                hash += h.value();
            }
            verify("string", static_cast<int64_t>(all.size()), hash);
        } catch (const sqlite::Error& e) {
            throw store::readError(path, e, "reading table string");
        }
        StringTable table;
        table.assign(std::move(all));
        return table;
    }
};

SessionReader::SessionReader(const std::string& path)
    : d(std::make_unique<Impl>())
    , m_path(path)
{
    d->path = path;
    const Header header = inspectHeader(path);
    if (header.applicationId != static_cast<uint32_t>(schema::kApplicationId))
        throw SessionError(Kind::NotSession, path, "a SQLite database, but not a Warpscope session");
    if (header.userVersion > schema::kSchemaVersion)
        throw SessionError(Kind::NewerSchema, path, newerSchemaReason(header.userVersion));
    if (header.userVersion < 1)
        throw SessionError(Kind::Corrupted, path,
            "the file is damaged: schema version " + std::to_string(header.userVersion)
                + " in the SQLite header is not a Warpscope schema");
    if (header.pageCount > 0 && header.pageCount * header.pageSize > header.fileSize)
        throw SessionError(Kind::Truncated, path,
            "the file is truncated: " + std::to_string(header.fileSize) + " bytes, its header says "
                + std::to_string(header.pageCount * header.pageSize));
    d->schemaVersion = header.userVersion;

    try {
        d->db = std::make_unique<sqlite::Database>(sqlite::fileUri(path, "mode=ro&immutable=1"),
            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX);
        std::set<std::string, std::less<>> present;
        sqlite::Statement tables = d->db->prepare("SELECT name FROM sqlite_schema WHERE type = 'table'");
        while (tables.step())
            present.emplace(tables.columnText(0));
        for (const schema::TableSpec& table : schema::tables()) {
            if (table.since > d->schemaVersion)
                continue;
            if (table.optional) {
                if (present.contains(table.name))
                    d->optionalTables.push_back(table.name);
            } else if (!present.contains(table.name)) {
                throw SessionError(Kind::Corrupted, path, "the file is damaged: table " + table.name + " is missing");
            }
        }
        if (present.contains("table_check")) {
            sqlite::Statement st = d->db->prepare("SELECT table_name, row_count, content_hash FROM table_check");
            while (st.step())
                d->checks.emplace(std::string(st.columnText(0)),
                    std::pair(st.columnInt64(1), std::bit_cast<uint64_t>(st.columnInt64(2))));
        }
    } catch (const sqlite::Error& e) {
        throw store::readError(path, e, "opening");
    }

    const auto values = meta();
    const auto version = values.find("schema_version");
    if (version != values.end() && std::atoll(version->second.c_str()) > schema::kSchemaVersion)
        throw SessionError(Kind::NewerSchema, path, newerSchemaReason(std::atoll(version->second.c_str())));
    const auto complete = values.find("complete");
    if (complete == values.end() || complete->second != "1")
        throw SessionError(Kind::Incomplete, path,
            "the session is incomplete: its recording was not finished (meta.complete is "
                + (complete == values.end() ? std::string("missing") : complete->second) + ")");
}

SessionReader::~SessionReader() = default;

int SessionReader::schemaVersion() const
{
    return d->schemaVersion;
}

std::map<std::string, std::string> SessionReader::meta() const
{
    return d->keyValues("SELECT key, value FROM meta", "meta");
}

std::map<std::string, int64_t> SessionReader::tableCounts() const
{
    std::map<std::string, int64_t> counts;
    for (const schema::TableSpec& spec : schema::tables()) {
        const std::string_view table = spec.name;
        // The lane cache and the checksums belong to the store, not to the session's content.
        if (table == "lane_blob" || table == "table_check" || spec.since > d->schemaVersion)
            continue;
        if (spec.optional
            && std::find(d->optionalTables.begin(), d->optionalTables.end(), table) == d->optionalTables.end())
            continue;
        // Table names come from the schema, never from the file or the user.
        const std::string sql = "SELECT count(*) FROM " + std::string(table);
        try {
            counts[std::string(table)] = d->db->queryInt64(sql);
        } catch (const sqlite::Error& e) {
            throw store::readError(m_path, e, "counting table " + std::string(table));
        }
    }
    return counts;
}

std::map<std::string, int64_t> SessionReader::storedRowCounts() const
{
    std::map<std::string, int64_t> counts;
    for (const auto& [table, check] : d->checks)
        counts[table] = check.first;
    return counts;
}

StringTable SessionReader::readStrings() const
{
    return d->strings();
}

std::vector<ProcessInfo> SessionReader::readProcesses() const
{
    return d->readTable<ProcessInfo>([](std::string_view, size_t) {});
}

std::vector<ThreadInfo> SessionReader::readThreads() const
{
    return d->readTable<ThreadInfo>([](std::string_view, size_t) {});
}

std::vector<DeviceInfo> SessionReader::readDevices() const
{
    return d->readTable<DeviceInfo>([](std::string_view, size_t) {});
}

std::vector<WarpEvent> SessionReader::readWarpEvents() const
{
    return d->readTable<WarpEvent>([](std::string_view, size_t) {});
}

SessionData SessionReader::readAll(const ProgressCallback& progress, const CancellationToken& cancel) const
{
    // Progress is by rows over all tables; the writer's row counts give the total up front.
    // The counts come from the file: a damaged one must not overflow the sum (the mismatch is
    // reported as corruption when its table is read), so each count is clamped and the sum saturates.
    int64_t total = 0;
    for (const auto& [table, check] : d->checks)
        total = std::min<int64_t>(total + std::clamp<int64_t>(check.first, 0, int64_t(1) << 40), int64_t(1) << 62);
    int64_t doneBefore = 0;
    const auto tick = [&](std::string_view table, size_t rowsInTable) {
        if (cancel.isCancelled())
            throw SessionError(Kind::Cancelled, m_path, "reading was cancelled");
        if (progress) {
            const std::string phase = "reading " + std::string(table);
            const double done = static_cast<double>(doneBefore + static_cast<int64_t>(rowsInTable));
            progress(total > 0 ? std::min(1.0, done / static_cast<double>(total)) : 0.0, phase.c_str());
        }
    };
    const auto read = [&]<class R>(std::vector<R>& out) {
        out = d->readTable<R>(tick);
        doneBefore += static_cast<int64_t>(out.size());
    };

    SessionData data;
    tick("meta", 0);
    data.meta = meta();
    // schema_version and complete belong to the store, not to the session's content.
    data.meta.erase("schema_version");
    data.meta.erase("complete");
    data.environment = d->keyValues("SELECT key, value FROM environment", "environment");
    data.strings = d->strings();
    doneBefore += static_cast<int64_t>(data.strings.size());
    read(data.processes);
    read(data.threads);
    read(data.devices);
    read(data.streams);
    read(data.kernels);
    read(data.memcpys);
    read(data.memsets);
    read(data.apiCalls);
    read(data.nvtxRanges);
    read(data.nvtxMarks);
    read(data.syncs);
    read(data.overheads);
    read(data.metricDefs);
    read(data.kernelMetrics);
    read(data.counterTracks);
    read(data.counterSamples);
    read(data.benchRuns);
    read(data.benchSamples);
    read(data.warpEvents);
    // PC-sampling source counters (optional tables: empty for files without them).
    data.sassFunctions = readSassFunctions();
    data.sassInstructions = readSassInstructions();
    data.sourceCounters = readSourceCounters();
    data.sourceFiles = readSourceFiles();
    data.eventOps = readEventOps();
    data.runs = readRuns();
    data.kernelLinks = readKernelLinks();
    if (progress)
        progress(1.0, "done");
    return data;
}

// --- Typed reads ---

namespace {

template <class R> R decodeRow(const sqlite::Statement& st, int version)
{
    R row;
    store::ColumnReader columns(st, version);
    store::Codec<R>::fields(columns, row);
    return row;
}

} // namespace

template <class R> std::optional<R> SessionReader::readRow(int64_t id) const
{
    using C = store::Codec<R>;
    try {
        sqlite::Statement st = d->db->prepare(store::selectSql<R>(d->schemaVersion) + " WHERE id = ?1");
        st.bind(1, id);
        if (!st.step())
            return std::nullopt;
        return decodeRow<R>(st, d->schemaVersion);
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading a row of table " + std::string(C::info.name));
    }
}

template <class R> std::vector<R> SessionReader::readByCorrelation(int64_t pid, int64_t correlationId) const
{
    using C = store::Codec<R>;
    std::vector<R> rows;
    try {
        sqlite::Statement st = d->db->prepare(
            store::selectSql<R>(d->schemaVersion) + " WHERE pid = ?1 AND correlation_id = ?2 ORDER BY id");
        st.bind(1, pid);
        st.bind(2, correlationId);
        while (st.step())
            rows.push_back(decodeRow<R>(st, d->schemaVersion));
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading correlated rows of table " + std::string(C::info.name));
    }
    return rows;
}

template <class R>
std::vector<int64_t> SessionReader::idsWithCorrelation(int64_t correlationId, std::span<const int64_t> ids) const
{
    using C = store::Codec<R>;
    std::vector<int64_t> hits;
    try {
        sqlite::Statement st
            = d->db->prepare("SELECT 1 FROM " + std::string(C::info.name) + " WHERE id = ?1 AND correlation_id = ?2");
        for (const int64_t id : ids) {
            st.reset();
            st.bind(1, id);
            st.bind(2, correlationId);
            if (st.step())
                hits.push_back(id);
        }
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading correlation ids of table " + std::string(C::info.name));
    }
    return hits;
}

namespace {

// One SELECT of a table's codec columns (with an optional WHERE clause and its bindings), each
// row decoded and handed to `visit`: both forEachRow overloads.
template <class R, class Bind>
void streamRows(sqlite::Database& db, int version, const std::string& path, const std::string& where, Bind bind,
    const std::function<void(const R&)>& visit)
{
    using C = store::Codec<R>;
    try {
        sqlite::Statement st = db.prepare(store::selectSql<R>(version) + where);
        bind(st);
        R row;
        while (st.step()) {
            store::ColumnReader columns(st, version);
            C::fields(columns, row);
            visit(row);
        }
    } catch (const sqlite::Error& e) {
        throw store::readError(path, e, "reading table " + std::string(C::info.name));
    }
}

} // namespace

template <class R> void SessionReader::forEachRow(const std::function<void(const R&)>& visit) const
{
    streamRows<R>(
        *d->db, d->schemaVersion, m_path, std::string(), [](sqlite::Statement&) {}, visit);
}

template <class R> void SessionReader::forEachRow(TimeWindow window, const std::function<void(const R&)>& visit) const
{
    using C = store::Codec<R>;
    static_assert(!C::info.timeBegin.empty(), "the table has no time columns");
    const std::string where
        = " WHERE " + std::string(C::info.timeEnd) + " >= ?1 AND " + std::string(C::info.timeBegin) + " <= ?2";
    streamRows<R>(
        *d->db, d->schemaVersion, m_path, where,
        [&](sqlite::Statement& st) {
            st.bind(1, window.begin);
            st.bind(2, window.end);
        },
        visit);
}

template <class R> void SessionReader::forEachRow(IdRange ids, const std::function<void(const R&)>& visit) const
{
    streamRows<R>(
        *d->db, d->schemaVersion, m_path, " WHERE id >= ?1 AND id < ?2",
        [&](sqlite::Statement& st) {
            st.bind(1, ids.first);
            st.bind(2, ids.last);
        },
        visit);
}

template <class R> std::optional<std::pair<int64_t, int64_t>> SessionReader::idRange() const
{
    using C = store::Codec<R>;
    try {
        sqlite::Statement st = d->db->prepare("SELECT min(id), max(id) FROM " + std::string(C::info.name));
        if (!st.step() || st.columnType(0) == SQLITE_NULL)
            return std::nullopt;
        return std::pair(st.columnInt64(0), st.columnInt64(1));
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading the id range of table " + std::string(C::info.name));
    }
}

template <class R> std::vector<R> SessionReader::readTable() const
{
    return d->readTable<R>([](std::string_view, size_t) {});
}

template <class R> std::optional<std::pair<int64_t, int64_t>> SessionReader::timeRange() const
{
    using C = store::Codec<R>;
    static_assert(!C::info.timeBegin.empty(), "the table has no time columns");
    try {
        sqlite::Statement st = d->db->prepare("SELECT min(" + std::string(C::info.timeBegin) + "), max("
            + std::string(C::info.timeEnd) + ") FROM " + std::string(C::info.name));
        if (!st.step() || st.columnType(0) == SQLITE_NULL)
            return std::nullopt;
        return std::pair(st.columnInt64(0), st.columnInt64(1));
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading the time range of table " + std::string(C::info.name));
    }
}

template <class R> int64_t SessionReader::rowCount() const
{
    using C = store::Codec<R>;
    try {
        return d->db->queryInt64("SELECT count(*) FROM " + std::string(C::info.name));
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "counting table " + std::string(C::info.name));
    }
}

// The instantiations the rest of the code may use: the codecs stay inside core/store.
#define WS_READER_ROWS(R)                                                                                              \
    template std::optional<R> SessionReader::readRow<R>(int64_t) const;                                                \
    template void SessionReader::forEachRow<R>(const std::function<void(const R&)>&) const;                            \
    template void SessionReader::forEachRow<R>(IdRange, const std::function<void(const R&)>&) const;                   \
    template std::optional<std::pair<int64_t, int64_t>> SessionReader::idRange<R>() const;                             \
    template std::vector<R> SessionReader::readTable<R>() const;                                                       \
    template int64_t SessionReader::rowCount<R>() const;
#define WS_READER_TIMED(R)                                                                                             \
    template void SessionReader::forEachRow<R>(TimeWindow, const std::function<void(const R&)>&) const;                \
    template std::optional<std::pair<int64_t, int64_t>> SessionReader::timeRange<R>() const;
#define WS_READER_CORRELATED(R)                                                                                        \
    template std::vector<R> SessionReader::readByCorrelation<R>(int64_t, int64_t) const;                               \
    template std::vector<int64_t> SessionReader::idsWithCorrelation<R>(int64_t, std::span<const int64_t>) const;

WS_READER_ROWS(KernelRecord)
WS_READER_ROWS(MemcpyRecord)
WS_READER_ROWS(MemsetRecord)
WS_READER_ROWS(ApiCallRecord)
WS_READER_ROWS(NvtxRangeRecord)
WS_READER_ROWS(NvtxMarkRecord)
WS_READER_ROWS(SyncRecord)
WS_READER_ROWS(OverheadRecord)
WS_READER_ROWS(WarpEvent)
WS_READER_ROWS(CounterTrack)
WS_READER_ROWS(MetricDef)
WS_READER_ROWS(BenchRun)
WS_READER_ROWS(SassFunction)
WS_READER_ROWS(SourceFile)
template void SessionReader::forEachRow<CounterSample>(const std::function<void(const CounterSample&)>&) const;
template void SessionReader::forEachRow<KernelMetric>(const std::function<void(const KernelMetric&)>&) const;
template void SessionReader::forEachRow<BenchSample>(const std::function<void(const BenchSample&)>&) const;
template void SessionReader::forEachRow<StreamInfo>(const std::function<void(const StreamInfo&)>&) const;
template std::vector<StreamInfo> SessionReader::readTable<StreamInfo>() const;
template std::vector<BenchSample> SessionReader::readTable<BenchSample>() const;
template std::vector<KernelMetric> SessionReader::readTable<KernelMetric>() const;
template std::vector<CounterSample> SessionReader::readTable<CounterSample>() const;
template std::vector<RunInfo> SessionReader::readTable<RunInfo>() const;
template std::vector<KernelLink> SessionReader::readTable<KernelLink>() const;
template int64_t SessionReader::rowCount<CounterSample>() const;
template int64_t SessionReader::rowCount<KernelMetric>() const;
WS_READER_TIMED(KernelRecord)
WS_READER_TIMED(MemcpyRecord)
WS_READER_TIMED(MemsetRecord)
WS_READER_TIMED(ApiCallRecord)
WS_READER_TIMED(NvtxRangeRecord)
WS_READER_TIMED(NvtxMarkRecord)
WS_READER_TIMED(SyncRecord)
WS_READER_TIMED(OverheadRecord)
WS_READER_TIMED(WarpEvent)
WS_READER_TIMED(CounterSample)
WS_READER_CORRELATED(KernelRecord)
WS_READER_CORRELATED(MemcpyRecord)
WS_READER_CORRELATED(MemsetRecord)
WS_READER_CORRELATED(ApiCallRecord)
WS_READER_CORRELATED(SyncRecord)
#undef WS_READER_ROWS
#undef WS_READER_TIMED
#undef WS_READER_CORRELATED

std::vector<CounterTrack> SessionReader::readCounterTracks() const
{
    return readTable<CounterTrack>();
}

std::vector<CounterSample> SessionReader::readCounterSamples() const
{
    return readTable<CounterSample>();
}

std::vector<CounterSample> SessionReader::readCounterSamples(uint32_t trackId) const
{
    std::vector<CounterSample> rows;
    try {
        sqlite::Statement st
            = d->db->prepare(store::selectSql<CounterSample>(d->schemaVersion) + " WHERE track_id = ?1");
        st.bind(1, static_cast<int64_t>(trackId));
        while (st.step())
            rows.push_back(decodeRow<CounterSample>(st, d->schemaVersion));
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading table counter_sample");
    }
    return rows;
}

void SessionReader::forEachLaneChunk(const std::function<bool(const LaneChunk&)>& visit) const
{
    try {
        sqlite::Statement st = d->db->prepare("SELECT lane_key, format, data FROM lane_blob");
        while (st.step()) {
            if (!visit(LaneChunk {st.columnText(0), st.columnInt64(1), st.columnBlob(2)}))
                return;
        }
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading table lane_blob");
    }
}

void SessionReader::forEachLaneChunk(
    std::string_view keyPrefix, const std::function<bool(const LaneChunk&)>& visit) const
{
    try {
        // [prefix, prefix with its last byte raised): the primary key's range, no scan.
        std::string end(keyPrefix);
        while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff)
            end.pop_back();
        if (!end.empty())
            end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
        sqlite::Statement st = d->db->prepare(end.empty()
                ? "SELECT lane_key, format, data FROM lane_blob WHERE lane_key >= ?1"
                : "SELECT lane_key, format, data FROM lane_blob WHERE lane_key >= ?1 AND lane_key < ?2");
        st.bind(1, keyPrefix);
        if (!end.empty())
            st.bind(2, std::string_view(end));
        while (st.step()) {
            if (!visit(LaneChunk {st.columnText(0), st.columnInt64(1), st.columnBlob(2)}))
                return;
        }
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading table lane_blob");
    }
}

std::vector<MetricDef> SessionReader::readMetricDefs() const
{
    return readTable<MetricDef>();
}

std::vector<KernelMetric> SessionReader::readKernelMetrics() const
{
    return readTable<KernelMetric>();
}

std::vector<KernelRecord> SessionReader::readMeasuredKernels() const
{
    std::vector<KernelRecord> rows;
    try {
        std::string sql = store::selectSql<KernelRecord>(d->schemaVersion)
            + " WHERE id IN (SELECT DISTINCT kernel_id FROM kernel_metric)";
        // A linked profiled launch is measured on behalf of its traced launch: only the traced
        // one is listed (with the profiled launch's metrics, readMetricsByKernel).
        if (d->schemaVersion >= 2)
            sql += " AND id NOT IN (SELECT kernel_id FROM kernel_link)"
                   " OR id IN (SELECT trace_kernel_id FROM kernel_link)";
        sqlite::Statement st = d->db->prepare(sql + " ORDER BY id");
        while (st.step())
            rows.push_back(decodeRow<KernelRecord>(st, d->schemaVersion));
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading measured kernels");
    }
    return rows;
}

std::vector<GpuOp> SessionReader::readGpuOps(const std::set<std::pair<int64_t, uint32_t>>& streams) const
{
    std::vector<GpuOp> ops;
    if (streams.empty())
        return ops;
    static constexpr std::pair<const char*, GpuOpRef::Table> tables[] = {
        {"kernel", GpuOpRef::Table::Kernel},
        {"memcpy", GpuOpRef::Table::Memcpy},
        {"memset", GpuOpRef::Table::Memset},
    };
    try {
        for (const auto& [table, kind] : tables) {
            // Table names are constants above; a full scan of six columns, filtered here.
            sqlite::Statement st
                = d->db->prepare(std::string("SELECT id, pid, stream_id, correlation_id, start, end FROM ") + table);
            while (st.step()) {
                const int64_t pid = st.columnInt64(1);
                const auto stream = static_cast<uint32_t>(st.columnInt64(2));
                if (!streams.contains({pid, stream}))
                    continue;
                GpuOp o;
                o.ref = {kind, st.columnInt64(0)};
                o.pid = pid;
                o.streamId = stream;
                o.correlationId = static_cast<uint32_t>(st.columnInt64(3));
                o.start = st.columnInt64(4);
                o.end = st.columnInt64(5);
                o.issued = o.start;
                ops.push_back(o);
            }
        }
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading the GPU work of the streams events name");
    }
    return ops;
}

template <class R> std::vector<R> SessionReader::Impl::optionalTable() const
{
    if (std::find(optionalTables.begin(), optionalTables.end(), store::Codec<R>::info.name) == optionalTables.end())
        return {};
    return readTable<R>([](std::string_view, size_t) {});
}

std::vector<SassFunction> SessionReader::readSassFunctions() const
{
    return d->optionalTable<SassFunction>();
}

std::vector<EventOpRecord> SessionReader::readEventOps() const
{
    return d->optionalTable<EventOpRecord>();
}

std::vector<SassInstruction> SessionReader::readSassInstructions() const
{
    return d->optionalTable<SassInstruction>();
}

std::vector<SourceCounter> SessionReader::readSourceCounters() const
{
    return d->optionalTable<SourceCounter>();
}

std::vector<SourceFile> SessionReader::readSourceFiles() const
{
    return d->optionalTable<SourceFile>();
}

std::vector<RunInfo> SessionReader::readRuns() const
{
    if (d->schemaVersion >= 2)
        return readTable<RunInfo>();
    const auto stored = storedRowCounts();
    const auto has = [&](const char* table) {
        const auto it = stored.find(table);
        return it != stored.end() ? it->second > 0
                                  : (d->db->queryInt64(std::string("SELECT count(*) FROM ") + table) > 0);
    };
    const std::map<std::string, std::string> values = meta();
    const std::map<std::string, std::string> environment = readEnvironment();
    try {
        return {store::inferRun(values, environment, has("kernel"), has("bench_run"))};
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading the run of a v1 file");
    }
}

std::vector<KernelLink> SessionReader::readKernelLinks() const
{
    if (d->schemaVersion < 2)
        return {};
    return readTable<KernelLink>();
}

std::optional<int64_t> SessionReader::launchOrdinal(int64_t kernelId) const
{
    const std::optional<KernelRecord> k = readKernel(kernelId);
    if (!k)
        return std::nullopt;
    try {
        const std::string sameRun = d->schemaVersion >= 2 ? " AND run_id = ?4" : "";
        sqlite::Statement st
            = d->db->prepare("SELECT count(*) FROM kernel WHERE pid = ?1 AND mangled_name = ?2 AND id < ?3" + sameRun);
        st.bind(1, k->pid);
        st.bind(2, static_cast<int64_t>(k->mangledName));
        st.bind(3, kernelId);
        if (d->schemaVersion >= 2)
            st.bind(4, static_cast<int64_t>(k->runId));
        st.step();
        return st.columnInt64(0);
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "counting the launches before kernel " + std::to_string(kernelId));
    }
}

std::vector<SessionReader::KernelMetricValues> SessionReader::readMetricsByKernel() const
{
    std::map<int64_t, KernelMetricValues> own;
    forEachRow<KernelMetric>([&](const KernelMetric& m) {
        KernelMetricValues& v = own[m.kernelId];
        v.kernelId = v.measuredKernelId = m.kernelId;
        v.runId = m.runId;
        v.values.emplace_back(m.metricId, m.value);
    });
    std::map<int64_t, KernelMetricValues> all = own;
    for (const KernelLink& link : readKernelLinks()) {
        const auto measured = own.find(link.kernelId);
        if (measured == own.end() || own.contains(link.traceKernelId))
            continue;
        KernelMetricValues v = measured->second;
        v.kernelId = link.traceKernelId;
        all.emplace(link.traceKernelId, std::move(v));
        all.erase(link.kernelId); // shown on the traced launch only, not twice
    }
    std::vector<KernelMetricValues> out;
    out.reserve(all.size());
    for (auto& [id, v] : all)
        out.push_back(std::move(v));
    return out;
}

std::optional<SessionReader::KernelMetricValues> SessionReader::readMetricsOfKernel(int64_t kernelId) const
{
    try {
        const auto valuesOf = [&](int64_t measured) {
            KernelMetricValues v;
            v.kernelId = kernelId;
            v.measuredKernelId = measured;
            sqlite::Statement st
                = d->db->prepare(store::selectSql<KernelMetric>(d->schemaVersion) + " WHERE kernel_id = ?1");
            st.bind(1, measured);
            while (st.step()) {
                const KernelMetric m = decodeRow<KernelMetric>(st, d->schemaVersion);
                v.runId = m.runId;
                v.values.emplace_back(m.metricId, m.value);
            }
            return v;
        };
        KernelMetricValues own = valuesOf(kernelId);
        if (!own.values.empty() || d->schemaVersion < 2)
            return own.values.empty() ? std::nullopt : std::optional(std::move(own));
        sqlite::Statement link
            = d->db->prepare("SELECT kernel_id FROM kernel_link WHERE trace_kernel_id = ?1 ORDER BY kernel_id");
        link.bind(1, kernelId);
        while (link.step()) {
            KernelMetricValues linked = valuesOf(link.columnInt64(0));
            if (!linked.values.empty())
                return linked;
        }
        return std::nullopt;
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading the metrics of kernel " + std::to_string(kernelId));
    }
}

std::map<std::string, std::string> SessionReader::readEnvironment() const
{
    return d->keyValues("SELECT key, value FROM environment", "environment");
}

bool SessionReader::hasTable(std::string_view table) const
{
    try {
        return d->db->hasTable(table);
    } catch (const sqlite::Error& e) {
        throw store::readError(m_path, e, "reading the table list");
    }
}

} // namespace ws

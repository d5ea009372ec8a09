// SPDX-License-Identifier: MIT
#include "core/store/sessionwriter.h"

#include "core/store/rowcodec.h"
#include "core/store/runinference.h"
#include "core/store/schema.h"
#include "core/store/sessionerror.h"
#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <optional>
#include <unistd.h>

namespace ws {

namespace {

struct TableCheck {
    int64_t rows = 0;
    uint64_t hash = 0;  // sum of row hashes: independent of insertion order
    int64_t lastId = 0; // the table's largest row id (each table starts empty in our file)
};

std::string utcNow()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm {};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

// Flushes a file or directory to disk; a rename is only durable after both are synced.
void syncPath(const std::string& path, bool directory)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
    if (fd < 0)
        throw std::runtime_error("cannot open " + path + " to flush it: " + std::strerror(errno));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    // Some file systems refuse fsync on directories (EINVAL); the rename is still atomic there.
    if (rc != 0 && !(directory && err == EINVAL))
        throw std::runtime_error("cannot flush " + path + ": " + std::strerror(err));
}

} // namespace

struct SessionWriter::Impl {
    std::string tmpPath;
    std::unique_ptr<sqlite::Database> db;
    std::map<std::pair<std::string_view, bool>, sqlite::Statement> inserts;
    std::map<std::string, TableCheck> checks;
    std::map<std::string, std::string> meta;
    std::map<std::string, std::string> environment;
    uint32_t lastRunId = 0; // 0: no run row yet
    std::vector<std::unique_ptr<SessionRowObserver>> observers;
    StringId stringCount = 1;
    bool stringsWritten = false;
    bool committed = false;
    bool failed = false;
    int64_t rows = 0;

    sqlite::Statement& statement(std::string_view table, bool multiRow, const std::string& sql)
    {
        const auto key = std::pair(table, multiRow);
        auto it = inserts.find(key);
        if (it == inserts.end())
            it = inserts.emplace(key, db->prepare(sql, /*persistent=*/true)).first;
        return it->second;
    }

    // Rows per multi-row INSERT: one statement execution per 32 rows instead of per row
    // roughly halves the cost of an insert (32 x 28 parameters is far below SQLite's limit).
    static constexpr size_t kRowsPerInsert = 32;

    template <class R> void append(std::span<const R> records)
    {
        using C = store::Codec<R>;
        sqlite::Statement& one = statement(C::info.name, false, store::insertSql<R>(1));
        sqlite::Statement& many = statement(C::info.name, true, store::insertSql<R>(kRowsPerInsert));
        TableCheck& check = checks[std::string(C::info.name)];
        sqlite::Transaction tx(*db);
        size_t i = 0;
        while (i < records.size()) {
            const std::span<const R> block = records.subspan(i, std::min(kRowsPerInsert, records.size() - i));
            // Rows that ask for an automatic id go one by one: only then is each new rowid known.
            bool bulk = block.size() == kRowsPerInsert;
            if constexpr (C::kAutoId)
                bulk = bulk && std::none_of(block.begin(), block.end(), [](const R& r) { return r.id == 0; });
            if (bulk) {
                store::Binder binder {many};
                for (const R& record : block)
                    C::fields(binder, record);
                if constexpr (C::kAutoId) {
                    // Rows that continue the table's ids (the usual case: ids numbered in order)
                    // go in with a NULL id: SQLite then gives each the next row id, the same
                    // number, and appends at the b-tree's end instead of first searching it for
                    // the id (bench_iket_ingest: that search took 12 % of writing warp events).
                    bool continues = true;
                    for (size_t r = 0; r < block.size() && continues; ++r)
                        continues = block[r].id == check.lastId + 1 + static_cast<int64_t>(r);
                    if (continues) {
                        const size_t columns = static_cast<size_t>(binder.index - 1) / block.size();
                        for (size_t r = 0; r < block.size(); ++r)
                            many.bindNull(static_cast<int>(r * columns + 1)); // id: each row's first
                        many.run();
                        if (db->lastInsertRowid() != block.back().id)
                            throw std::runtime_error(std::string(C::info.name) + ": row ids did not continue at "
                                + std::to_string(block.front().id));
                        for (const R& record : block)
                            stored(record, check);
                        i += block.size();
                        continue;
                    }
                }
                many.run();
                for (const R& record : block)
                    stored(record, check);
                i += block.size();
                continue;
            }
            const R& record = records[i++];
            store::Binder binder {one};
            C::fields(binder, record);
            if constexpr (C::kAutoId) {
                if (record.id == 0) {
                    one.bindNull(1);
                    one.run();
                    R withId = record;
                    withId.id = db->lastInsertRowid();
                    stored(withId, check);
                    continue;
                }
            }
            one.run();
            stored(record, check);
        }
        tx.commit();
        check.rows += static_cast<int64_t>(records.size());
        if constexpr (!std::is_same_v<R, RunInfo> && !std::is_same_v<R, KernelLink>)
            rows += static_cast<int64_t>(records.size()); // runs and links are bookkeeping, not rows of a run
    }

    // Bookkeeping for a row now in the table (with its final id): checksum and lane cache.
    template <class R> void stored(const R& record, TableCheck& check)
    {
        check.hash += store::rowHash(record);
        if constexpr (store::Codec<R>::kAutoId)
            check.lastId = std::max(check.lastId, record.id);
        if constexpr (requires(SessionRowObserver & o) { o.stored(record); }) {
            for (const auto& observer : observers)
                observer->stored(record);
        }
    }

    // Small tables: replace the whole content.
    template <class R> void replace(const std::vector<R>& records)
    {
        using C = store::Codec<R>;
        std::string sql = "DELETE FROM ";
        sql += C::info.name;
        db->exec(sql.c_str());
        checks.erase(std::string(C::info.name));
        append(std::span<const R>(records));
    }

    TableCheck replaceKeyValues(const char* table, const std::map<std::string, std::string>& values)
    {
        std::string sql = "DELETE FROM ";
        sql += table;
        db->exec(sql.c_str());
        sql = "INSERT INTO ";
        sql += table;
        sql += "(key, value) VALUES(?1, ?2)";
        sqlite::Statement st = db->prepare(sql);
        TableCheck check;
        for (const auto& [key, value] : values) {
            st.bind(1, std::string_view(key));
            st.bind(2, std::string_view(value));
            st.run();
            RowHasher h;
            h.add(std::string_view(key));
            h.add(std::string_view(value));
            check.hash += h.value();
            ++check.rows;
        }
        return check;
    }

    void writeStrings(const StringTable& strings)
    {
        db->exec("DELETE FROM string");
        sqlite::Statement st = db->prepare("INSERT INTO string(id, text) VALUES(?1, ?2)");
        TableCheck check;
        const auto& all = strings.all();
        for (size_t i = 0; i < all.size(); ++i) {
            st.bind(1, static_cast<int64_t>(i));
            st.bind(2, std::string_view(all[i]));
            st.run();
            RowHasher h;
            h.add(static_cast<int64_t>(i));
            h.add(std::string_view(all[i]));
            check.hash += h.value();
            ++check.rows;
        }
        checks["string"] = check;
        stringCount = static_cast<StringId>(all.size());
        stringsWritten = true;
    }

    void writeLaneCache()
    {
        sqlite::Statement st = db->prepare(store::insertSql<store::LaneBlobRow>(1));
        for (const auto& observer : observers) {
            observer->finish(stringCount, [&](SessionRowObserver::LaneChunkRow&& row) {
                st.bind(1, std::string_view(row.key));
                st.bind(2, row.format);
                st.bindBlob(3, row.data);
                st.run();
            });
        }
    }

    void writeChecks()
    {
        db->exec("DELETE FROM table_check");
        sqlite::Statement st
            = db->prepare("INSERT INTO table_check(table_name, row_count, content_hash) VALUES(?1, ?2, ?3)");
        for (const auto& [table, check] : checks) {
            st.bind(1, std::string_view(table));
            st.bind(2, check.rows);
            st.bind(3, std::bit_cast<int64_t>(check.hash));
            st.run();
        }
    }

    void close()
    {
        inserts.clear();
        db.reset();
    }
};

SessionWriter::SessionWriter(std::string path)
    : d(std::make_unique<Impl>())
    , m_path(std::move(path))
{
    d->tmpPath = m_path + ".tmp-" + std::to_string(::getpid());
    std::error_code ec;
    std::filesystem::remove(d->tmpPath, ec); // left over from a crashed writer with our pid
    try {
        d->db = std::make_unique<sqlite::Database>(d->tmpPath,
            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOFOLLOW
                | SQLITE_OPEN_NOMUTEX);
        // The temp file is renamed into place only after a successful commit, so a crash
        // mid-write can cost nothing but the temp file: no journal, no syncs until the end.
        // 16 KiB pages: measured on 1M synthetic events, 4x larger pages wrote and scanned
        // no faster but made files 4 % larger, and every table's first page (25 tables)
        // would cost 64 KiB even in a tiny session.
        d->db->exec("PRAGMA page_size = 16384;"
                    "PRAGMA journal_mode = OFF;"
                    "PRAGMA synchronous = OFF;"
                    "PRAGMA locking_mode = EXCLUSIVE;"
                    "PRAGMA temp_store = MEMORY;"
                    "PRAGMA cache_size = -65536;");
        const std::string header = "PRAGMA application_id = " + std::to_string(schema::kApplicationId)
            + "; PRAGMA user_version = " + std::to_string(schema::kSchemaVersion) + ";";
        sqlite::Transaction tx(*d->db);
        d->db->exec(header.c_str());
        const std::string ddl(schema::createStatements());
        d->db->exec(ddl.c_str());
        tx.commit();
    } catch (const sqlite::Error& e) {
        d->close();
        std::filesystem::remove(d->tmpPath, ec);
        throw SessionError(
            SessionError::Kind::WriteFailed, m_path, "cannot create temporary file " + d->tmpPath + ": " + e.what());
    }
}

SessionWriter::~SessionWriter()
{
    if (d->committed)
        return;
    d->close();
    std::error_code ec;
    std::filesystem::remove(d->tmpPath, ec);
}

// Every entry point funnels through one place that turns SQLite failures into SessionErrors
// and refuses further use after a failure (the lane cache would no longer match the tables).
template <class F> static void runGuarded(bool& failed, bool committed, const std::string& path, F&& body)
{
    if (committed)
        throw SessionError(SessionError::Kind::WriteFailed, path, "the session was already committed");
    if (failed)
        throw SessionError(SessionError::Kind::WriteFailed, path, "an earlier write failed");
    try {
        body();
    } catch (const store::NanValue& e) {
        failed = true;
        throw SessionError(SessionError::Kind::BadInput, path, e.what());
    } catch (const sqlite::Error& e) {
        failed = true;
        const auto kind
            = e.primaryCode() == SQLITE_CONSTRAINT ? SessionError::Kind::BadInput : SessionError::Kind::WriteFailed;
        throw SessionError(kind, path, e.what());
    } catch (const std::runtime_error& e) {
        if (dynamic_cast<const SessionError*>(&e))
            throw;
        failed = true;
        throw SessionError(SessionError::Kind::WriteFailed, path, e.what());
    }
}

void SessionWriter::attach(std::unique_ptr<SessionRowObserver> observer)
{
    d->observers.push_back(std::move(observer));
}

void SessionWriter::write(const SessionData& data)
{
    writeHeaderTables(data);
    appendKernels(data.kernels);
    appendMemcpys(data.memcpys);
    appendMemsets(data.memsets);
    appendApiCalls(data.apiCalls);
    appendNvtxRanges(data.nvtxRanges);
    appendNvtxMarks(data.nvtxMarks);
    appendSyncs(data.syncs);
    appendOverheads(data.overheads);
    appendWarpEvents(data.warpEvents);
    appendEventOps(data.eventOps);
    appendCounterSamples(data.counterSamples);
    appendBenchSamples(data.benchSamples);
    appendKernelMetrics(data.kernelMetrics);
    appendKernelLinks(data.kernelLinks);
    if (!data.sassInstructions.empty() || !data.sourceCounters.empty())
        runGuarded(d->failed, d->committed, m_path, [&] {
            d->append(std::span<const SassInstruction>(data.sassInstructions));
            d->append(std::span<const SourceCounter>(data.sourceCounters));
        });
}

#define WS_APPEND(Method, Record)                                                                                      \
    void SessionWriter::Method(std::span<const Record> rows)                                                           \
    {                                                                                                                  \
        if (!rows.empty())                                                                                             \
            runGuarded(d->failed, d->committed, m_path, [&] { d->append(rows); });                                     \
    }
WS_APPEND(appendKernels, KernelRecord)
WS_APPEND(appendMemcpys, MemcpyRecord)
WS_APPEND(appendMemsets, MemsetRecord)
WS_APPEND(appendApiCalls, ApiCallRecord)
WS_APPEND(appendNvtxRanges, NvtxRangeRecord)
WS_APPEND(appendNvtxMarks, NvtxMarkRecord)
WS_APPEND(appendSyncs, SyncRecord)
WS_APPEND(appendOverheads, OverheadRecord)
WS_APPEND(appendWarpEvents, WarpEvent)
WS_APPEND(appendEventOps, EventOpRecord)
WS_APPEND(appendCounterSamples, CounterSample)
WS_APPEND(appendBenchSamples, BenchSample)
WS_APPEND(appendKernelMetrics, KernelMetric)
WS_APPEND(appendKernelLinks, KernelLink)
#undef WS_APPEND

void SessionWriter::writeHeaderTables(const SessionData& data)
{
    runGuarded(d->failed, d->committed, m_path, [&] {
        sqlite::Transaction tx(*d->db);
        d->writeStrings(data.strings);
        d->checks["environment"] = d->replaceKeyValues("environment", data.environment);
        d->replace(data.processes);
        d->replace(data.threads);
        d->replace(data.devices);
        d->replace(data.streams);
        d->replace(data.metricDefs);
        d->replace(data.counterTracks);
        d->replace(data.benchRuns);
        d->replace(data.sassFunctions);
        d->replace(data.sourceFiles);
        if (!data.runs.empty()) {
            d->replace(data.runs);
            d->lastRunId = 0;
            for (const RunInfo& r : data.runs)
                d->lastRunId = std::max(d->lastRunId, r.id);
        }
        tx.commit();
        d->meta = data.meta;
        d->environment = data.environment;
    });
}

uint32_t SessionWriter::beginRun(RunInfo run)
{
    runGuarded(d->failed, d->committed, m_path, [&] {
        if (run.id == 0)
            run.id = d->lastRunId + 1;
        d->append(std::span<const RunInfo>(&run, 1));
        d->lastRunId = std::max(d->lastRunId, run.id);
    });
    return run.id;
}

void SessionWriter::commit()
{
    runGuarded(d->failed, d->committed, m_path, [&] {
        {
            sqlite::Transaction tx(*d->db);
            if (!d->stringsWritten)
                d->writeStrings(StringTable());
            if (d->lastRunId == 0) {
                // Every v2 file says which run produced its rows (run 1, the rows' default).
                const auto rowsOf = [&](const char* table) {
                    const auto it = d->checks.find(table);
                    return it == d->checks.end() ? int64_t(0) : it->second.rows;
                };
                const RunInfo run
                    = store::inferRun(d->meta, d->environment, rowsOf("kernel") > 0, rowsOf("bench_run") > 0);
                d->append(std::span<const RunInfo>(&run, 1));
                d->lastRunId = run.id;
            }
            std::map<std::string, std::string> meta = d->meta;
            meta.try_emplace("created", utcNow());
            meta.try_emplace("tool_version", WS_VERSION);
            meta["schema_version"] = std::to_string(schema::kSchemaVersion);
            meta["complete"] = "1";
            // meta is not checksummed: it is the one table users are expected to edit.
            d->replaceKeyValues("meta", meta);
            d->writeLaneCache();
            d->writeChecks();
            tx.commit();
        }
        d->close();
        syncPath(d->tmpPath, false);
        std::filesystem::rename(d->tmpPath, m_path);
        const std::filesystem::path parent = std::filesystem::absolute(m_path).parent_path();
        syncPath(parent.string(), true);
        d->committed = true;
    });
}

int64_t SessionWriter::rowsWritten() const
{
    return d->rows;
}

} // namespace ws

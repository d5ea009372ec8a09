// SPDX-License-Identifier: MIT
#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace ws::sqlite {

namespace {

[[noreturn]] void throwError(sqlite3* db, int rc, std::string_view what)
{
    // sqlite3_errmsg describes the most recent failure on the connection; fall back to the
    // generic text of the code when there is no connection (open failed before allocating).
    std::string message(what);
    message += ": ";
    message += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    const int code = db ? sqlite3_extended_errcode(db) : rc;
    throw Error(code, message);
}

} // namespace

bool Error::isCorruption() const
{
    const int primary = primaryCode();
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_FORMAT;
}

bool Error::isNotADatabase() const
{
    return primaryCode() == SQLITE_NOTADB;
}

Statement::Statement(sqlite3* db, std::string_view sql, bool persistent)
{
    const unsigned flags = persistent ? SQLITE_PREPARE_PERSISTENT : 0;
    const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), flags, &m_stmt, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(m_stmt);
        m_stmt = nullptr;
        throwError(db, rc, "cannot prepare statement");
    }
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

Statement::Statement(Statement&& other) noexcept
    : m_stmt(std::exchange(other.m_stmt, nullptr))
{
}

Statement& Statement::operator=(Statement&& other) noexcept
{
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_stmt = std::exchange(other.m_stmt, nullptr);
    }
    return *this;
}

void Statement::fail(int rc) const
{
    throwError(sqlite3_db_handle(m_stmt), rc, "SQLite error");
}

void Statement::bind(int index, int64_t value)
{
    if (const int rc = sqlite3_bind_int64(m_stmt, index, value); rc != SQLITE_OK)
        fail(rc);
}

void Statement::bind(int index, double value)
{
    if (const int rc = sqlite3_bind_double(m_stmt, index, value); rc != SQLITE_OK)
        fail(rc);
}

void Statement::bind(int index, std::string_view text)
{
    const int rc = sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK)
        fail(rc);
}

void Statement::bindBlob(int index, std::span<const std::byte> data)
{
    // A zero-length blob must still be a blob, not NULL: sqlite3_bind_blob64 with a null
    // pointer binds NULL, which NOT NULL columns reject.
    const int rc = data.empty() ? sqlite3_bind_zeroblob(m_stmt, index, 0)
                                : sqlite3_bind_blob64(m_stmt, index, data.data(), data.size(), SQLITE_TRANSIENT);
    if (rc != SQLITE_OK)
        fail(rc);
}

void Statement::bindNull(int index)
{
    if (const int rc = sqlite3_bind_null(m_stmt, index); rc != SQLITE_OK)
        fail(rc);
}

bool Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    // Since sqlite3_prepare_v3 the step result already is the specific error code.
    fail(rc);
}

void Statement::run()
{
    if (step())
        throw Error(SQLITE_MISUSE, "statement returned rows where none were expected");
    reset();
}

void Statement::reset()
{
    // The error (if any) was already reported by step(); reset only rearms the statement.
    sqlite3_reset(m_stmt);
}

int Statement::columnCount() const
{
    return sqlite3_column_count(m_stmt);
}

int Statement::columnType(int column) const
{
    return sqlite3_column_type(m_stmt, column);
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

int64_t Statement::columnInt64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

int Statement::columnInt(int column) const
{
    return sqlite3_column_int(m_stmt, column);
}

double Statement::columnDouble(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

std::string_view Statement::columnText(int column) const
{
    const auto* text = sqlite3_column_text(m_stmt, column);
    const int size = sqlite3_column_bytes(m_stmt, column);
    if (!text)
        return {};
    return {reinterpret_cast<const char*>(text), static_cast<size_t>(size)};
}

std::span<const std::byte> Statement::columnBlob(int column) const
{
    const void* data = sqlite3_column_blob(m_stmt, column);
    const int size = sqlite3_column_bytes(m_stmt, column);
    if (!data)
        return {};
    return {static_cast<const std::byte*>(data), static_cast<size_t>(size)};
}

Database::Database(const std::string& filename, int flags)
{
    const int rc = sqlite3_open_v2(filename.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = "cannot open database: ";
        message += m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        const int code = m_db ? sqlite3_extended_errcode(m_db) : rc;
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw Error(code, message);
    }
    sqlite3_extended_result_codes(m_db, 1);
}

Database::~Database()
{
    // close_v2 defers the close until every statement is finalized, so destruction order of
    // Statements and their Database cannot leak the connection.
    sqlite3_close_v2(m_db);
}

void Database::exec(const char* sql)
{
    char* errmsg = nullptr;
    const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &errmsg);
    if (rc != SQLITE_OK) {
        std::string message = errmsg ? errmsg : sqlite3_errstr(rc);
        sqlite3_free(errmsg);
        throw Error(sqlite3_extended_errcode(m_db), "SQLite error: " + message);
    }
}

Statement Database::prepare(std::string_view sql, bool persistent) const
{
    return Statement(m_db, sql, persistent);
}

int64_t Database::queryInt64(std::string_view sql, int64_t fallback) const
{
    Statement statement = prepare(sql);
    return statement.step() ? statement.columnInt64(0) : fallback;
}

int64_t Database::lastInsertRowid() const
{
    return sqlite3_last_insert_rowid(m_db);
}

bool Database::hasTable(std::string_view name) const
{
    Statement statement = prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
    statement.bind(1, name);
    return statement.step();
}

Transaction::Transaction(Database& db)
    : m_db(db)
{
    if (sqlite3_get_autocommit(m_db.handle()) == 0)
        return; // nested: the enclosing transaction commits or rolls back
    m_db.exec("BEGIN");
    m_open = true;
}

Transaction::~Transaction()
{
    if (!m_open)
        return;
    // ROLLBACK can itself fail (e.g. SQLite already rolled back after an I/O error); a
    // destructor must not throw, and there is nothing more to undo then.
    sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit()
{
    if (!m_open)
        return;
    m_db.exec("COMMIT");
    m_open = false;
}

std::string fileUri(std::string_view path, std::string_view query)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    // "file://" + "/abs/path" gives an empty authority, so even a path starting with "//" is
    // not mistaken for a host name; a relative path stays relative ("file:dir/x").
    std::string uri = !path.empty() && path.front() == '/' ? "file://" : "file:";
    for (const char c : path) {
        const auto u = static_cast<unsigned char>(c);
        const bool plain = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '/'
            || c == '-' || c == '_' || c == '.' || c == '~';
        if (plain) {
            uri += c;
        } else {
            uri += '%';
            uri += kHex[u >> 4];
            uri += kHex[u & 0xf];
        }
    }
    if (!query.empty()) {
        uri += '?';
        uri += query;
    }
    return uri;
}

} // namespace ws::sqlite

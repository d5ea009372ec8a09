// SPDX-License-Identifier: MIT
#pragma once

// A thin RAII layer over the sqlite3 C API: one connection, prepared statements with
// positional parameters, and a transaction guard. Deliberately no ORM and no helpers that
// splice values into SQL text: every value travels through sqlite3_bind_*.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace ws::sqlite {

// A failed sqlite3 call. what() carries SQLite's own message; code() the extended result code
// so callers can tell corruption (SQLITE_CORRUPT, SQLITE_NOTADB) from I/O or usage errors.
class Error : public std::runtime_error {
public:
    Error(int code, const std::string& message)
        : std::runtime_error(message)
        , m_code(code)
    {
    }
    int code() const { return m_code; }
    int primaryCode() const { return m_code & 0xff; }
    // True for the result codes SQLite uses when the file content is damaged.
    bool isCorruption() const;
    // SQLITE_NOTADB: the file is not a SQLite database at all.
    bool isNotADatabase() const;

private:
    int m_code;
};

class Statement {
public:
    Statement() = default;
    Statement(sqlite3* db, std::string_view sql, bool persistent);
    ~Statement();
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    bool isValid() const { return m_stmt != nullptr; }
    sqlite3_stmt* handle() const { return m_stmt; }

    // Parameters are 1-based, as in the C API.
    void bind(int index, int64_t value);
    void bind(int index, double value);
    void bind(int index, std::string_view text); // copied by SQLite (SQLITE_TRANSIENT)
    void bindBlob(int index, std::span<const std::byte> data);
    void bindNull(int index);

    // Returns true when a row is available, false when the statement is done.
    bool step();
    // Steps a statement that must not return rows (INSERT/UPDATE/DDL).
    void run();
    void reset();

    // Columns are 0-based, as in the C API. Text and blob views stay valid until the next
    // step(), reset() or destruction.
    int columnCount() const;
    int columnType(int column) const;
    bool isNull(int column) const;
    int64_t columnInt64(int column) const;
    int columnInt(int column) const;
    double columnDouble(int column) const;
    std::string_view columnText(int column) const;
    std::span<const std::byte> columnBlob(int column) const;

private:
    [[noreturn]] void fail(int rc) const;

    sqlite3_stmt* m_stmt = nullptr;
};

class Database {
public:
    // `flags` are sqlite3_open_v2 flags; add SQLITE_OPEN_URI to pass a "file:" URI.
    Database(const std::string& filename, int flags);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    sqlite3* handle() const { return m_db; }

    // Runs one or more statements without parameters (DDL, PRAGMAs, BEGIN/COMMIT).
    void exec(const char* sql);
    // `persistent` sets SQLITE_PREPARE_PERSISTENT: for statements reused many times.
    Statement prepare(std::string_view sql, bool persistent = false) const;
    // Runs a query that returns one integer (e.g. "PRAGMA page_count"); `fallback` when no row.
    int64_t queryInt64(std::string_view sql, int64_t fallback = 0) const;
    int64_t lastInsertRowid() const;
    bool hasTable(std::string_view name) const;

private:
    sqlite3* m_db = nullptr;
};

// BEGIN on construction; ROLLBACK in the destructor unless commit() ran. Inside another
// transaction it does nothing: the outermost one decides (SQLite has no nested BEGIN).
class Transaction {
public:
    explicit Transaction(Database& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    Database& m_db;
    bool m_open = false;
};

// Percent-encodes a file name for use in a "file:" URI (SQLite treats '?', '#' and '%' specially).
std::string fileUri(std::string_view path, std::string_view query);

} // namespace ws::sqlite

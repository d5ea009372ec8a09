// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/sqlite.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace ws::store {

// A SQLite file that is not a Warpscope session (an nsys export), opened read-only for an
// importer. It answers the few questions importers ask, so SQL text and sqlite3 calls stay in
// core/store: which tables exist, and "these columns of that table" with missing columns read
// as NULL (exports of different tool versions lack some). Failures throw sqlite::Error.
class ForeignDatabase {
public:
    // Opens `path` read-only and immutable (no locks, no journal next to it).
    static ForeignDatabase openFile(const std::string& path);
    // Opens an in-memory copy of a database image (e.g. from an archive).
    static ForeignDatabase fromImage(std::string_view bytes);

    bool hasTable(std::string_view table) const;
    // "SELECT a, b, NULL, ... FROM table [ORDER BY orderBy]". Table and column names must be
    // constants of the caller, never text read from the database.
    sqlite::Statement select(
        std::string_view table, std::initializer_list<const char*> columns, std::string_view orderBy = {}) const;

private:
    explicit ForeignDatabase(std::unique_ptr<sqlite::Database> db);
    std::shared_ptr<sqlite::Database> m_db;
};

} // namespace ws::store

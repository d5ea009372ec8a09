// SPDX-License-Identifier: MIT
#include "core/store/foreigndatabase.h"

#include <sqlite3.h>

#include <cstring>
#include <set>

namespace ws::store {

ForeignDatabase::ForeignDatabase(std::unique_ptr<sqlite::Database> db)
    : m_db(std::move(db))
{
}

ForeignDatabase ForeignDatabase::openFile(const std::string& path)
{
    return ForeignDatabase(std::make_unique<sqlite::Database>(
        sqlite::fileUri(path, "mode=ro&immutable=1"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE));
}

ForeignDatabase ForeignDatabase::fromImage(std::string_view bytes)
{
    auto db = std::make_unique<sqlite::Database>(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_EXRESCODE);
    auto* image = static_cast<unsigned char*>(sqlite3_malloc64(bytes.empty() ? 1 : bytes.size()));
    if (!image)
        throw sqlite::Error(SQLITE_NOMEM, "out of memory");
    if (!bytes.empty())
        std::memcpy(image, bytes.data(), bytes.size());
    // FREEONCLOSE: SQLite owns the image from here on, also when deserializing fails.
    const int rc = sqlite3_deserialize(db->handle(), "main", image, static_cast<sqlite3_int64>(bytes.size()),
        static_cast<sqlite3_int64>(bytes.size()), SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK)
        throw sqlite::Error(rc, "cannot load SQLite image");
    return ForeignDatabase(std::move(db));
}

bool ForeignDatabase::hasTable(std::string_view table) const
{
    return m_db->hasTable(table);
}

sqlite::Statement ForeignDatabase::select(
    std::string_view table, std::initializer_list<const char*> columns, std::string_view orderBy) const
{
    std::set<std::string, std::less<>> have;
    {
        sqlite::Statement st = m_db->prepare("SELECT name FROM pragma_table_info(?1)");
        st.bind(1, table);
        while (st.step())
            have.emplace(st.columnText(0));
    }
    std::string sql = "SELECT ";
    bool first = true;
    for (const char* c : columns) {
        if (!first)
            sql += ", ";
        first = false;
        if (have.contains(std::string_view(c))) {
            sql += '"';
            sql += c;
            sql += '"';
        } else {
            sql += "NULL";
        }
    }
    sql += " FROM \"";
    sql += table;
    sql += '"';
    if (!orderBy.empty()) {
        sql += " ORDER BY \"";
        sql += orderBy;
        sql += '"';
    }
    return m_db->prepare(sql);
}

} // namespace ws::store

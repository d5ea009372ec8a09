// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ws::schema {

// PRAGMA application_id of every Warpscope session ("WSCP"): lets us tell "a SQLite file
// that is not ours" from "a session" without reading any table.
inline constexpr int32_t kApplicationId = 0x57534350;
// PRAGMA user_version and meta.schema_version. Bump when a table changes; mark the new columns
// with the version (Col::since in rowcodec.h) so older files still read and verify.
inline constexpr int kSchemaVersion = 2;

// The table specification, generated from the codecs of core/store/rowcodec.h (the one place
// columns are spelled).
struct ColumnSpec {
    std::string name;
    std::string type; // INTEGER, REAL, TEXT, BLOB
    int since = 1;
    bool unique = false;
    std::string references; // "string.id", "kernel.id"... or ""
};
struct TableSpec {
    std::string name;
    std::string primaryKey; // "" (none), a rowid column, or a column list
    bool withoutRowid = false;
    bool optional = false; // files written before the table existed lack it
    bool checked = true;   // has a table_check row
    int since = 1;
    std::string doc;
    std::vector<ColumnSpec> columns;
    // The column names that exist in schema `version`.
    std::vector<std::string> columnsIn(int version) const;
};

// Every table, in DDL order.
const std::vector<TableSpec>& tables();
const TableSpec* findTable(std::string_view name);

// DDL for the current schema, one CREATE TABLE per table.
std::string createStatements();

// The table reference of docs/session-format.md (between the markers below), generated from
// tables(): tests/core/tst_schemadoc checks the doc against it and rewrites it on request.
std::string markdownReference();
inline constexpr std::string_view kDocBeginMarker
    = "<!-- BEGIN GENERATED TABLES: WS_UPDATE_DOCS=1 ctest -R tst_schemadoc -->";
inline constexpr std::string_view kDocEndMarker = "<!-- END GENERATED TABLES -->";

} // namespace ws::schema

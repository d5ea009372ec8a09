// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string_view>

namespace ws::schema {

// PRAGMA application_id of every Warpscope session ("WSCP"): lets us tell "a SQLite file
// that is not ours" from "a session" without reading any table.
inline constexpr int32_t kApplicationId = 0x57534350;
// PRAGMA user_version and meta.schema_version. Bump when a table changes; add a migration.
inline constexpr int kSchemaVersion = 1;

// DDL for schema v1, one statement per table. Documented in docs/session-format.md.
std::string_view createStatements();

} // namespace ws::schema

// SPDX-License-Identifier: MIT
#include "core/store/schema.h"

#include "core/store/rowcodec.h"

#include <algorithm>

namespace ws::schema {

namespace {

template <class T> std::string sqlType()
{
    if constexpr (std::is_same_v<T, std::string>)
        return "TEXT";
    else if constexpr (std::is_same_v<T, double>)
        return "REAL";
    else if constexpr (std::is_same_v<T, store::Blob>)
        return "BLOB";
    else
        return "INTEGER";
}

struct ColumnCollector {
    std::vector<ColumnSpec>& out;
    template <class T> void operator()(store::Col c, const T&)
    {
        out.push_back({std::string(c.name), sqlType<T>(), c.since, c.unique, std::string(store::refTarget(c.ref))});
    }
};

template <class R> TableSpec specOf()
{
    using C = store::Codec<R>;
    TableSpec t;
    t.name = C::info.name;
    t.primaryKey = C::info.primaryKey;
    t.withoutRowid = C::info.withoutRowid;
    t.optional = C::info.optional;
    t.checked = C::info.checked;
    t.since = C::info.since;
    t.doc = C::info.doc;
    ColumnCollector collect {t.columns};
    const R row {};
    C::fields(collect, row);
    return t;
}

// A rowid table whose primary key is one INTEGER column: that column is the row id.
bool isRowidKey(const TableSpec& t, const ColumnSpec& c)
{
    return !t.withoutRowid && t.primaryKey == c.name && c.type == "INTEGER";
}

} // namespace

std::vector<std::string> TableSpec::columnsIn(int version) const
{
    std::vector<std::string> names;
    for (const ColumnSpec& c : columns) {
        if (c.since <= version)
            names.push_back(c.name);
    }
    return names;
}

const std::vector<TableSpec>& tables()
{
    static const std::vector<TableSpec> all = [] {
        std::vector<TableSpec> out;
        store::forEachTable([&]<class R>() { out.push_back(specOf<R>()); });
        return out;
    }();
    return all;
}

const TableSpec* findTable(std::string_view name)
{
    const auto& all = tables();
    const auto it = std::find_if(all.begin(), all.end(), [&](const TableSpec& t) { return t.name == name; });
    return it == all.end() ? nullptr : &*it;
}

std::string createStatements()
{
    // Times: INTEGER nanoseconds, CLOCK_MONOTONIC of the recording host.
    // No indexes beyond primary keys: the viewer reads whole tables into memory, and the
    // lane cache (lane_blob) makes re-opening fast; indexes would cost 64% of file size.
    std::string ddl;
    for (const TableSpec& t : tables()) {
        ddl += "CREATE TABLE " + t.name + "(";
        bool first = true;
        for (const ColumnSpec& c : t.columns) {
            ddl += first ? "" : ", ";
            first = false;
            ddl += c.name + " " + c.type;
            if (isRowidKey(t, c)) {
                ddl += " PRIMARY KEY";
                continue;
            }
            ddl += " NOT NULL";
            if (c.unique)
                ddl += " UNIQUE";
        }
        const bool inlineKey
            = std::any_of(t.columns.begin(), t.columns.end(), [&](const ColumnSpec& c) { return isRowidKey(t, c); });
        if (!t.primaryKey.empty() && !inlineKey)
            ddl += ", PRIMARY KEY(" + t.primaryKey + ")";
        ddl += t.withoutRowid ? ") WITHOUT ROWID;\n" : ");\n";
    }
    return ddl;
}

std::string markdownReference()
{
    std::string md;
    md += "Generated from `core/store/rowcodec.h` (schema v" + std::to_string(kSchemaVersion)
        + "); do not edit by hand: run "
          "`WS_UPDATE_DOCS=1 ctest --preset release -R tst_schemadoc` to regenerate it. Every column is `NOT NULL` "
          "except an "
          "`INTEGER PRIMARY KEY` row id.\n";
    for (const TableSpec& t : tables()) {
        md += "\n#### " + t.name + "\n\n" + t.doc;
        if (!t.primaryKey.empty())
            md += " Primary key (" + t.primaryKey + ")" + (t.withoutRowid ? ", WITHOUT ROWID." : ".");
        if (t.optional)
            md += " Optional: older files lack it.";
        if (!t.checked)
            md += " Not in table_check.";
        if (t.since > 1)
            md += " New in v" + std::to_string(t.since) + ".";
        md += "\n\n| Column | Type | Refers to | Since |\n|---|---|---|---|\n";
        for (const ColumnSpec& c : t.columns)
            md += "| " + c.name + " | " + c.type + (c.unique ? " UNIQUE" : "") + " | " + c.references + " | v"
                + std::to_string(c.since) + " |\n";
    }
    return md;
}

} // namespace ws::schema

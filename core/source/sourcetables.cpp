// SPDX-License-Identifier: MIT
#include "core/source/sourcetables.h"

#include "core/store/rowcodec.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/storeerror.h"

#include <bit>
#include <string>

namespace ws {

namespace {

bool hasTable(sqlite3* db, std::string_view table)
{
    sqlite::Statement st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", false);
    st.bind(1, table);
    return st.step();
}

template <class R> std::vector<R> readTable(const SessionReader& reader)
{
    using C = store::Codec<R>;
    std::vector<R> rows;
    sqlite3* db = reader.handle();
    try {
        if (!hasTable(db, C::table))
            return rows;
        sqlite::Statement st(db, store::selectSql<R>(), false);
        uint64_t hash = 0;
        while (st.step()) {
            R& row = rows.emplace_back();
            store::ColumnReader in {st};
            C::fields(in, row);
            hash += store::rowHash(row);
        }
        if (hasTable(db, "table_check")) {
            sqlite::Statement check(db, "SELECT row_count, content_hash FROM table_check WHERE table_name = ?1", false);
            check.bind(1, C::table);
            if (check.step()) {
                const int64_t count = check.columnInt64(0);
                const auto stored = std::bit_cast<uint64_t>(check.columnInt64(1));
                if (count != static_cast<int64_t>(rows.size()))
                    throw SessionError(SessionError::Kind::Corrupted, reader.path(),
                        "the file is damaged: table " + std::string(C::table) + " has " + std::to_string(rows.size())
                            + " rows, the writer stored " + std::to_string(count));
                if (stored != hash)
                    throw SessionError(SessionError::Kind::Corrupted, reader.path(),
                        "the file is damaged: the content of table " + std::string(C::table)
                            + " does not match its checksum");
            }
        }
    } catch (const sqlite::Error& e) {
        throw store::readError(reader.path(), e, "reading table " + std::string(C::table));
    }
    return rows;
}

} // namespace

SourceTables SourceTables::read(const SessionReader& reader)
{
    SourceTables t;
    t.functions = readTable<SassFunction>(reader);
    t.instructions = readTable<SassInstruction>(reader);
    t.counters = readTable<SourceCounter>(reader);
    t.files = readTable<SourceFile>(reader);
    return t;
}

} // namespace ws

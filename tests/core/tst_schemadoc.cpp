// SPDX-License-Identifier: MIT
// The schema is declared once (core/store/rowcodec.h): the table reference in
// docs/session-format.md must be the one generated from it, and the committed v1 files must have
// exactly the columns the spec gives schema v1. WS_UPDATE_DOCS=1 rewrites the doc's section.
#include "core/store/rowcodec.h"
#include "core/store/schema.h"
#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace ws;

namespace {

std::string docPath()
{
    return std::string(WS_FIXTURES_DIR) + "/../../docs/session-format.md";
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> columnsOnDisk(const std::string& file, const std::string& table)
{
    sqlite::Database db(sqlite::fileUri(file, "mode=ro&immutable=1"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    sqlite::Statement st = db.prepare("SELECT name FROM pragma_table_info(?1)");
    st.bind(1, std::string_view(table));
    std::vector<std::string> names;
    while (st.step())
        names.emplace_back(st.columnText(0));
    return names;
}

} // namespace

class TestSchemaDoc : public QObject {
    Q_OBJECT
private slots:
    void docTablesMatchTheSpec()
    {
        const std::string path = docPath();
        std::string doc = readFile(path);
        const auto begin = doc.find(schema::kDocBeginMarker);
        const auto end = doc.find(schema::kDocEndMarker);
        QVERIFY2(begin != std::string::npos && end != std::string::npos && begin < end,
            "docs/session-format.md lacks the generated-tables markers");
        const size_t from = begin + schema::kDocBeginMarker.size();
        const std::string current = doc.substr(from, end - from);
        const std::string wanted = "\n" + schema::markdownReference() + "\n";
        if (qEnvironmentVariableIsSet("WS_UPDATE_DOCS") && current != wanted) {
            doc.replace(from, end - from, wanted);
            std::ofstream(path, std::ios::binary | std::ios::trunc) << doc;
            qInfo("rewrote the table reference of %s", path.c_str());
            return;
        }
        QVERIFY2(current == wanted,
            "docs/session-format.md disagrees with core/store/rowcodec.h: run "
            "WS_UPDATE_DOCS=1 ctest --preset release -R tst_schemadoc");
    }

    void specColumnsAreUniqueAndNamed()
    {
        for (const schema::TableSpec& t : schema::tables()) {
            std::set<std::string> seen;
            for (const auto& c : t.columns) {
                QVERIFY2(!c.name.empty(), t.name.c_str());
                QVERIFY2(seen.insert(c.name).second, (t.name + "." + c.name + " twice").c_str());
            }
            QVERIFY(!t.columns.empty());
        }
        QVERIFY(schema::findTable("kernel"));
        QVERIFY(!schema::findTable("no_such_table"));
    }

    void v1FixturesHaveTheSpecsV1Columns()
    {
        // Files written by schema v1 writers: their tables are the spec's tables of v1.
        const std::string file = std::string(WS_FIXTURES_DIR) + "/recorder/sessions/gemm_relu.wscope";
        QVERIFY(std::filesystem::exists(file));
        for (const schema::TableSpec& t : schema::tables()) {
            if (t.since > 1)
                continue;
            const auto onDisk = columnsOnDisk(file, t.name);
            if (onDisk.empty() && t.optional)
                continue;
            QCOMPARE(onDisk, t.columnsIn(1));
        }
    }

    void ddlCreatesEveryTable()
    {
        sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec(schema::createStatements().c_str());
        for (const schema::TableSpec& t : schema::tables())
            QVERIFY2(db.hasTable(t.name), t.name.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSchemaDoc)
#include "tst_schemadoc.moc"

// SPDX-License-Identifier: MIT
// The RAII wrapper over the sqlite3 C API (core/store/sqlite.h) against a real SQLite.
#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <QTemporaryDir>
#include <QtTest>

#include <limits>

using namespace ws;

class TestSqlite : public QObject {
    Q_OBJECT

private slots:
    void bindAndReadEveryType()
    {
        sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n INTEGER)");
        sqlite::Statement insert = db.prepare("INSERT INTO t VALUES(?1, ?2, ?3, ?4, ?5)", /*persistent=*/true);
        const std::byte bytes[] = {std::byte {0}, std::byte {0xff}, std::byte {7}};
        const std::string text("na\0me \xc3\xa9", 8); // embedded NUL and UTF-8 survive
        for (int64_t v : {std::numeric_limits<int64_t>::min(), int64_t(-1), std::numeric_limits<int64_t>::max()}) {
            insert.bind(1, v);
            insert.bind(2, 0.25);
            insert.bind(3, std::string_view(text));
            insert.bindBlob(4, bytes);
            insert.bindNull(5);
            insert.run(); // run() resets, so the statement is reused with new bindings
        }
        sqlite::Statement select = db.prepare("SELECT i, r, s, b, n FROM t ORDER BY rowid");
        std::vector<int64_t> ints;
        while (select.step()) {
            ints.push_back(select.columnInt64(0));
            QCOMPARE(select.columnDouble(1), 0.25);
            QCOMPARE(std::string(select.columnText(2)), text);
            const auto blob = select.columnBlob(3);
            QCOMPARE(blob.size(), sizeof(bytes));
            QVERIFY(std::equal(blob.begin(), blob.end(), std::begin(bytes)));
            QCOMPARE(select.columnType(4), SQLITE_NULL);
        }
        QCOMPARE(ints,
            (std::vector<int64_t> {std::numeric_limits<int64_t>::min(), -1, std::numeric_limits<int64_t>::max()}));
        QCOMPARE(db.lastInsertRowid(), int64_t(3));
        QCOMPARE(db.queryInt64("SELECT count(*) FROM t"), int64_t(3));
        QCOMPARE(db.queryInt64("SELECT i FROM t WHERE 0", 42), int64_t(42));
    }

    void emptyBlobIsNotNull()
    {
        sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE t(b BLOB NOT NULL)");
        sqlite::Statement insert = db.prepare("INSERT INTO t VALUES(?1)");
        insert.bindBlob(1, {});
        insert.run();
        QCOMPARE(db.queryInt64("SELECT length(b) FROM t", -1), int64_t(0));
    }

    void transactionRollsBackUnlessCommitted()
    {
        sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE t(x INTEGER)");
        try {
            sqlite::Transaction tx(db);
            db.exec("INSERT INTO t VALUES(1)");
            throw std::runtime_error("abandon");
        } catch (const std::runtime_error&) {
        }
        QCOMPARE(db.queryInt64("SELECT count(*) FROM t"), int64_t(0));
        {
            sqlite::Transaction tx(db);
            db.exec("INSERT INTO t VALUES(1)");
            tx.commit();
        }
        QCOMPARE(db.queryInt64("SELECT count(*) FROM t"), int64_t(1));
    }

    void errorsCarrySqliteMessageAndCode()
    {
        sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        try {
            db.prepare("SELECT * FROM nope");
            QFAIL("prepare of a missing table must throw");
        } catch (const sqlite::Error& e) {
            QVERIFY2(std::string(e.what()).find("no such table: nope") != std::string::npos, e.what());
            QCOMPARE(e.primaryCode(), SQLITE_ERROR);
            QVERIFY(!e.isCorruption());
        }
        db.exec("CREATE TABLE t(x INTEGER PRIMARY KEY)");
        sqlite::Statement insert = db.prepare("INSERT INTO t VALUES(?1)");
        insert.bind(1, int64_t(5));
        insert.run();
        insert.bind(1, int64_t(5));
        try {
            insert.run();
            QFAIL("duplicate primary key must throw");
        } catch (const sqlite::Error& e) {
            QCOMPARE(e.primaryCode(), SQLITE_CONSTRAINT);
            QVERIFY2(std::string(e.what()).find("UNIQUE constraint failed") != std::string::npos, e.what());
        }
        // The statement is usable again after the failure.
        insert.reset();
        insert.bind(1, int64_t(6));
        insert.run();
        QCOMPARE(db.queryInt64("SELECT count(*) FROM t"), int64_t(2));
    }

    void openFailureThrows()
    {
        QTemporaryDir dir;
        const std::string missing = dir.filePath("no/such/dir/x.db").toStdString();
        QVERIFY_THROWS_EXCEPTION(sqlite::Error, sqlite::Database(missing, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
    }

    void fileUriEscapesSpecialCharacters_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << "session.wscope";
        QTest::newRow("question mark") << "a?mode=rw.wscope";
        QTest::newRow("hash and percent") << "run #1 100%.wscope";
        QTest::newRow("utf-8") << QString::fromUtf8("m\xc3\xa9sure.wscope");
    }

    void fileUriEscapesSpecialCharacters()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const std::string path = dir.filePath(name).toStdString();
        {
            sqlite::Database db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            db.exec("CREATE TABLE t(x); INSERT INTO t VALUES(42);");
        }
        // Opening through the URI must reach exactly that file, read-only.
        sqlite::Database db(sqlite::fileUri(path, "mode=ro"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
        QCOMPARE(db.queryInt64("SELECT x FROM t"), int64_t(42));
        QVERIFY_THROWS_EXCEPTION(sqlite::Error, db.exec("INSERT INTO t VALUES(1)"));
        QVERIFY(sqlite::fileUri("/a b", "").starts_with("file:///a%20b"));
    }
};

QTEST_GUILESS_MAIN(TestSqlite)
#include "tst_sqlite.moc"

// SPDX-License-Identifier: MIT
// TextLines: the line walk the ncu CSV readers, the section files and the SASS parser share.
#include "core/util/textlines.h"

#include <QtTest>

using namespace ws;

class TestTextLines : public QObject {
    Q_OBJECT

private slots:
    void lines_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QStringList>("lines");
        QTest::newRow("empty") << QByteArray() << QStringList {};
        QTest::newRow("one, no newline") << QByteArray("x") << QStringList {"x"};
        QTest::newRow("one, newline") << QByteArray("x\n") << QStringList {"x"};
        QTest::newRow("blank line") << QByteArray("\n") << QStringList {""};
        QTest::newRow("crlf") << QByteArray("a\r\nb\r\n") << QStringList {"a", "b"};
        QTest::newRow("inner blank") << QByteArray("a\n\nb") << QStringList {"a", "", "b"};
        QTest::newRow("lone cr kept inside") << QByteArray("a\rb\n") << QStringList {"a\rb"};
    }
    void lines()
    {
        QFETCH(QByteArray, text);
        QFETCH(QStringList, lines);
        TextLines walk(std::string_view(text.constData(), static_cast<size_t>(text.size())));
        std::string_view line;
        QStringList got;
        while (walk.next(line)) {
            got << QString::fromUtf8(line.data(), static_cast<qsizetype>(line.size()));
            QCOMPARE(walk.number(), got.size());
        }
        QCOMPARE(got, lines);
        QVERIFY(!walk.next(line)); // stays at the end
    }
};

QTEST_GUILESS_MAIN(TestTextLines)
#include "tst_textlines.moc"

// SPDX-License-Identifier: MIT
#pragma once

// The data rows of the v1 golden tests: one per committed v1 session listed in
// tests/fixtures/v1golden/index.txt, with the golden file of `suffix` (".lanes.txt",
// ".stats.csv") and the session's path. README there says where the goldens came from.

#include <QFile>
#include <QString>
#include <QTest>

inline void addV1GoldenRows(const QString& suffix)
{
    QTest::addColumn<QString>("golden");
    QTest::addColumn<QString>("session");
    const QString dir = QStringLiteral(WS_FIXTURES_DIR "/v1golden/");
    QFile index(dir + "index.txt");
    QVERIFY2(index.open(QIODevice::ReadOnly), qPrintable(index.fileName()));
    const QString root = QStringLiteral(WS_FIXTURES_DIR "/../../");
    int rows = 0;
    for (const QByteArray& line : index.readAll().split('\n')) {
        const QList<QByteArray> parts = line.trimmed().split(' ');
        if (parts.size() != 2)
            continue;
        QString golden = dir + QString::fromUtf8(parts[0]);
        golden.replace(QStringLiteral(".lanes.txt"), suffix);
        QTest::newRow(parts[1].constData()) << golden << root + QString::fromUtf8(parts[1]);
        ++rows;
    }
    QVERIFY(rows >= 30); // every committed session, not a stray subset
}

// Compares line by line, so a failure names the first line that differs.
inline void compareWithGolden(const QString& golden, const QString& actualText)
{
    QFile expectedFile(golden);
    QVERIFY2(expectedFile.open(QIODevice::ReadOnly), qPrintable(golden));
    const QStringList expected = QString::fromUtf8(expectedFile.readAll()).split('\n');
    const QStringList actual = actualText.split('\n');
    for (int i = 0; i < std::min(expected.size(), actual.size()); ++i)
        QCOMPARE(actual[i], expected[i]);
    QCOMPARE(actual.size(), expected.size());
}

// SPDX-License-Identifier: MIT
// Every committed v1 session opens with today's code and shows the lanes it showed before the
// schema-v2 redesign: tests/fixtures/v1golden holds dumpLanes() of each, written by the code of
// the last commit before it (see the README there). Lane order, labels and every event's start,
// end, name, table and row id must match.

#include "core/iket/warplaneprovider.h"
#include "core/store/sessionreader.h"
#include "core/timeline/timelinemodel.h"
#include "lanedump.h"

#include <QFile>
#include <QStringList>
#include <QTest>

using namespace ws;

class TestV1Golden : public QObject {
    Q_OBJECT
private slots:
    void lanesMatchTheGoldenFromBeforeTheRedesign_data()
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
            QTest::newRow(parts[1].constData())
                << dir + QString::fromUtf8(parts[0]) << root + QString::fromUtf8(parts[1]);
            ++rows;
        }
        QVERIFY(rows >= 30); // every committed session, not a stray subset
    }

    void lanesMatchTheGoldenFromBeforeTheRedesign()
    {
        QFETCH(QString, golden);
        QFETCH(QString, session);
        QFile expectedFile(golden);
        QVERIFY2(expectedFile.open(QIODevice::ReadOnly), qPrintable(golden));
        const QStringList expected = QString::fromUtf8(expectedFile.readAll()).split('\n');

        const SessionReader reader(session.toStdString());
        QCOMPARE(reader.schemaVersion(), 1); // these are the v1 files
        const auto model = TimelineModel::load(reader, {}, {}, true, iket::laneProviders());
        const QStringList actual = QString::fromStdString(dumpLanes(*model)).split('\n');
        for (int i = 0; i < std::min(expected.size(), actual.size()); ++i)
            QCOMPARE(actual[i], expected[i]); // names the first lane that differs
        QCOMPARE(actual.size(), expected.size());
    }
};

QTEST_GUILESS_MAIN(TestV1Golden)
#include "tst_v1golden.moc"

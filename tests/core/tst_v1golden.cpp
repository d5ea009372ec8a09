// SPDX-License-Identifier: MIT
// Every committed v1 session opens with today's code and shows the lanes it showed before the
// schema-v2 redesign: tests/fixtures/v1golden holds dumpLanes() of each, written by the code of
// the last commit before it (see the README there). Lane order, labels and every event's start,
// end, name, table and row id must match.

#include "core/iket/warplaneprovider.h"
#include "core/store/sessionreader.h"
#include "core/timeline/timelinemodel.h"
#include "lanedump.h"
#include "v1golden.h"

#include <QTest>

using namespace ws;

class TestV1Golden : public QObject {
    Q_OBJECT
private slots:
    void lanesMatchTheGoldenFromBeforeTheRedesign_data() { addV1GoldenRows(QStringLiteral(".lanes.txt")); }

    void lanesMatchTheGoldenFromBeforeTheRedesign()
    {
        QFETCH(QString, golden);
        QFETCH(QString, session);

        const SessionReader reader(session.toStdString());
        QCOMPARE(reader.schemaVersion(), 1); // these are the v1 files
        const auto model = TimelineModel::load(reader, {}, {}, true, iket::laneProviders());
        compareWithGolden(golden, QString::fromStdString(dumpLanes(*model)));
    }
};

QTEST_GUILESS_MAIN(TestV1Golden)
#include "tst_v1golden.moc"

// SPDX-License-Identifier: MIT
// Every committed v1 session shows today the timeline rows it showed before the schema-v2
// redesign — same groups, same rows in the same order, same labels, paths and warp-role notes,
// same events on each lane row: tests/fixtures/v1golden/*.rows.txt were written by rowdump.h
// compiled against the code of the last commit before it (README there).

#include "core/iket/warplaneprovider.h"
#include "core/store/sessionreader.h"
#include "rowdump.h"
#include "v1golden.h"

#include <QTest>

using namespace ws;

class TestV1Rows : public QObject {
    Q_OBJECT
private slots:
    void rowsMatchTheGoldenFromBeforeTheRedesign_data() { addV1GoldenRows(QStringLiteral(".rows.txt")); }

    void rowsMatchTheGoldenFromBeforeTheRedesign()
    {
        QFETCH(QString, golden);
        QFETCH(QString, session);
        const SessionReader reader(session.toStdString());
        const auto model = TimelineModel::load(reader, {}, {}, true, iket::laneProviders());
        TimelineRowModel rows;
        rows.setSnapshot(SessionSnapshot::build(model, loadCounterSeries(reader), reader.meta()));
        compareWithGolden(golden, QString::fromStdString(dumpRows(rows)));
    }
};

QTEST_MAIN(TestV1Rows)
#include "tst_v1rows.moc"

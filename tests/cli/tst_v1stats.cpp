// SPDX-License-Identifier: MIT
// Every committed v1 session gives today the statistics reports (ranking of kernels, API and
// NVTX summaries, GPU projection, idle gaps, communication overlap, NVTX timing) that
// `warpscope-cli stats` printed for it before the schema-v2 redesign: the goldens in
// tests/fixtures/v1golden/*.stats.csv were written by the warpscope-cli of commit 81feda8
// (README there), so this compares the two codes on the same files, byte for byte.

#include "clirun.h"

#include <QFile>
#include <QTest>

class TestV1Stats : public QObject {
    Q_OBJECT
private slots:
    void reportsMatchTheGoldenFromBeforeTheRedesign_data()
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
            golden.replace(QStringLiteral(".lanes.txt"), QStringLiteral(".stats.csv"));
            QTest::newRow(parts[1].constData()) << golden << root + QString::fromUtf8(parts[1]);
            ++rows;
        }
        QVERIFY(rows >= 30);
    }

    void reportsMatchTheGoldenFromBeforeTheRedesign()
    {
        QFETCH(QString, golden);
        QFETCH(QString, session);
        QFile expectedFile(golden);
        QVERIFY2(expectedFile.open(QIODevice::ReadOnly), qPrintable(golden));
        const QStringList expected = QString::fromUtf8(expectedFile.readAll()).split('\n');
        const CliRun r = runCli({QStringLiteral("stats"), QStringLiteral("-r"),
            QStringLiteral("cuda_api_sum,cuda_gpu_kern_sum,nvtx_sum,nvtx_gpu_proj_sum,gpu_idle_gaps,comm_overlap,"
                           "nvtx_timing_sum"),
            QStringLiteral("-f"), QStringLiteral("csv"), session});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList actual = r.out.split('\n');
        for (int i = 0; i < std::min(expected.size(), actual.size()); ++i)
            QCOMPARE(actual[i], expected[i]);
        QCOMPARE(actual.size(), expected.size());
    }
};

QTEST_GUILESS_MAIN(TestV1Stats)
#include "tst_v1stats.moc"

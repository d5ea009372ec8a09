// SPDX-License-Identifier: MIT
// Every committed v1 session gives today the statistics reports (ranking of kernels, API and
// NVTX summaries, GPU projection, idle gaps, communication overlap, NVTX timing) that
// `warpscope-cli stats` printed for it before the schema-v2 redesign: the goldens in
// tests/fixtures/v1golden/*.stats.csv were written by the warpscope-cli of commit 81feda8
// (README there), so this compares the two codes on the same files, byte for byte.

#include "clirun.h"
#include "v1golden.h"

#include <QTest>

using namespace ws::test;

class TestV1Stats : public QObject {
    Q_OBJECT
private slots:
    void reportsMatchTheGoldenFromBeforeTheRedesign_data() { addV1GoldenRows(QStringLiteral(".stats.csv")); }

    void reportsMatchTheGoldenFromBeforeTheRedesign()
    {
        QFETCH(QString, golden);
        QFETCH(QString, session);
        const CliRun r = runCli({QStringLiteral("stats"), QStringLiteral("-r"),
            QStringLiteral("cuda_api_sum,cuda_gpu_kern_sum,nvtx_sum,nvtx_gpu_proj_sum,gpu_idle_gaps,comm_overlap,"
                           "nvtx_timing_sum"),
            QStringLiteral("-f"), QStringLiteral("csv"), session});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        compareWithGolden(golden, r.out);
    }
};

QTEST_GUILESS_MAIN(TestV1Stats)
#include "tst_v1stats.moc"

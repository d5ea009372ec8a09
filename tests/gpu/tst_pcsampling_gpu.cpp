// SPDX-License-Identifier: MIT
// PC sampling end to end on a GPU: `warpscope-cli profile --section SourceCounters` on the three
// stall kernels (collectors/profiler/workloads/stalls.cu, built with -lineinfo). Each launch must
// have samples, its expected stall reason must dominate, and it must do so at the line marked
// HOT(<reason>) in the source the session recorded. Skipped (with the reason) without a GPU.
#include "../core/stallkernels.h"

#include "core/source/sourcetables.h"
#include "core/store/sessionreader.h"
#include "gpuprobe.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace ws;
using namespace ws::test;

class TestPcSamplingGpu : public QObject {
    Q_OBJECT

private slots:
    void stallKernelsShowTheirStallAtTheirLine()
    {
        if (const QString why = whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString stalls = QStringLiteral(WS_BUILD_DIR "/bin/warpscope-stalls");
        WS_REQUIRE_CUDA_PROGRAM(stalls);
        QTemporaryDir dir;
        const QString out = dir.filePath("stalls.wscope");
        QProcess p;
        p.start(QStringLiteral(WS_CLI_PATH),
            {"profile", "--section", "SourceCounters", "--source-folders",
                QStringLiteral(WS_FIXTURES_DIR "/../../collectors/profiler/workloads"), "-o", out, "--", stalls,
                "all"});
        QVERIFY(p.waitForFinished(300000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0, qPrintable(err));

        SessionReader reader(out.toStdString());
        const SessionData s = reader.readAll();
        const SourceTables t = SourceTables::read(reader);
        QVERIFY2(!t.instructions.empty(), qPrintable(err));
        QVERIFY2(!t.files.empty(), "the session recorded no source text");
        for (const StallKernel& k : stallKernels()) {
            const auto f = examine(s, t, k);
            QVERIFY2(f.has_value(), k.function.c_str());
            QVERIFY2(f->samples > 1000, qPrintable(QString::fromStdString(k.function) + ": too few samples"));
            QVERIFY2(std::find(k.reasons.begin(), k.reasons.end(), f->dominant) != k.reasons.end(),
                qPrintable(QString::fromStdString(k.function + ": dominant " + f->dominant)));
            QVERIFY(f->expectedLine > 0);
            QVERIFY2(f->line == f->expectedLine,
                qPrintable(QStringLiteral("%1: %2 peaks at line %3, marker at %4")
                               .arg(QString::fromStdString(k.function), QString::fromStdString(f->dominant))
                               .arg(f->line)
                               .arg(f->expectedLine)));
        }
    }
};

QTEST_GUILESS_MAIN(TestPcSamplingGpu)
#include "tst_pcsampling_gpu.moc"

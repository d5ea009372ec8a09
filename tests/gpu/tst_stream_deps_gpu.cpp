// SPDX-License-Identifier: MIT
// Cross-stream dependencies on a real GPU (label `gpu`, issue 20 item 5): ws-example-stream-deps
// (a fork-join over three streams through CUDA events, 3 iterations) recorded by
// `warpscope-cli record` with default settings. The session must hold every event record and
// stream wait the program made (with handles, stream ids and correlation ids), and the derived
// dependencies must be exactly the program's: per iteration produce -> consume_b, produce ->
// consume_c, consume_b -> combine, consume_c -> combine on other streams, each consumer
// starting after its producer ended, and the final cudaEventSynchronize waiting for the last
// combine. Skips without a GPU (decided up front) or without the example.
#include "clirun.h"
#include "core/analysis/sessiondependencies.h"
#include "core/store/sessionreader.h"
#include "gpuprobe.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace ws;

namespace {

QString example()
{
    return QStringLiteral(WS_BUILD_DIR "/bin/ws-example-stream-deps");
}

} // namespace

class TestStreamDepsGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        if (!QFileInfo::exists(example()))
            QSKIP("ws-example-stream-deps was not built (no nvcc)");
    }

    void recordedSessionHoldsTheProgramsDependencies()
    {
        const QString out = m_dir.filePath(QStringLiteral("deps.wscope"));
        const auto r = ws::test::runCli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--"),
                                            example(), QStringLiteral("--iterations"), QStringLiteral("3")},
            120000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const SessionReader reader(out.toStdString());
        const auto ops = reader.readEventOps();
        // 3 iterations x (3 records + 4 waits), then one record and one cudaEventSynchronize.
        int records = 0, waits = 0, syncs = 0;
        for (const auto& e : ops) {
            (e.kind == EventOpKind::Record ? records : e.kind == EventOpKind::Wait ? waits : syncs)++;
            QVERIFY(e.event != 0);
            QVERIFY(e.correlationId != 0);
            QCOMPARE(e.domain, ApiDomain::Runtime); // the runtime call only, not its driver call too
            QCOMPARE(e.returnValue, 0);
            if (e.kind != EventOpKind::Synchronize)
                QVERIFY(e.streamId != 0);
        }
        QCOMPARE(records, 10);
        QCOMPARE(waits, 12);
        QCOMPARE(syncs, 1);

        const auto strings = reader.readStrings();
        std::map<int64_t, std::string> names;
        for (const auto& k : reader.readTable<KernelRecord>())
            names[k.id] = strings.at(k.shortName);
        std::map<std::pair<std::string, std::string>, int> pairs;
        std::set<uint32_t> streams;
        int hostWaits = 0;
        for (const StreamDependency& d : readStreamDependencies(reader)) {
            QVERIFY(d.producer.valid());
            if (d.waitKind == EventOpKind::Synchronize) {
                ++hostWaits;
                QCOMPARE(names.at(d.producer.id), std::string("combine"));
                continue;
            }
            QVERIFY(d.consumer.valid());
            QVERIFY(d.producerStream != d.consumerStream);
            // The GPU honoured the wait: the consumer started after its producer ended.
            QVERIFY2(d.consumerStart >= d.producerEnd,
                qPrintable(QStringLiteral("consumer starts %1 ns before its producer ends")
                               .arg(d.producerEnd - d.consumerStart)));
            ++pairs[{names.at(d.producer.id), names.at(d.consumer.id)}];
            streams.insert(d.producerStream);
            streams.insert(d.consumerStream);
        }
        const std::map<std::pair<std::string, std::string>, int> expected {{{"produce", "consume_b"}, 3},
            {{"produce", "consume_c"}, 3}, {{"consume_b", "combine"}, 3}, {{"consume_c", "combine"}, 3}};
        QCOMPARE(pairs, expected);
        QCOMPARE(streams.size(), size_t(3));
        QCOMPARE(hostWaits, 1);
    }
};

QTEST_GUILESS_MAIN(TestStreamDepsGpu)
#include "tst_stream_deps_gpu.moc"

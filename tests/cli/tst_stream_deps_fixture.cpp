// SPDX-License-Identifier: MIT
// The H200 recording of ws-example-stream-deps (3 iterations of a fork-join over three streams
// through CUDA events; scripts/device/jobs/stream-deps.sh, committed under
// tests/fixtures/streamdeps/): its event_op rows and the dependencies derived from them are
// exactly the program's, in memory, from the file, in `warpscope-cli dependencies` and in the
// Chrome trace export. What tst_stream_deps_gpu checks on a GPU, checked in CI on the real file.
#include "clirun.h"
#include "core/analysis/sessiondependencies.h"
#include "core/analysis/sessionfilesource.h"
#include "core/export/chrometrace.h"
#include "core/model/streamdependencies.h"
#include "core/store/sessionreader.h"

#include <QtTest>

#include <map>
#include <set>
#include <sstream>

using namespace ws;

namespace {

const std::string kFixture = std::string(WS_FIXTURES_DIR) + "/streamdeps/h200-stream-deps.wscope";

using Pairs = std::map<std::pair<std::string, std::string>, int>;

} // namespace

class TestStreamDepsFixture : public QObject {
    Q_OBJECT

private slots:
    void eventOpsAreTheProgramsCalls()
    {
        const SessionReader reader(kFixture);
        int records = 0, waits = 0, syncs = 0;
        std::set<uint64_t> events;
        for (const auto& e : reader.readEventOps()) {
            (e.kind == EventOpKind::Record ? records : e.kind == EventOpKind::Wait ? waits : syncs)++;
            events.insert(e.event);
            QCOMPARE(e.domain, ApiDomain::Runtime);
            QCOMPARE(e.returnValue, 0);
        }
        QCOMPARE(records, 10); // 3 x (fork, joinB, joinC) + the final record of joinB
        QCOMPARE(waits, 12);   // 3 x 4
        QCOMPARE(syncs, 1);
        QCOMPARE(events.size(), size_t(3));
    }

    void dependenciesAreTheProgramsForkJoin()
    {
        const SessionReader reader(kFixture);
        const auto strings = reader.readStrings();
        std::map<int64_t, std::string> names;
        for (const auto& k : reader.readTable<KernelRecord>())
            names[k.id] = strings.at(k.shortName);
        const auto fromFile = readStreamDependencies(reader);
        // The narrow read gives what the full derivation over the whole session gives.
        QCOMPARE(fromFile, deriveStreamDependencies(reader.readAll()));
        Pairs pairs;
        std::set<uint32_t> streams;
        int host = 0;
        for (const auto& d : fromFile) {
            QVERIFY(d.producer.valid());
            if (d.waitKind == EventOpKind::Synchronize) {
                ++host;
                QCOMPARE(names.at(d.producer.id), std::string("combine"));
                continue;
            }
            QVERIFY(d.consumer.valid());
            QVERIFY(d.consumerStart >= d.producerEnd); // the GPU honoured every wait
            ++pairs[{names.at(d.producer.id), names.at(d.consumer.id)}];
            streams.insert(d.producerStream);
            streams.insert(d.consumerStream);
        }
        const Pairs expected {{{"produce", "consume_b"}, 3}, {{"produce", "consume_c"}, 3},
            {{"consume_b", "combine"}, 3}, {{"consume_c", "combine"}, 3}};
        QCOMPARE(pairs, expected);
        QCOMPARE(streams.size(), size_t(3));
        QCOMPARE(host, 1);
    }

    void cliListsThem()
    {
        const auto r = ws::test::runCli({"dependencies", "--csv", QString::fromStdString(kFixture)});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + 13); // header, 12 stream waits, 1 host wait
        QCOMPARE(lines.filter(",wait,").size(), 12);
        QCOMPARE(lines.filter(",sync,").size(), 1);
    }

    void exportHasAFlowPerDependency()
    {
        const SessionReader reader(kFixture);
        const SessionFileSource source(reader);
        std::ostringstream out;
        const ChromeTraceSummary s = writeChromeTrace(source, out);
        // record -> wait -> consumer and producer -> consumer per stream wait (24), record ->
        // sync and producer -> sync for the host wait (2).
        QCOMPARE(s.dependencyFlows, int64_t(26));
    }
};

QTEST_GUILESS_MAIN(TestStreamDepsFixture)
#include "tst_stream_deps_fixture.moc"

// SPDX-License-Identifier: MIT
// Multi-run sessions (schema v2): every committed v1 file still opens read-only and verifies
// (columns of v2 read as run 1), writing produces v2 with a run row, and merging the H200 trace
// of gemm_relu with its profile links the profiled launches to the traced ones, so the traced
// GEMM launches get the profiled metrics.
#include "core/metrics/kernelmetrics.h"
#include "core/store/runinference.h"
#include "core/store/schema.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionmerge.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <map>

using namespace ws;

namespace {

std::string fixture(const char* relative)
{
    return std::string(WS_FIXTURES_DIR) + "/" + relative;
}

const char* kTrace = "recorder/sessions/gemm_relu.wscope";
const char* kProfile = "metrics/gemm_relu.wscope";

std::string nameOf(const SessionData& d, const KernelRecord& k)
{
    return d.strings.at(k.shortName);
}

void write(const std::string& path, const SessionData& data)
{
    SessionWriter writer(path);
    attachLaneCache(writer);
    writer.write(data);
    writer.commit();
}

} // namespace

class TestStoreRuns : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void runOptionsRoundTripThroughJson_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("plain") << "profile_passes"
                               << "26";
        QTest::newRow("quotes and backslash") << "command"
                                              << "sh -c 'echo \\\"x\\\"' \\ y";
        QTest::newRow("control characters") << "multi\nline"
                                            << "tab\there\r\x01";
        QTest::newRow("utf-8") << QStringLiteral("caf\u00e9") << QStringLiteral("\u00b5s \u2192 ms");
        QTest::newRow("empty") << ""
                               << "";
    }

    void runOptionsRoundTripThroughJson()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        const std::map<std::string, std::string> in {{key.toStdString(), value.toStdString()}, {"b", "2"}};
        const auto back = store::fromJsonObject(store::toJsonObject(in));
        QVERIFY(back.has_value());
        QCOMPARE(*back, in);
    }

    void brokenRunJsonIsRefused_data()
    {
        QTest::addColumn<QString>("json");
        QTest::newRow("not an object") << "[1]";
        QTest::newRow("number value") << "{\"a\":1}";
        QTest::newRow("unterminated") << "{\"a\":\"b}";
        QTest::newRow("trailing text") << "{} x";
        QTest::newRow("bad escape") << "{\"a\":\"\\q\"}";
        QTest::newRow("missing colon") << "{\"a\" \"b\"}";
    }

    void brokenRunJsonIsRefused()
    {
        QFETCH(QString, json);
        QVERIFY(!store::fromJsonObject(json.toStdString()).has_value());
        QVERIFY(store::fromJsonObject(" { } ").has_value());
    }

    void everyCommittedV1FileOpensAndVerifies()
    {
        std::vector<std::string> files;
        for (const char* root : {WS_FIXTURES_DIR, WS_RESOURCES_DIR "/demo"}) {
            for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
                if (e.path().extension() == ".wscope" && e.is_regular_file())
                    files.push_back(e.path().string());
            }
        }
        QVERIFY(files.size() > 10);
        int v1 = 0;
        for (const std::string& f : files) {
            std::optional<SessionReader> reader;
            try {
                reader.emplace(f);
            } catch (const SessionError&) {
                continue; // the damaged-file fixtures are rejected as before (tst_store)
            }
            if (reader->schemaVersion() != 1)
                continue;
            ++v1;
            const SessionData d = reader->readAll(); // checksums of v1 columns verify
            QCOMPARE(d.runs.size(), size_t(1));
            QCOMPARE(d.runs[0].id, 1u);
            QVERIFY(d.kernelLinks.empty());
            for (const KernelRecord& k : d.kernels)
                QCOMPARE(k.runId, 1u);
        }
        QVERIFY(v1 > 10);
    }

    void v1RunIsInferredFromMeta()
    {
        QCOMPARE(SessionReader(fixture(kTrace)).readRuns().at(0).kind, std::string("trace"));
        const RunInfo profile = SessionReader(fixture(kProfile)).readRuns().at(0);
        QCOMPARE(profile.kind, std::string("profile"));
        QVERIFY(profile.optionsJson.find("\"profile_passes\":\"26\"") != std::string::npos);
        const RunInfo trace = SessionReader(fixture(kTrace)).readRuns().at(0);
        QVERIFY(trace.commandLine.find("ws-example-gemm-relu") != std::string::npos);
        QCOMPARE(trace.host, std::string("vm"));
        QCOMPARE(SessionReader(fixture("bench/h200-pdl-1M.wscope")).readRuns().at(0).kind, std::string("bench"));

        // A producer that sets no run gets the same inference at commit: an import says so.
        const std::string path = m_dir.filePath("imported.wscope").toStdString();
        SessionData imported;
        imported.meta["import.format"] = "nsys-sqlite";
        write(path, imported);
        QCOMPARE(SessionReader(path).readRuns().at(0).kind, std::string("import"));
    }

    void writingProducesV2WithARun()
    {
        const std::string path = m_dir.filePath("v2.wscope").toStdString();
        const SessionData trace = SessionReader(fixture(kTrace)).readAll();
        SessionData copy = trace;
        copy.runs.clear(); // the writer infers the one run
        write(path, copy);
        const SessionReader reader(path);
        QCOMPARE(reader.schemaVersion(), schema::kSchemaVersion);
        QCOMPARE(reader.schemaVersion(), 2);
        const SessionData back = reader.readAll();
        QCOMPARE(back.runs.size(), size_t(1));
        QCOMPARE(back.runs[0].kind, std::string("trace"));
        QCOMPARE(back.kernels, trace.kernels);
        QCOMPARE(back.apiCalls, trace.apiCalls);

        const std::string explicitRun = m_dir.filePath("run.wscope").toStdString();
        {
            SessionWriter writer(explicitRun);
            RunInfo run;
            run.id = 0;
            run.kind = "bench";
            run.commandLine = "bench --x";
            QCOMPARE(writer.beginRun(run), 1u);
            run.kind = "profile";
            QCOMPARE(writer.beginRun(run), 2u);
            writer.commit();
        }
        const auto runs = SessionReader(explicitRun).readRuns();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[1].kind, std::string("profile"));
    }

    void mergedTraceAndProfileShowProfiledMetricsOnTracedKernels()
    {
        const SessionData trace = SessionReader(fixture(kTrace)).readAll();
        const SessionData profile = SessionReader(fixture(kProfile)).readAll();
        const SessionData merged = mergeSessions(trace, profile);
        QCOMPARE(merged.runs.size(), size_t(2));
        QCOMPARE(merged.runs[1].kind, std::string("profile"));
        QCOMPARE(merged.kernels.size(), trace.kernels.size() + profile.kernels.size());
        // Every profiled launch has its traced counterpart: 14 of them.
        QCOMPARE(merged.kernelLinks.size(), profile.kernels.size());

        const std::string path = m_dir.filePath("merged.wscope").toStdString();
        write(path, merged);
        const SessionReader reader(path);
        QCOMPARE(reader.readKernelLinks(), merged.kernelLinks);
        const SessionMetrics metrics = SessionMetrics::read(reader);
        const SessionMetrics profiled = SessionMetrics::read(SessionReader(fixture(kProfile)));

        // The k-th traced launch of the GEMM has the metrics of the k-th profiled GEMM launch.
        std::vector<const KernelRecord*> tracedGemm;
        for (const KernelRecord& k : trace.kernels) {
            if (nameOf(trace, k).find("nvjet") != std::string::npos)
                tracedGemm.push_back(&k);
        }
        std::vector<const SessionMetrics::Kernel*> profiledGemm;
        for (const auto& k : profiled.kernels()) {
            if (profiled.strings().at(k.launch.shortName).find("nvjet") != std::string::npos)
                profiledGemm.push_back(&k);
        }
        QCOMPARE(profiledGemm.size(), size_t(6));
        QVERIFY(tracedGemm.size() >= profiledGemm.size());
        for (size_t i = 0; i < tracedGemm.size(); ++i) {
            const SessionMetrics::Kernel* shown = metrics.find(tracedGemm[i]->id);
            if (i >= profiledGemm.size()) {
                QVERIFY(shown == nullptr); // never profiled
                continue;
            }
            QVERIFY(shown != nullptr);
            QCOMPARE(shown->launch.start, tracedGemm[i]->start); // the traced launch's own record
            QCOMPARE(shown->metricsRunId, 2u);
            QVERIFY(shown->measuredKernelId != tracedGemm[i]->id);
            QCOMPARE(shown->metrics.all().size(), profiledGemm[i]->metrics.all().size());
            for (const auto& [name, entry] : profiledGemm[i]->metrics.all())
                QCOMPARE(shown->metrics.get(name), std::optional<double>(entry.value));
            QVERIFY(shown->metrics.get("gpu__time_duration.sum").has_value());
        }
        // One launch at a time (event details): the same values, and nothing for an unprofiled one.
        const auto one = reader.readMetricsOfKernel(tracedGemm[0]->id);
        QVERIFY(one.has_value());
        QCOMPARE(one->runId, 2u);
        QCOMPARE(one->measuredKernelId, metrics.find(tracedGemm[0]->id)->measuredKernelId);
        QCOMPARE(one->values.size(), profiledGemm[0]->metrics.all().size());
        QVERIFY(!reader.readMetricsOfKernel(tracedGemm.back()->id).has_value());
        const auto own = reader.readMetricsOfKernel(one->measuredKernelId);
        QVERIFY(own.has_value());
        QCOMPARE(own->measuredKernelId, own->kernelId);

        // A linked profiled launch is listed once, as its traced launch: panels, roofline and
        // diagnosis count 14 measured launches, not 28.
        QCOMPARE(metrics.kernels().size(), merged.kernelLinks.size());
        QVERIFY(metrics.find(one->measuredKernelId) == nullptr);

        // The same through the in-memory path.
        const SessionMetrics fromData = SessionMetrics::fromData(merged);
        QVERIFY(fromData.find(tracedGemm[0]->id) != nullptr);
        QCOMPARE(fromData.kernels().size(), merged.kernelLinks.size());
        QVERIFY(fromData.find(one->measuredKernelId) == nullptr);

        // The traced lanes are unchanged, the profile's process has its own lanes.
        const auto model = TimelineModel::load(reader);
        QVERIFY(model->fromLaneCache);
    }

    void mergeRenumbersClashingPids()
    {
        const SessionData trace = SessionReader(fixture(kTrace)).readAll();
        const SessionData merged = mergeSessions(trace, trace);
        QCOMPARE(merged.processes.size(), size_t(2));
        QVERIFY(merged.processes[0].pid != merged.processes[1].pid);
        QCOMPARE(merged.processes[1].runId, 2u);
        QVERIFY(merged.kernelLinks.empty()); // two traces: nothing was profiled
        const std::string path = m_dir.filePath("twice.wscope").toStdString();
        write(path, merged); // primary keys hold: no clash
        QCOMPARE(SessionReader(path).readAll().kernels.size(), 2 * trace.kernels.size());
    }
};

QTEST_GUILESS_MAIN(TestStoreRuns)
#include "tst_store_runs.moc"

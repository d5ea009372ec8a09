// SPDX-License-Identifier: MIT
// Importer behaviour on small hand-written inputs: number text, ncu CSV quirks, format
// detection, the Chrome trace phases Kineto files do not use, errors, progress and cancel.
#include "core/import/gzipfile.h"
#include "core/import/importer.h"
#include "core/import/ncucsvtable.h"
#include "core/import/numbertext.h"
#include "core/import/sessionimport.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"

#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace ws;

Q_DECLARE_METATYPE(std::optional<int64_t>)
Q_DECLARE_METATYPE(std::optional<double>)

namespace {

SessionData importText(ImportFormat format, std::string_view text, const ImportOptions& options = {})
{
    return createImporter(format)->importBytes(text, "test input", options);
}

SessionError::Kind errorKind(ImportFormat format, std::string_view text, std::string* message = nullptr)
{
    try {
        importText(format, text);
    } catch (const SessionError& e) {
        if (message)
            *message = e.what();
        return e.kind();
    }
    return static_cast<SessionError::Kind>(-1);
}

const NvtxRangeRecord* rangeNamed(const SessionData& d, const std::string& name)
{
    for (const auto& r : d.nvtxRanges) {
        if (d.str(r.name) == name)
            return &r;
    }
    return nullptr;
}

} // namespace

class TestImportFormats : public QObject {
    Q_OBJECT

private slots:
    void microseconds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<std::optional<int64_t>>("ns");
        QTest::newRow("16-digit stamp keeps its last ns")
            << "5085649816964.901" << std::optional<int64_t>(5085649816964901);
        QTest::newRow("integer") << "42" << std::optional<int64_t>(42000);
        QTest::newRow("one decimal") << "10.5" << std::optional<int64_t>(10500);
        QTest::newRow("rounds the 4th decimal") << "1.0005" << std::optional<int64_t>(1001);
        QTest::newRow("truncated below half") << "1.00049" << std::optional<int64_t>(1000);
        QTest::newRow("negative") << "-3.25" << std::optional<int64_t>(-3250);
        QTest::newRow("exponent") << "1.5e3" << std::optional<int64_t>(1500000);
        QTest::newRow("leading dot") << ".5" << std::optional<int64_t>(500);
        QTest::newRow("overflow") << "99999999999999999999" << std::optional<int64_t>();
        QTest::newRow("text") << "abc" << std::optional<int64_t>();
        QTest::newRow("empty") << "" << std::optional<int64_t>();
        QTest::newRow("lone dot") << "." << std::optional<int64_t>();
    }

    void microseconds()
    {
        QFETCH(QString, text);
        QFETCH(std::optional<int64_t>, ns);
        const std::string s = text.toStdString();
        QCOMPARE(microsecondsToNs(s), ns);
    }

    void numbers_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<std::optional<double>>("value");
        QTest::newRow("grouped") << "1,234,567" << std::optional<double>(1234567);
        QTest::newRow("grouped with 2 decimals") << "2,104.92" << std::optional<double>(2104.92);
        QTest::newRow("negative grouped") << "-12,345.5" << std::optional<double>(-12345.5);
        QTest::newRow("plain") << "53.79" << std::optional<double>(53.79);
        QTest::newRow("bad group size") << "1,23" << std::optional<double>();
        QTest::newRow("group too long") << "1234,567" << std::optional<double>();
        QTest::newRow("double comma") << "1,,234" << std::optional<double>();
        QTest::newRow("n/a") << "n/a" << std::optional<double>();
        QTest::newRow("nan is not a value") << "nan" << std::optional<double>();
        QTest::newRow("inf is not a value") << "inf" << std::optional<double>();
        QTest::newRow("string metric") << "CachePreferNone" << std::optional<double>();
    }

    void numbers()
    {
        QFETCH(QString, text);
        QFETCH(std::optional<double>, value);
        QCOMPARE(parseNumber(text.toStdString(), true), value);
    }

    void csvLines_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("fields"); // empty list: malformed
        QTest::newRow("quoted") << R"j("ID","a b","(1, 2, 3)")j" << QStringList {"ID", "a b", "(1, 2, 3)"};
        QTest::newRow("doubled quote") << R"("say ""hi""",x)" << QStringList {"say \"hi\"", "x"};
        QTest::newRow("empty fields") << R"("",,"")" << QStringList {"", "", ""};
        QTest::newRow("trailing comma") << R"("a",)" << QStringList {"a", ""};
        QTest::newRow("unterminated") << R"("a,"b)" << QStringList {};
        QTest::newRow("junk after quote") << R"("a"b,"c")" << QStringList {};
    }

    void csvLines()
    {
        QFETCH(QString, line);
        QFETCH(QStringList, fields);
        const auto got = splitNcuCsvLine(line.toStdString());
        if (fields.isEmpty()) {
            QVERIFY(!got);
            return;
        }
        QVERIFY(got);
        QStringList actual;
        for (const auto& f : *got)
            actual << QString::fromStdString(f);
        QCOMPARE(actual, fields);
    }

    void ncuTableAmongNoise()
    {
        // Program output before, between and glued to the table; ncu messages; a repeated header.
        const std::string text
            = "==PROF== Connected to process 1 (/bin/app)\n"
              "step 0 done, value \"x\"\n"
              "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Block Size\",\"Grid "
              "Size\",\"Device\",\"gpu__time_duration.sum\",\"launch__registers_per_thread\"\n"
              "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"ns\",\"register/thread\"\n"
              "\"0\",\"1\",\"app\",\"h\",\"k<int, 2>(float*)\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"0\",\"1,024\",\"32\"\n"
              "program says hello\n"
              "no newline before this\"1\",\"1\",\"app\",\"h\",\"other\",\"(32, 2, 1)\",\"(1, 1, "
              "1)\",\"0\",\"976\",\"n/a\"\r\n"
              "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Block Size\",\"Grid "
              "Size\",\"Device\",\"gpu__time_duration.sum\",\"launch__registers_per_thread\"\n"
              "==PROF== Disconnected from process 1\n";
        const SessionData d = importText(ImportFormat::NcuCsv, text);
        QCOMPARE(d.kernels.size(), size_t(2));
        QCOMPARE(d.kernels[0].end - d.kernels[0].start, int64_t(1024));
        QCOMPARE(d.kernels[1].start, d.kernels[0].end);
        QCOMPARE(d.kernels[1].end - d.kernels[1].start, int64_t(976));
        QCOMPARE(d.str(d.kernels[1].demangledName), std::string("other"));
        QCOMPARE(std::tie(d.kernels[1].blockX, d.kernels[1].blockY), std::make_tuple(32, 2));
        QCOMPARE(d.kernels[0].registersPerThread, 32);
        QCOMPARE(d.str(d.kernels[0].shortName), std::string("k"));
        QCOMPARE(d.metricDefs.size(), size_t(2));
        QCOMPARE(d.kernelMetrics.size(), size_t(3)); // "n/a" is not a value
        QCOMPARE(d.meta.at("import.ncu.skippedLines"), std::string("4"));
    }

    void ncuRejects()
    {
        std::string message;
        QCOMPARE(errorKind(ImportFormat::NcuCsv, "just text\n", &message), SessionError::Kind::BadInput);
        QVERIFY(message.find("test input: no ncu raw-page CSV header") == 0);
        QCOMPARE(errorKind(ImportFormat::NcuCsv,
                     "\"ID\",\"Process ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric "
                     "Value\"\n",
                     &message),
            SessionError::Kind::BadInput);
        QVERIFY(message.find("details page") != std::string::npos);
    }

    void detection_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("format"); // -1: none
        QTest::newRow("sqlite") << QByteArray("SQLite format 3\0xxxx", 20) << "r.sqlite"
                                << int(ImportFormat::NsysSqlite);
        QTest::newRow("kineto") << QByteArray("\xEF\xBB\xBF\n  {\n \"schemaVersion\": 1, \"traceEvents\": [")
                                << "t.json" << int(ImportFormat::Kineto);
        QTest::newRow("bare array") << QByteArray("[{\"ph\":\"X\",\"name\":\"a\"}") << "t.json"
                                    << int(ImportFormat::Kineto);
        QTest::newRow("hatchet") << QByteArray(
            "[\n {\n  \"children\": [],\n  \"frame\": {\"name\": \"ROOT\"},\n  \"metrics\": {}")
                                 << "p.hatchet" << int(ImportFormat::Proton);
        QTest::newRow("ncu log") << QByteArray("==PROF== Connected to process") << "x.txt" << int(ImportFormat::NcuCsv);
        QTest::newRow("ncu csv") << QByteArray("\"ID\",\"Process ID\",\"Process Name\"") << "x.csv"
                                 << int(ImportFormat::NcuCsv);
        QTest::newRow("report by name") << QByteArray("\x01\x02") << "/d/run.ncu-rep" << int(ImportFormat::NcuCsv);
        QTest::newRow("text") << QByteArray("hello") << "x.txt" << -1;
    }

    void detection()
    {
        QFETCH(QByteArray, head);
        QFETCH(QString, name);
        QFETCH(int, format);
        const auto got
            = detectImportFormat(std::string_view(head.constData(), size_t(head.size())), name.toStdString());
        QCOMPARE(got ? int(*got) : -1, format);
    }

    void formatNames()
    {
        for (auto f : {ImportFormat::Auto, ImportFormat::NsysSqlite, ImportFormat::Kineto, ImportFormat::NcuCsv,
                 ImportFormat::Proton})
            QCOMPARE(parseImportFormat(importFormatName(f)), std::optional<ImportFormat>(f));
        QCOMPARE(parseImportFormat("chrome"), std::optional<ImportFormat>(ImportFormat::Kineto));
        QVERIFY(!parseImportFormat("xml"));
    }

    void chromeBeginEndAndNesting()
    {
        // B/E pairs (nested, one never ended), a bare array, string pid/tid, instants, counters,
        // async b/e across threads, metadata names, flows (skipped).
        const std::string trace = R"([
            {"ph":"M","name":"process_name","pid":7,"args":{"name":"server"}},
            {"ph":"M","name":"thread_name","pid":7,"tid":1,"args":{"name":"main"}},
            {"ph":"B","name":"outer","cat":"app","pid":7,"tid":1,"ts":10},
            {"ph":"B","name":"inner","pid":7,"tid":1,"ts":12.5},
            {"ph":"E","pid":7,"tid":1,"ts":14},
            {"ph":"E","pid":7,"tid":1,"ts":20},
            {"ph":"B","name":"open","pid":7,"tid":2,"ts":30},
            {"ph":"X","name":"work","cat":"app","pid":7,"tid":1,"ts":15,"dur":2},
            {"ph":"i","name":"tick","s":"g","pid":7,"tid":1,"ts":16},
            {"ph":"C","name":"mem","pid":7,"ts":17,"args":{"used":1.5,"free":2}},
            {"ph":"C","name":"mem","pid":7,"ts":18,"args":{"used":2.5,"free":1}},
            {"ph":"b","name":"req","cat":"net","id":"0x1","pid":7,"tid":1,"ts":21},
            {"ph":"e","name":"req","cat":"net","id":"0x1","pid":7,"tid":2,"ts":40},
            {"ph":"s","name":"f","id":1,"pid":7,"tid":1,"ts":1},
            {"ph":"X","name":"named","pid":"Spans","tid":"lane","ts":1,"dur":1},
            {"ph":"E","pid":9,"tid":9,"ts":1}
        ])";
        const SessionData d = importText(ImportFormat::Kineto, trace);
        QCOMPARE(d.nvtxRanges.size(), size_t(6));
        const auto* outer = rangeNamed(d, "outer");
        const auto* inner = rangeNamed(d, "inner");
        const auto* work = rangeNamed(d, "work");
        QVERIFY(outer && inner && work);
        QCOMPARE(outer->start, int64_t(10000));
        QCOMPARE(outer->end, int64_t(20000));
        QCOMPARE(outer->depth, 0);
        QCOMPARE(inner->start, int64_t(12500));
        QCOMPARE(inner->depth, 1);
        QCOMPARE(work->depth, 1);
        QCOMPARE(d.str(outer->domain), std::string("app"));
        const auto* open = rangeNamed(d, "open");
        QCOMPARE(open->end, int64_t(40000)); // never ended: the last timestamp of the trace
        const auto* req = rangeNamed(d, "req");
        QCOMPARE(req->style, NvtxStyle::StartEnd);
        QCOMPARE(req->tid, int64_t(1));
        QCOMPARE(req->endTid, int64_t(2));
        QCOMPARE(req->end - req->start, int64_t(19000));
        QCOMPARE(d.nvtxMarks.size(), size_t(1));
        QCOMPARE(d.counterTracks.size(), size_t(2));
        QCOMPARE(d.counterTracks[0].name, std::string("mem used"));
        QCOMPARE(d.counterSamples.size(), size_t(4));
        QCOMPARE(d.counterSamples[1].value, 2.5);
        QCOMPARE(d.meta.at("import.skipped.flowEvents"), std::string("1"));
        QCOMPARE(d.meta.at("import.skipped.endsWithoutBegin"), std::string("1"));
        QCOMPARE(d.meta.at("import.skipped.beginsNeverEnded"), std::string("1"));
        const auto server
            = std::find_if(d.processes.begin(), d.processes.end(), [](const auto& p) { return p.pid == 7; });
        QCOMPARE(server->name, std::string("server"));
        const auto spans
            = std::find_if(d.processes.begin(), d.processes.end(), [](const auto& p) { return p.name == "Spans"; });
        QVERIFY(spans != d.processes.end());
        const auto lane
            = std::find_if(d.threads.begin(), d.threads.end(), [](const auto& t) { return t.name == "lane"; });
        QVERIFY(lane != d.threads.end());
        QCOMPARE(lane->pid, spans->pid);
    }

    void kinetoGpuWithoutHostCalls()
    {
        // A kernel whose correlation matches no API call still lands in the host process.
        const std::string trace = R"j({"traceEvents":[
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":101,"ts":1,"dur":5},
            {"ph":"X","cat":"kernel","name":"_Z6kernelPf","pid":0,"tid":3,"ts":2,"dur":1,
             "args":{"device":0,"stream":3,"correlation":99,"grid":[2,1,1],"block":[64,1,1],"extra":{"deep":[1,[2]]}}},
            {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":3,"ts":4,"dur":1,"args":{"bytes":64}}],
            "deviceProperties":[{"id":0,"name":"GPU","warpSize":32,"maxThreadsPerMultiprocessor":1536}]
    })j";
        const SessionData d = importText(ImportFormat::Kineto, trace);
        QCOMPARE(d.kernels.size(), size_t(1));
        QCOMPARE(d.kernels[0].pid, int64_t(100));
        QCOMPARE(d.str(d.kernels[0].shortName), std::string("kernel"));
        QCOMPARE(d.kernels[0].gridX, 2);
        QCOMPARE(d.memsets[0].pid, int64_t(100));
        QCOMPARE(d.devices[0].maxWarpsPerSm, 48);
        QCOMPARE(d.devices[0].pid, int64_t(100));
    }

    void chromeRejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << ""
                               << "not valid trace JSON";
        QTest::newRow("truncated") << R"({"traceEvents":[{"ph":"X","ts":1)"
                                   << "not valid trace JSON";
        QTest::newRow("no traceEvents") << R"({"foo":[1,2]})"
                                        << "without a traceEvents array";
        QTest::newRow("scalar") << "42"
                                << "without a traceEvents array";
        QTest::newRow("deep nesting is only an error") << QString(200000, '[') << "not valid trace JSON";
    }

    void chromeRejects()
    {
        QFETCH(QString, text);
        QFETCH(QString, reason);
        std::string message;
        QCOMPARE(errorKind(ImportFormat::Kineto, text.toStdString(), &message), SessionError::Kind::BadInput);
        QVERIFY2(message.find("test input: ") == 0 && message.find(reason.toStdString()) != std::string::npos,
            message.c_str());
    }

    void protonRejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not a tree") << R"([{"a":1}])"
                                    << "not a Proton hatchet tree";
        QTest::newRow("child without frame") << R"([{"frame":{"name":"ROOT"},"children":[{"metrics":{}}]}])"
                                             << "without \"frame\"";
        QTest::newRow("absurd count")
            << R"j({"frame":{"name":"ROOT"},"children":[{"frame":{"name":"k"},"metrics":{"count":1e12,"time (ns)":5}}]})j"
            << "more than";
    }

    void protonRejects()
    {
        QFETCH(QString, text);
        QFETCH(QString, reason);
        std::string message;
        QCOMPARE(errorKind(ImportFormat::Proton, text.toStdString(), &message), SessionError::Kind::BadInput);
        QVERIFY2(message.find(reason.toStdString()) != std::string::npos, message.c_str());
    }

    void nsysRejects()
    {
        std::string message;
        QCOMPARE(errorKind(ImportFormat::NsysSqlite, "definitely not sqlite", &message), SessionError::Kind::BadInput);
        QVERIFY(message.find("test input: ") == 0);
        QTemporaryDir dir;
        try {
            importSession(dir.filePath("missing.sqlite").toStdString(), ImportFormat::NsysSqlite, {});
            QFAIL("expected NotFound");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), SessionError::Kind::NotFound);
        }
    }

    // A gzip-compressed trace (tensorboard's *.pt.trace.json.gz) imports to the same session as
    // the plain file; damaged gzip data is a BadInput naming the file, which stays unchanged.
    void gzipTraces_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("name");
        QTest::newRow("kineto") << "kineto_mm_relu.json"
                                << "trace.pt.trace.json.gz";
        QTest::newRow("proton") << "proton_mm_relu.hatchet"
                                << "mm.hatchet.gz";
        QTest::newRow("ncu csv with noise") << "ncu_mixed.txt"
                                            << "ncu.txt.gz";
    }
    void gzipTraces()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, name);
        const std::string plain = std::string(WS_FIXTURES_DIR "/import/") + fixture.toStdString();
        QTemporaryDir dir;
        const std::string packed = dir.filePath(name).toStdString();
        {
            std::ifstream in(plain, std::ios::binary);
            const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            gzFile gz = gzopen(packed.c_str(), "wb");
            QVERIFY(gz);
            QCOMPARE(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
            QCOMPARE(gzclose(gz), Z_OK);
        }
        QVERIFY(isGzipFile(packed));
        QVERIFY(!isGzipFile(plain));
        std::vector<double> seen;
        ImportOptions options;
        options.progress = [&](double f, const char*) { seen.push_back(f); };
        const SessionData fromPacked = importSession(packed, ImportFormat::Auto, options);
        const SessionData fromPlain = importSession(plain, ImportFormat::Auto, {});
        QVERIFY(fromPacked.kernels == fromPlain.kernels);
        QVERIFY(fromPacked.apiCalls == fromPlain.apiCalls);
        QVERIFY(fromPacked.nvtxRanges == fromPlain.nvtxRanges);
        QVERIFY(fromPacked.kernelMetrics == fromPlain.kernelMetrics);
        QVERIFY(fromPacked.strings.all() == fromPlain.strings.all());
        QVERIFY(!fromPlain.kernels.empty() || !fromPlain.kernelMetrics.empty());
        QVERIFY(!seen.empty());
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));

        // What `warpscope-cli import` and the app run (importIntoSession) reads it too, and writes
        // the session the plain file gives.
        const std::string fromPackedSession = dir.filePath("packed.wscope").toStdString();
        const std::string fromPlainSession = dir.filePath("plain.wscope").toStdString();
        const SessionImport viaPacked = importIntoSession(packed, ImportFormat::Auto, {}, fromPackedSession);
        const SessionImport viaPlain = importIntoSession(plain, ImportFormat::Auto, {}, fromPlainSession);
        QCOMPARE(viaPacked.format, detectImportFormat(plain));
        QCOMPARE(viaPacked.format, viaPlain.format);
        const SessionData storedPacked = SessionReader(fromPackedSession).readAll();
        const SessionData storedPlain = SessionReader(fromPlainSession).readAll();
        QVERIFY(storedPacked.kernels == storedPlain.kernels);
        QVERIFY(storedPacked.apiCalls == storedPlain.apiCalls);
        QVERIFY(storedPacked.nvtxRanges == storedPlain.nvtxRanges);
        QVERIFY(storedPacked.kernelMetrics == storedPlain.kernelMetrics);
        QVERIFY(storedPacked.strings.all() == storedPlain.strings.all());
        QVERIFY(!storedPlain.kernels.empty() || !storedPlain.kernelMetrics.empty());

        // Cut the compressed file short: an error naming it, and the file as it was.
        const auto size = std::filesystem::file_size(packed);
        std::filesystem::resize_file(packed, size / 2);
        try {
            importSession(packed, ImportFormat::Auto, {});
            QFAIL("expected BadInput");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), SessionError::Kind::BadInput);
            QVERIFY2(std::string(e.what()).find(packed) == 0, e.what());
        }
        QCOMPARE(std::filesystem::file_size(packed), size / 2);
    }

    void progressAndCancel()
    {
        // 100k events: progress is reported, increasing, and a cancel stops the import.
        std::string trace = "[";
        for (int i = 0; i < 100000; ++i)
            trace += std::string(i ? "," : "") + R"({"ph":"X","name":"f","pid":1,"tid":1,"ts":)" + std::to_string(i)
                + R"(,"dur":0.5})";
        trace += "]";
        std::vector<double> seen;
        ImportOptions options;
        options.progress = [&](double f, const char*) { seen.push_back(f); };
        const SessionData d = importText(ImportFormat::Kineto, trace, options);
        QCOMPARE(d.nvtxRanges.size(), size_t(100000));
        QVERIFY(seen.size() >= 5);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), 1.0);

        ImportOptions cancelling;
        int calls = 0;
        cancelling.progress = [&](double, const char*) {
            if (++calls == 2)
                cancelling.cancel.cancel();
        };
        try {
            importText(ImportFormat::Kineto, trace, cancelling);
            QFAIL("expected cancellation");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), SessionError::Kind::Cancelled);
        }
        QCOMPARE(calls, 2);
    }
};

QTEST_GUILESS_MAIN(TestImportFormats)
#include "tst_import_formats.moc"

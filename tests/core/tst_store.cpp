// SPDX-License-Identifier: MIT
// SessionWriter + SessionReader on real files: every table round-trips field by field, every
// way a file can be wrong gets its own SessionError kind, and opening never changes the file.
#include "core/store/schema.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/store/sqlite.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"
#include "core/util/hash.h"

#include <sqlite3.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sys/stat.h>

using namespace ws;
using Kind = SessionError::Kind;

Q_DECLARE_METATYPE(ws::SessionError::Kind)

namespace {

// A session with at least two rows in every table and the awkward values each column type
// can hold: extremes of every integer width, UTF-8 and embedded quotes, infinities.
SessionData everyTable()
{
    SessionData d;
    d.meta = {{"created", "2026-03-01T12:00:00Z"}, {"tool_version", "test"}, {"note", "it's \"quoted\""}};
    d.environment = {{"host", "gpu-01"}, {"driver_version", "580.65.06"}, {"env.PATH", "/usr/bin:/bin"}};
    const StringId kernelName = d.strings.intern("_Z11relu_kernelPfi");
    const StringId demangled = d.strings.intern("relu_kernel(float*, int)");
    const StringId shortName = d.strings.intern("relu_kernel");
    const StringId api = d.strings.intern("cudaLaunchKernel_v7000");
    const StringId range = d.strings.intern("r\xc3\xa9gion \xe2\x86\x92 1");
    const StringId domain = d.strings.intern("my domain");
    const StringId overhead = d.strings.intern("activity buffer request");
    const StringId role = d.strings.intern("producer");

    d.processes = {{100, "train", "python3 train.py --lr 0.1", 0, 0, 1700000000000000000, 5000, 1},
        {200, "child", "", -1, 9, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 100}};
    d.threads = {{100, 100, "main"}, {100, 101, "worker"}, {200, 200, ""}};
    DeviceInfo dev;
    dev.id = 0;
    dev.pid = 100;
    dev.name = "NVIDIA H200";
    dev.uuid = "GPU-1234";
    dev.ccMajor = 9;
    dev.smCount = 132;
    dev.smClockKhz = 1980000;
    dev.globalMemBytes = 150754820096;
    dev.dramBandwidthBytesPerS = 4.9e12;
    dev.peakFp8TensorFlopsPerS = std::numeric_limits<double>::infinity();
    dev.l1BandwidthBytesPerS = 1.0 / 3.0;
    DeviceInfo dev2 = dev;
    dev2.id = 1;
    dev2.uuid = "GPU-5678";
    d.devices = {dev, dev2};
    d.streams = {{100, 0, 1, 7, 0, "default"}, {100, 0, 1, 13, -1, "copy"}};

    KernelRecord k;
    k.id = 1;
    k.pid = 100;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = 7;
    k.correlationId = std::numeric_limits<uint32_t>::max();
    k.start = 1000;
    k.end = 2000;
    k.queued = 900;
    k.submitted = 950;
    k.mangledName = kernelName;
    k.demangledName = demangled;
    k.shortName = shortName;
    k.gridX = 528, k.gridY = 2, k.gridZ = 3;
    k.blockX = 512, k.blockY = 1, k.blockZ = 1;
    k.clusterX = 2, k.clusterY = 1, k.clusterZ = 1;
    k.registersPerThread = 16;
    k.staticSmemBytes = 1024;
    k.dynamicSmemBytes = 213188;
    k.localMemPerThread = 8;
    k.graphId = 3;
    k.graphNodeId = std::numeric_limits<uint64_t>::max();
    KernelRecord k2 = k;
    k2.id = 2;
    k2.start = 2500;
    k2.end = 2600;
    k2.graphNodeId = 0;
    d.kernels = {k, k2};
    d.memcpys = {{1, 100, 0, 1, 13, 5, 100, 900, 1 << 20, CopyKind::HtoD, 3, 2, 0},
        {2, 100, 0, 1, 13, 6, 3000, 3100, 4, CopyKind::DtoH, 2, 3, 7}};
    d.memsets = {{1, 100, 0, 1, 7, 7, 2100, 2200, 4096, 0, 0}, {2, 100, 0, 1, 7, 8, 2700, 2800, 16, -1, 0}};
    d.apiCalls = {{1, 100, 100, 4, 500, 1200, ApiDomain::Runtime, 211, api, 0},
        {2, 100, 100, 4, 600, 1100, ApiDomain::Driver, 307, api, 0},
        {3, 100, 101, 9, 700, 800, ApiDomain::Runtime, 211, api, 2}};
    d.nvtxRanges = {{1, 100, 100, 100, 400, 3000, range, domain, 5, 0xFF76B900u, NvtxStyle::PushPop, 0},
        {2, 100, 100, 101, 450, 2000, range, 0, 0, 0xFFFFFFFFu, NvtxStyle::StartEnd, 1}};
    d.nvtxMarks = {{1, 100, 100, 450, range, domain, 0, 0}, {2, 200, 200, -5, range, 0, 1, 0x12345678u}};
    d.syncs = {{1, 100, 100, 0, 1, 7, 10, 1300, 2100, SyncKind::StreamSynchronize, 0},
        {2, 100, 101, 0, 1, 0xFFFFFFFFu, 11, 2200, 2300, SyncKind::ContextSynchronize, 42}};
    d.overheads = {{1, 100, 100, 10, 20, overhead}, {2, 200, 200, 30, 40, overhead}};
    d.metricDefs = {{1, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "SpeedOfLight", "SM throughput"},
        {2, "dram__bytes.sum", "byte", "Memory", ""}};
    d.kernelMetrics = {{1, 1, 87.5}, {1, 2, 1e12}, {2, 1, -0.0}};
    d.counterTracks = {{1, 100, 0, "sm__warps_active", "%"}, {2, 100, 0, "dram__throughput", "%"}};
    d.counterSamples = {{1, 1000, 12.5}, {2, 1000, 0.0}, {1, 2000, std::numeric_limits<double>::max()}};
    d.benchRuns
        = {{1, "gemm 4096", "cublas", "one call", "cuda-events-per-call", "flush", "ms", "{\"n\":4096}", 1.37e11, 1e8},
            {2, "relu", "naive", "", "wallclock-sync-per-call", "warm", "us", "{}", 0, 0}};
    d.benchSamples = {{1, 0, 0, 1.25}, {1, 0, 1, 1.5}, {2, 3, -1, 0.001}};
    d.warpEvents = {{1, 1, 0, 3, 17, role, range, WarpEventKind::Range, 1100, 1500, 0},
        {2, 1, 0, 3, 17, role, range, WarpEventKind::Mark, 1200, 1200, 1}};
    return d;
}

void writeSession(const std::string& path, const SessionData& data)
{
    SessionWriter writer(path);
    attachLaneCache(writer);
    writer.write(data);
    writer.commit();
}

void writeSynthetic(const std::string& path, int64_t events, int64_t batch = 1 << 16)
{
    SynthOptions options;
    options.events = events;
    options.seed = 3;
    options.batchEvents = batch;
    SessionWriter writer(path);
    attachLaneCache(writer);
    writeSyntheticSession(options, writer);
    writer.commit();
}

std::vector<char> readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::string& path, const std::vector<char>& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Page size from the SQLite header (big-endian at offset 16; 1 means 65536).
size_t pageSizeOf(const std::vector<char>& bytes)
{
    const size_t size = (static_cast<size_t>(static_cast<unsigned char>(bytes.at(16))) << 8)
        | static_cast<unsigned char>(bytes.at(17));
    return size == 1 ? 65536 : size;
}

// Edits a finished session with plain SQLite, as a user with the sqlite3 shell could.
void editSession(const std::string& path, const char* sql)
{
    sqlite::Database db(path, SQLITE_OPEN_READWRITE);
    db.exec(sql);
}

// Opens a session the way the app does (header checks, every table, the timeline) and
// returns the kind of the first SessionError, or no value when everything loads.
std::optional<Kind> openFully(const std::string& path, std::string* message = nullptr)
{
    try {
        SessionReader reader(path);
        reader.readAll();
        TimelineModel::load(reader);
        reader.tableCounts();
    } catch (const SessionError& e) {
        if (message)
            *message = e.what();
        return e.kind();
    }
    return std::nullopt;
}

} // namespace

class TestStore : public QObject {
    Q_OBJECT

private slots:
    void everyTableRoundTrips()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("all.wscope").toStdString();
        const SessionData in = everyTable();
        writeSession(path, in);

        SessionReader reader(path);
        QCOMPARE(reader.schemaVersion(), schema::kSchemaVersion);
        const SessionData out = reader.readAll();
        QCOMPARE(out.strings.all(), in.strings.all());
        QCOMPARE(out.meta, in.meta);
        QCOMPARE(out.environment, in.environment);
        QVERIFY(out.processes == in.processes);
        QVERIFY(out.threads == in.threads);
        QVERIFY(out.devices == in.devices);
        QVERIFY(out.streams == in.streams);
        QVERIFY(out.kernels == in.kernels);
        QVERIFY(out.memcpys == in.memcpys);
        QVERIFY(out.memsets == in.memsets);
        QVERIFY(out.apiCalls == in.apiCalls);
        QVERIFY(out.nvtxRanges == in.nvtxRanges);
        QVERIFY(out.nvtxMarks == in.nvtxMarks);
        QVERIFY(out.syncs == in.syncs);
        QVERIFY(out.overheads == in.overheads);
        QVERIFY(out.metricDefs == in.metricDefs);
        QVERIFY(out.kernelMetrics == in.kernelMetrics);
        QVERIFY(out.counterTracks == in.counterTracks);
        QVERIFY(out.counterSamples == in.counterSamples);
        QVERIFY(out.benchRuns == in.benchRuns);
        QVERIFY(out.benchSamples == in.benchSamples);
        QVERIFY(out.warpEvents == in.warpEvents);
        // Spot checks that would catch a codec writing the wrong column for both directions.
        QCOMPARE(out.kernels[0].graphNodeId, std::numeric_limits<uint64_t>::max());
        QCOMPARE(out.devices[0].peakFp8TensorFlopsPerS, std::numeric_limits<double>::infinity());
        QCOMPARE(out.nvtxRanges[1].color, 0xFFFFFFFFu);

        const auto meta = reader.meta();
        QCOMPARE(meta.at("schema_version"), std::to_string(schema::kSchemaVersion));
        QCOMPARE(meta.at("complete"), std::string("1"));

        const auto counts = reader.tableCounts();
        QCOMPARE(counts.at("kernel"), int64_t(2));
        QCOMPARE(counts.at("api_call"), int64_t(3));
        QCOMPARE(counts.at("string"), static_cast<int64_t>(in.strings.size()));
        QCOMPARE(counts.at("bench_sample"), int64_t(3));
        QVERIFY(!counts.contains("lane_blob"));
    }

    void storeOwnsVersionAndCreationTime()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("meta.wscope").toStdString();
        SessionData in = everyTable();
        in.meta = {{"synthetic", "1"}};
        writeSession(path, in);
        SessionReader reader(path);
        const auto meta = reader.meta();
        QCOMPARE(meta.at("tool_version"), std::string(WS_VERSION));
        const QString created = QString::fromStdString(meta.at("created"));
        QVERIFY2(QRegularExpression("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$").match(created).hasMatch(),
            qPrintable(created));
        // readAll leaves out what belongs to the store.
        const SessionData out = reader.readAll();
        QVERIFY(!out.meta.contains("schema_version"));
        QVERIFY(!out.meta.contains("complete"));
        QCOMPARE(out.meta.at("synthetic"), std::string("1"));
    }

    void zeroIdsGetRowids()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("ids.wscope").toStdString();
        SessionData in;
        in.strings.intern("k");
        for (int i = 0; i < 70; ++i) { // more than one multi-row INSERT
            KernelRecord k;
            k.id = i == 40 ? 1000 : 0;
            k.pid = 1;
            k.streamId = 7;
            k.start = 10 * i;
            k.end = 10 * i + 5;
            k.shortName = 1;
            in.kernels.push_back(k);
        }
        writeSession(path, in);
        SessionReader reader(path);
        const SessionData out = reader.readAll();
        QCOMPARE(out.kernels.size(), size_t(70));
        // SQLite's next rowid is one more than the largest so far: 1..40, then 1000, 1001...
        QCOMPARE(out.kernels[0].id, int64_t(1));
        QCOMPARE(out.kernels[39].id, int64_t(40));
        QCOMPARE(out.kernels[40].id, int64_t(1000));
        QCOMPARE(out.kernels[41].id, int64_t(1001));
        // The in-memory model assigns the same ids, so lanes agree with the file.
        const auto fromFile = TimelineModel::load(reader);
        const auto fromMemory = TimelineModel::fromSessionData(in);
        QCOMPARE(fromFile->lanes.size(), size_t(1));
        QVERIFY(fromFile->lanes[0].ref == fromMemory->lanes[0].ref);
    }

    void batchedAppendsEqualOneWrite()
    {
        QTemporaryDir dir;
        const SessionData in = everyTable();
        const std::string whole = dir.filePath("whole.wscope").toStdString();
        const std::string parts = dir.filePath("parts.wscope").toStdString();
        writeSession(whole, in);
        {
            SessionWriter writer(parts);
            attachLaneCache(writer);
            writer.appendKernels(std::span(in.kernels).first(1));
            writer.writeHeaderTables(in);
            writer.appendKernels(std::span(in.kernels).subspan(1));
            writer.appendApiCalls(in.apiCalls);
            writer.writeHeaderTables(in); // replacing the small tables is allowed any time
            writer.commit();
        }
        const SessionData a = SessionReader(whole).readAll();
        const SessionData b = SessionReader(parts).readAll();
        QVERIFY(a.kernels == b.kernels);
        QVERIFY(a.apiCalls == b.apiCalls);
        QVERIFY(a.processes == b.processes);
        QCOMPARE(a.strings.all(), b.strings.all());
    }

    void badInputIsRejectedWithItsReason()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.wscope").toStdString();
        SessionWriter writer(path);
        attachLaneCache(writer);
        SessionData d;
        d.kernelMetrics = {{1, 1, std::nan("")}};
        try {
            writer.write(d);
            QFAIL("NaN must be rejected");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), Kind::BadInput);
            QVERIFY2(std::string(e.what()).find("NaN") != std::string::npos, e.what());
            QCOMPARE(e.path(), path);
        }
        // After a failed write the writer refuses to commit something inconsistent.
        QVERIFY_THROWS_EXCEPTION(SessionError, writer.commit());

        SessionWriter dup(dir.filePath("dup.wscope").toStdString());
        KernelRecord k;
        k.id = 5;
        const std::vector<KernelRecord> twice = {k, k};
        try {
            dup.appendKernels(twice);
            QFAIL("duplicate ids must be rejected");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), Kind::BadInput);
            QVERIFY2(std::string(e.what()).find("UNIQUE") != std::string::npos, e.what());
        }
    }

    void writerWithoutCommitLeavesNothing()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("gone.wscope").toStdString();
        {
            SessionWriter writer(path);
            attachLaneCache(writer);
            writer.write(everyTable());
            QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1); // the temp file
        }
        QVERIFY(!std::filesystem::exists(path));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
        // And opening the path that was never committed says so.
        QCOMPARE(openFully(path), std::optional(Kind::NotFound));
    }

    void commitReplacesAnExistingFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("over.wscope").toStdString();
        writeSession(path, everyTable());
        SessionData second;
        second.meta = {{"generation", "2"}};
        writeSession(path, second);
        QCOMPARE(SessionReader(path).meta().at("generation"), std::string("2"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    void writerReportsUnwritableLocation()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("missing/dir/x.wscope").toStdString();
        try {
            SessionWriter writer(path);
            attachLaneCache(writer);
            QFAIL("creating a session in a missing directory must fail");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), Kind::WriteFailed);
            QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
        }
    }

    void errorKinds_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<Kind>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << "missing" << Kind::NotFound << "cannot open";
        QTest::newRow("directory") << "directory" << Kind::NotFound << "directory";
        QTest::newRow("empty") << "empty" << Kind::NotSqlite << "empty";
        QTest::newRow("text file") << "text" << Kind::NotSqlite << "not a SQLite database";
        QTest::newRow("other SQLite database") << "other-db" << Kind::NotSession << "not a Warpscope session";
        // One version above the newest this build writes (kSchemaVersion).
        const QString newest = QString::number(schema::kSchemaVersion);
        const QString newer = QString::number(schema::kSchemaVersion + 1);
        QTest::newRow("newer schema") << "newer" << Kind::NewerSchema
                                      << "written by a newer Warpscope (schema " + newer + ", this build reads up to "
                + newest + ")";
        QTest::newRow("newer schema in meta only")
            << "newer-meta" << Kind::NewerSchema
            << "written by a newer Warpscope (schema 7, this build reads up to " + newest + ")";
        QTest::newRow("truncated to half") << "half" << Kind::Truncated << "truncated";
        QTest::newRow("truncated inside the header") << "header" << Kind::Truncated << "truncated";
        QTest::newRow("incomplete") << "incomplete" << Kind::Incomplete << "incomplete";
        QTest::newRow("missing table") << "drop-table" << Kind::Corrupted << "table kernel is missing";
        QTest::newRow("edited rows") << "edit-rows" << Kind::Corrupted << "does not match its checksum";
        QTest::newRow("damaged lane cache") << "lane-cache" << Kind::Corrupted << "lane cache";
        // Found by fuzz_session_loader: a forged count once decided a reserve() and threw length_error.
        QTest::newRow("forged row count") << "forged-count" << Kind::Corrupted << "the writer stored";
    }

    void errorKinds()
    {
        QFETCH(QString, damage);
        QFETCH(Kind, kind);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const std::string path = dir.filePath("s.wscope").toStdString();
        if (damage != "missing" && damage != "directory" && damage != "empty" && damage != "text"
            && damage != "other-db")
            writeSynthetic(path, 5000);

        if (damage == "directory") {
            std::filesystem::create_directory(path);
        } else if (damage == "empty") {
            writeBytes(path, {});
        } else if (damage == "text") {
            writeBytes(path, std::vector<char>(200, 'x'));
        } else if (damage == "other-db") {
            sqlite::Database db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            db.exec("CREATE TABLE kernel(id INTEGER PRIMARY KEY); INSERT INTO kernel VALUES(1);");
        } else if (damage == "newer") {
            const std::string newer = std::to_string(schema::kSchemaVersion + 1);
            editSession(path,
                ("PRAGMA user_version = " + newer + "; UPDATE meta SET value = '" + newer
                    + "' WHERE key = 'schema_version';")
                    .c_str());
        } else if (damage == "newer-meta") {
            editSession(path, "UPDATE meta SET value = '7' WHERE key = 'schema_version';");
        } else if (damage == "half") {
            std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
        } else if (damage == "header") {
            std::filesystem::resize_file(path, 50);
        } else if (damage == "incomplete") {
            editSession(path, "UPDATE meta SET value = '0' WHERE key = 'complete';");
        } else if (damage == "drop-table") {
            editSession(path, "DROP TABLE kernel;");
        } else if (damage == "forged-count") {
            editSession(path, "UPDATE table_check SET row_count = 9223372036854775807 WHERE table_name = 'kernel';");
        } else if (damage == "edit-rows") {
            editSession(path, "UPDATE kernel SET end = end + 1 WHERE id = 10;");
        } else if (damage == "lane-cache") {
            // Flip bytes inside the first lane blob's columns (just after its "WSLB" magic).
            std::vector<char> bytes = readBytes(path);
            const std::string magic = "WSLB";
            const auto at = std::search(bytes.begin(), bytes.end(), magic.begin(), magic.end());
            QVERIFY(at != bytes.end());
            const auto offset = static_cast<size_t>(at - bytes.begin()) + 100;
            for (size_t i = offset; i < offset + 16; ++i)
                bytes[i] = static_cast<char>(~bytes[i]);
            writeBytes(path, bytes);
        }

        std::string text;
        const auto got = openFully(path, &text);
        QVERIFY2(got.has_value(), "opening must fail");
        QCOMPARE(*got, kind);
        QVERIFY2(text.find(message.toStdString()) != std::string::npos, text.c_str());
        QVERIFY2(text.starts_with(path), "the message names the file");
    }

    // Every input the session-loader fuzzer ever crashed on is replayed here, so CI keeps them fixed
    // without libFuzzer: each must be rejected with a SessionError, and stay byte-identical.
    void tableCountsIncludeTheOptionalTablesPresent()
    {
        // The H200 PC-sampling session has the four source-counter tables; a trace has none.
        const auto source = SessionReader(WS_FIXTURES_DIR "/source/stalls-source.wscope").tableCounts();
        for (const char* t : {"sass_function", "sass_instruction", "source_counter", "source_file"}) {
            QVERIFY2(source.count(t), t);
            QVERIFY2(source.at(t) > 0, t);
        }
        QVERIFY(source.count("kernel"));
        QVERIFY(!source.count("lane_blob"));
        const auto trace = SessionReader(WS_FIXTURES_DIR "/recorder/sessions/gemm_relu.wscope").tableCounts();
        QVERIFY(!trace.count("source_counter"));
        QVERIFY(trace.at("kernel") > 0);
    }

    void fuzzRegressionsAreRejected()
    {
        const QDir dir(QStringLiteral(WS_FIXTURES_DIR "/../fuzz/regressions"));
        const QStringList files = dir.entryList({QStringLiteral("fuzz_session_loader-*")}, QDir::Files);
        QVERIFY2(!files.isEmpty(), qPrintable(dir.path()));
        for (const QString& name : files) {
            QTemporaryDir tmp;
            const std::string path = tmp.filePath(name).toStdString();
            QVERIFY(QFile::copy(dir.filePath(name), QString::fromStdString(path)));
            const std::vector<char> before = readBytes(path);
            std::optional<Kind> got;
            try {
                got = openFully(path);
            } catch (const std::exception& e) {
                QFAIL(qPrintable(name + QStringLiteral(": escaped as ") + QString::fromUtf8(e.what())));
            }
            QVERIFY2(got.has_value(), qPrintable(name));
            QVERIFY2(readBytes(path) == before, qPrintable(name));
        }
    }

    // Garbage written over part of a real session (a bad sector, a broken copy) must be
    // reported as corruption, never crash, never load silently. A whole page is overwritten:
    // junk that lands only in a page's unused space leaves the content intact.
    void overwrittenPagesAreCorruption_data()
    {
        QTest::addColumn<double>("where");
        for (const double where : {0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95})
            QTest::newRow(qPrintable(QString::number(where))) << where;
    }

    void overwrittenPagesAreCorruption()
    {
        QFETCH(double, where);
        QTemporaryDir dir;
        const std::string path = dir.filePath("c.wscope").toStdString();
        writeSynthetic(path, 20000);
        std::vector<char> bytes = readBytes(path);
        const size_t pageSize = pageSizeOf(bytes);
        const size_t page = static_cast<size_t>(static_cast<double>(bytes.size()) * where) / pageSize;
        QVERIFY(page > 0);
        uint64_t x = 0x9E3779B97F4A7C15ULL;
        for (size_t i = page * pageSize; i < (page + 1) * pageSize; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            bytes[i] = static_cast<char>(x);
        }
        writeBytes(path, bytes);
        std::string text;
        const auto got = openFully(path, &text);
        QVERIFY2(got.has_value(), "damaged content must not load");
        QCOMPARE(*got, Kind::Corrupted);
        QVERIFY2(text.find("damaged") != std::string::npos, text.c_str());
    }

    void openingNeverChangesTheFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("ro.wscope").toStdString();
        writeSynthetic(path, 3000);
        // A read-only file in a directory that we may still write to: SQLite could create a
        // journal or -wal/-shm there if it wanted to.
        ::chmod(path.c_str(), 0444);
        const std::vector<char> before = readBytes(path);
        struct stat st0 { };
        ::stat(path.c_str(), &st0);
        const QStringList filesBefore
            = QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);

        for (int i = 0; i < 2; ++i) {
            SessionReader reader(path);
            reader.readAll();
            reader.tableCounts();
            reader.meta();
            TimelineModel::load(reader);
            TimelineModel::load(reader, {}, {}, false);
            // While open: still no side files.
            QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), filesBefore);
        }

        struct stat st1 { };
        ::stat(path.c_str(), &st1);
        QCOMPARE(st1.st_mtim.tv_sec, st0.st_mtim.tv_sec);
        QCOMPARE(st1.st_mtim.tv_nsec, st0.st_mtim.tv_nsec);
        QCOMPARE(st1.st_size, st0.st_size);
        const std::vector<char> after = readBytes(path);
        QCOMPARE(hashBytes(std::as_bytes(std::span(after))), hashBytes(std::as_bytes(std::span(before))));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), filesBefore);
    }

    void readAllReportsProgressAndCancels()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.wscope").toStdString();
        writeSynthetic(path, 200000);
        SessionReader reader(path);
        std::vector<double> fractions;
        const SessionData all = reader.readAll([&](double f, const char*) { fractions.push_back(f); });
        QVERIFY(fractions.size() > 3);
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
        QCOMPARE(fractions.back(), 1.0);
        QCOMPARE(static_cast<int64_t>(all.apiCalls.size() + all.kernels.size() + all.memcpys.size() + all.memsets.size()
                     + all.nvtxRanges.size() + all.nvtxMarks.size() + all.syncs.size()),
            int64_t(200000));

        CancellationToken cancel;
        int calls = 0;
        try {
            reader.readAll(
                [&](double, const char*) {
                    if (++calls == 2)
                        cancel.cancel();
                },
                cancel);
            QFAIL("readAll must stop when cancelled");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), Kind::Cancelled);
        }
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"

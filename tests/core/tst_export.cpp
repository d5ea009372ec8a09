// SPDX-License-Identifier: MIT
// Exporters (core/export): the Chrome trace JSON is parsed back with QJsonDocument and checked
// for the structure Perfetto needs; CSV tables are parsed back field by field; the streaming
// session-file source must give exactly what was written.
#include "core/analysis/nsysreports.h"
#include "core/analysis/sessionfilesource.h"
#include "core/export/chrometrace.h"
#include "core/export/csvexport.h"
#include "core/export/outputfile.h"
#include "core/report/reportformat.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "core/util/numbertext.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace ws;

namespace {

// Contains a quote, a backslash, a comma, a control character and a byte that is not UTF-8.
const std::string kNastyName = std::string("void weird<int, float>(\"quoted\" \\ name\x01)\xff");

struct ExportSession {
    SessionData d;
    int64_t nextId = 1;

    ExportSession()
    {
        d.meta["title"] = "export test";
        d.environment["host"] = "testhost";
        d.processes.push_back({10, "train", "python train.py", 0, 0, 0, 0, 1});
        d.threads.push_back({10, 11, "main"});
        d.threads.push_back({10, 12, ""});
        DeviceInfo dev;
        dev.id = 0;
        dev.pid = 10;
        dev.name = "NVIDIA H200";
        d.devices.push_back(dev);
        d.streams.push_back({10, 0, 1, 7, 0, "compute"});
        d.streams.push_back({10, 0, 1, 8, 0, ""});

        api(11, 1, 1000, 1100, "cudaLaunchKernel_v7000");
        // The runtime's own driver call, nested, with the same correlation id.
        api(11, 1, 1010, 1090, "cuLaunchKernel", ApiDomain::Driver);
        kernel(10, 7, 1, 1200, 1300, kNastyName);
        // One graph launch fans out to two kernels: two flows from one API slice.
        api(11, 2, 2000, 2100, "cudaGraphLaunch_v10000");
        kernel(10, 8, 2, 2200, 2300, "graph_node_a");
        kernel(10, 8, 2, 2300, 2400, "graph_node_b");
        // cuBLAS-style launch through the driver API on another thread.
        api(12, 3, 3000, 3050, "cuLaunchKernelEx", ApiDomain::Driver);
        kernel(10, 7, 3, 3100, 3200, "nvjet_gemm");
        api(11, 4, 4000, 4010, "cudaMemcpyAsync_v3020");
        MemcpyRecord m;
        m.id = nextId++;
        m.pid = 10;
        m.streamId = 7;
        m.correlationId = 4;
        m.start = 4020;
        m.end = 4100;
        m.bytes = 4096;
        m.copyKind = CopyKind::HtoD;
        d.memcpys.push_back(m);
        api(11, 5, 5000, 5010, "cudaMemsetAsync_v3020");
        MemsetRecord s;
        s.id = nextId++;
        s.pid = 10;
        s.streamId = 8;
        s.correlationId = 5;
        s.start = 5020;
        s.end = 5030;
        s.bytes = 4;
        d.memsets.push_back(s);
        api(11, 6, 6000, 7000, "cudaDeviceSynchronize_v3020"); // no GPU work: no flow
        kernel(10, 8, 0, 8000, 8100, "no_launch_record");      // corr 0: no flow
        // pid 20 is not in the process table, and its correlation id 1 is pid 10's: no flow.
        kernel(20, 7, 1, 8200, 8300, "other_process");

        nvtx(11, 500, 9000, "step", NvtxStyle::PushPop, 0);
        nvtx(11, 900, 2500, "fwd", NvtxStyle::PushPop, 1);
        nvtx(12, 1500, 6500, "async", NvtxStyle::StartEnd, 0);
        NvtxMarkRecord mark;
        mark.id = nextId++;
        mark.pid = 10;
        mark.tid = 11;
        mark.ts = 7500;
        mark.name = d.strings.intern("checkpoint");
        d.nvtxMarks.push_back(mark);
        SyncRecord sync;
        sync.id = nextId++;
        sync.pid = 10;
        sync.tid = 11;
        sync.start = 6001;
        sync.end = 6999;
        sync.kind = SyncKind::ContextSynchronize;
        d.syncs.push_back(sync);
    }
    // Expected from the session above.
    static constexpr int kFlows = 6;   // 4 kernels + memcpy + memset with a launch record
    static constexpr int kSlices = 18; // 7 API + 6 kernels + memcpy + memset + 2 push/pop + 1 sync
    static constexpr TimeNs kOrigin = 500;

    void api(
        int64_t tid, uint32_t corr, TimeNs start, TimeNs end, const char* name, ApiDomain domain = ApiDomain::Runtime)
    {
        ApiCallRecord a;
        a.id = nextId++;
        a.pid = 10;
        a.tid = tid;
        a.correlationId = corr;
        a.start = start;
        a.end = end;
        a.domain = domain;
        a.name = d.strings.intern(name);
        d.apiCalls.push_back(a);
    }
    void kernel(int64_t pid, uint32_t stream, uint32_t corr, TimeNs start, TimeNs end, const std::string& name)
    {
        KernelRecord k;
        k.id = nextId++;
        k.pid = pid;
        k.streamId = stream;
        k.correlationId = corr;
        k.start = start;
        k.end = end;
        k.demangledName = d.strings.intern(name);
        k.gridX = 4;
        k.gridY = k.gridZ = 1;
        k.blockX = 128;
        k.blockY = k.blockZ = 1;
        d.kernels.push_back(k);
    }
    void nvtx(int64_t tid, TimeNs start, TimeNs end, const char* name, NvtxStyle style, int depth)
    {
        NvtxRangeRecord r;
        r.id = nextId++;
        r.pid = 10;
        r.tid = tid;
        r.endTid = tid;
        r.start = start;
        r.end = end;
        r.name = d.strings.intern(name);
        r.style = style;
        r.depth = depth;
        d.nvtxRanges.push_back(r);
    }
};

QJsonArray chromeEvents(const RecordSource& source, ChromeTraceSummary* summary = nullptr)
{
    std::ostringstream out;
    const ChromeTraceSummary s = writeChromeTrace(source, out);
    if (summary)
        *summary = s;
    const std::string text = out.str();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << "JSON error at" << error.offset << error.errorString();
    return doc.object().value(QLatin1String("traceEvents")).toArray();
}

qint64 nanos(const QJsonValue& micros)
{
    return qRound64(micros.toDouble() * 1000.0);
}

// Splits CSV text (RFC 4180) into rows of fields.
QList<QStringList> parseCsv(const std::string& text)
{
    QList<QStringList> rows;
    QStringList row;
    QByteArray field;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row << QString::fromUtf8(field);
            field.clear();
        } else if (c == '\n') {
            row << QString::fromUtf8(field);
            field.clear();
            rows << row;
            row.clear();
        } else {
            field += c;
        }
    }
    return rows;
}

template <typename R>
std::vector<R> collect(
    void (RecordSource::*visit)(const std::function<void(const R&)>&) const, const RecordSource& source)
{
    std::vector<R> rows;
    (source.*visit)([&](const R& r) { rows.push_back(r); });
    return rows;
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void chromeEveryEventIsComplete()
    {
        const ExportSession s;
        ChromeTraceSummary summary;
        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d), &summary);
        QVERIFY(!events.isEmpty());
        QCOMPARE(events.size(), summary.events);
        for (const auto& value : events) {
            const QJsonObject e = value.toObject();
            for (const char* key : {"ph", "ts", "pid", "tid"})
                QVERIFY2(e.contains(QLatin1String(key)),
                    qPrintable(QStringLiteral("missing %1 in %2")
                                   .arg(key, QString::fromUtf8(QJsonDocument(e).toJson(QJsonDocument::Compact)))));
            QVERIFY(e.value(QLatin1String("ts")).isDouble());
            if (e.value(QLatin1String("ph")).toString() == QLatin1String("X")) {
                QVERIFY(e.value(QLatin1String("dur")).isDouble());
                QVERIFY(e.value(QLatin1String("dur")).toDouble() >= 0);
            }
        }
        QCOMPARE(summary.slices, ExportSession::kSlices);
        QCOMPARE(summary.flows, ExportSession::kFlows);
    }

    void chromeNamesSurviveEscaping()
    {
        // The kernel name with quotes, backslash, control character and a non-UTF-8 byte must
        // still give valid JSON; the bad byte becomes U+FFFD.
        const ExportSession s;
        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d));
        const QString expected = QStringLiteral("void weird<int, float>(\"quoted\" \\ name\x01)") + QChar(0xFFFD);
        bool found = false;
        for (const auto& value : events)
            found = found || value.toObject().value(QLatin1String("name")).toString() == expected;
        QVERIFY(found);
    }

    void chromeTimesAreExactMicroseconds()
    {
        const ExportSession s;
        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d));
        // The first kernel: [1200, 1300] ns, origin 500 ns -> ts 0.700 us, dur 0.100 us.
        bool found = false;
        for (const auto& value : events) {
            const QJsonObject e = value.toObject();
            if (e.value(QLatin1String("cat")).toString() != QLatin1String("kernel"))
                continue;
            if (e.value(QLatin1String("args")).toObject().value(QLatin1String("correlation")).toInt() != 1
                || e.value(QLatin1String("pid")).toInt() != 10)
                continue;
            QCOMPARE(nanos(e.value(QLatin1String("ts"))), qint64(1200 - ExportSession::kOrigin));
            QCOMPARE(nanos(e.value(QLatin1String("dur"))), qint64(100));
            found = true;
        }
        QVERIFY(found);
        std::ostringstream out;
        writeChromeTrace(MemoryRecordSource(s.d), out);
        QVERIFY(out.str().find("\"ts\":0.700,\"dur\":0.100") != std::string::npos);
        QVERIFY(out.str().find("\"time_origin_ns\":\"500\"") != std::string::npos);
    }

    void chromeFlowsPairUp()
    {
        const ExportSession s;
        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d));
        // Slices per track, to check that each flow end lies inside a slice of its track.
        QMap<QPair<qint64, qint64>, QList<QPair<qint64, qint64>>> slices;
        QMap<qint64, QJsonObject> starts, finishes;
        for (const auto& value : events) {
            const QJsonObject e = value.toObject();
            const QString ph = e.value(QLatin1String("ph")).toString();
            const auto track = qMakePair(
                qint64(e.value(QLatin1String("pid")).toInteger()), qint64(e.value(QLatin1String("tid")).toInteger()));
            if (ph == QLatin1String("X")) {
                const qint64 t = nanos(e.value(QLatin1String("ts")));
                slices[track].append({t, t + nanos(e.value(QLatin1String("dur")))});
            } else if (ph == QLatin1String("s") || ph == QLatin1String("f")) {
                const qint64 id = e.value(QLatin1String("id")).toInteger();
                auto& side = ph == QLatin1String("s") ? starts : finishes;
                QVERIFY2(!side.contains(id), "flow id used twice");
                side.insert(id, e);
                QCOMPARE(e.value(QLatin1String("cat")).toString(), QStringLiteral("flow"));
                if (ph == QLatin1String("f"))
                    QCOMPARE(e.value(QLatin1String("bp")).toString(), QStringLiteral("e"));
            }
        }
        QCOMPARE(starts.size(), ExportSession::kFlows);
        QCOMPARE(
            QSet<qint64>(starts.keyBegin(), starts.keyEnd()), QSet<qint64>(finishes.keyBegin(), finishes.keyEnd()));
        for (const QJsonObject& e : std::as_const(starts).values() + std::as_const(finishes).values()) {
            const auto track = qMakePair(
                qint64(e.value(QLatin1String("pid")).toInteger()), qint64(e.value(QLatin1String("tid")).toInteger()));
            const qint64 t = nanos(e.value(QLatin1String("ts")));
            bool inside = false;
            for (const auto& [b, en] : slices.value(track))
                inside = inside || (b <= t && t <= en);
            QVERIFY2(inside, "flow endpoint outside every slice of its track");
        }
        // The flow of the first launch must start in the runtime call [1000, 1100], not in the
        // driver call nested in it [1010, 1090]: its ts must lie before the driver call.
        bool firstLaunch = false;
        for (const QJsonObject& e : std::as_const(starts)) {
            const qint64 t = nanos(e.value(QLatin1String("ts"))) + ExportSession::kOrigin;
            if (t >= 1000 && t <= 1100) {
                QVERIFY2(t < 1010, "flow starts inside the nested driver call");
                firstLaunch = true;
            }
        }
        QVERIFY(firstLaunch);
        // The graph launch (API on tid 11 at 2000..2100) fans out to two kernels.
        int fromGraph = 0;
        for (const QJsonObject& e : std::as_const(starts)) {
            const qint64 t = nanos(e.value(QLatin1String("ts"))) + ExportSession::kOrigin;
            fromGraph += (t >= 2000 && t <= 2100) ? 1 : 0;
        }
        QCOMPARE(fromGraph, 2);
    }

    void chromeMetadataNamesEveryTrack()
    {
        const ExportSession s;
        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d));
        QMap<qint64, QString> processNames;
        QMap<QPair<qint64, qint64>, QString> threadNames;
        QSet<QPair<qint64, qint64>> used;
        for (const auto& value : events) {
            const QJsonObject e = value.toObject();
            const qint64 pid = e.value(QLatin1String("pid")).toInteger();
            const qint64 tid = e.value(QLatin1String("tid")).toInteger();
            const QString ph = e.value(QLatin1String("ph")).toString();
            const QString name = e.value(QLatin1String("name")).toString();
            if (ph == QLatin1String("M")) {
                const QString label = e.value(QLatin1String("args")).toObject().value(QLatin1String("name")).toString();
                if (name == QLatin1String("process_name"))
                    processNames.insert(pid, label);
                else if (name == QLatin1String("thread_name"))
                    threadNames.insert({pid, tid}, label);
                continue;
            }
            used.insert({pid, tid});
        }
        for (const auto& track : std::as_const(used)) {
            QVERIFY(processNames.contains(track.first));
            QVERIFY(threadNames.contains(track));
        }
        QCOMPARE(processNames.value(10), QStringLiteral("train (10)"));
        QCOMPARE(processNames.value(20), QStringLiteral("Process (20)")); // not in the process table
        QCOMPARE(threadNames.value({10, 11}), QStringLiteral("main (11)"));
        QCOMPARE(threadNames.value({10, 12}), QStringLiteral("Thread 12"));
        const QStringList names = threadNames.values();
        QVERIFY(names.contains(QStringLiteral("NVTX main (11)")));
        QVERIFY(names.contains(QStringLiteral("GPU 0 stream 7 (compute)")));
        QVERIFY(names.contains(QStringLiteral("GPU 0 stream 8")));
    }

    void chromeSlicesNestOnEveryTrack()
    {
        // Perfetto needs the X events of one track to nest (no partial overlap).
        const ExportSession s;
        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d));
        QMap<QPair<qint64, qint64>, QList<QPair<qint64, qint64>>> tracks;
        for (const auto& value : events) {
            const QJsonObject e = value.toObject();
            if (e.value(QLatin1String("ph")).toString() != QLatin1String("X"))
                continue;
            const qint64 t = nanos(e.value(QLatin1String("ts")));
            tracks[{e.value(QLatin1String("pid")).toInteger(), e.value(QLatin1String("tid")).toInteger()}].append(
                {t, t + nanos(e.value(QLatin1String("dur")))});
        }
        for (auto slices : std::as_const(tracks)) {
            std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
                return a.first != b.first ? a.first < b.first : a.second > b.second;
            });
            QList<qint64> stack; // ends of the open slices
            for (const auto& [b, e] : slices) {
                while (!stack.isEmpty() && stack.last() <= b)
                    stack.removeLast();
                QVERIFY2(stack.isEmpty() || e <= stack.last(), "partially overlapping slices on one track");
                stack.append(e);
            }
        }
    }

    void chromeStartEndRangesAreAsyncPairs()
    {
        const ExportSession s;
        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d));
        int begins = 0, ends = 0, marks = 0;
        for (const auto& value : events) {
            const QJsonObject e = value.toObject();
            const QString ph = e.value(QLatin1String("ph")).toString();
            if (ph == QLatin1String("b") || ph == QLatin1String("e")) {
                QCOMPARE(e.value(QLatin1String("name")).toString(), QStringLiteral("async"));
                QVERIFY(e.contains(QLatin1String("id")));
                (ph == QLatin1String("b") ? begins : ends)++;
                QCOMPARE(nanos(e.value(QLatin1String("ts"))) + ExportSession::kOrigin,
                    qint64(ph == QLatin1String("b") ? 1500 : 6500));
            } else if (ph == QLatin1String("i")) {
                QCOMPARE(e.value(QLatin1String("name")).toString(), QStringLiteral("checkpoint"));
                ++marks;
            }
        }
        QCOMPARE(begins, 1);
        QCOMPARE(ends, 1);
        QCOMPARE(marks, 1);
    }

    // PM-sampling counters become Perfetto counter events ("ph":"C") named with their GPU and
    // unit; synchronisation waits are slices on a "Sync" track of their thread. The same from a
    // session file as from memory.
    void chromeCountersAndSyncs()
    {
        ExportSession s;
        CounterTrack track;
        track.id = 3;
        track.pid = 10;
        track.deviceId = 0;
        track.name = "DRAM throughput";
        track.unit = "%";
        s.d.counterTracks.push_back(track);
        s.d.counterSamples = {{3, 1000, 12.5}, {3, 3000, 87.25}, {3, 5000, std::nan("")}, {99, 6000, 1.0}};
        SyncRecord sync;
        sync.id = 1000; // after the session's own rows: a file visits rows in id order
        sync.pid = 10;
        sync.tid = 11;
        sync.start = 2000;
        sync.end = 4500;
        sync.kind = SyncKind::StreamSynchronize;
        sync.streamId = 7;
        s.d.syncs.push_back(sync);

        const QJsonArray events = chromeEvents(MemoryRecordSource(s.d));
        QList<QJsonObject> counters;
        QJsonObject syncSlice;
        QMap<qint64, QString> threadNames;
        for (const auto& value : events) {
            const QJsonObject e = value.toObject();
            const QString ph = e.value(QLatin1String("ph")).toString();
            if (ph == QLatin1String("C"))
                counters << e;
            if (ph == QLatin1String("X") && e.value(QLatin1String("cat")).toString() == QLatin1String("sync"))
                syncSlice = e;
            if (ph == QLatin1String("M") && e.value(QLatin1String("name")).toString() == QLatin1String("thread_name"))
                threadNames.insert(e.value(QLatin1String("tid")).toInteger(),
                    e.value(QLatin1String("args")).toObject().value(QLatin1String("name")).toString());
        }
        QCOMPARE(counters.size(), 3); // the sample of an unknown track is dropped
        QCOMPARE(counters[0].value(QLatin1String("name")).toString(), QStringLiteral("GPU 0 DRAM throughput (%)"));
        QCOMPARE(counters[0].value(QLatin1String("pid")).toInteger(), qint64(10));
        QCOMPARE(counters[1].value(QLatin1String("args")).toObject().value(QLatin1String("value")).toDouble(), 87.25);
        QVERIFY(counters[2].value(QLatin1String("args")).toObject().value(QLatin1String("value")).isNull());
        QVERIFY(!syncSlice.isEmpty());
        QCOMPARE(syncSlice.value(QLatin1String("name")).toString(), QStringLiteral("cudaStreamSynchronize"));
        QCOMPARE(nanos(syncSlice.value(QLatin1String("dur"))), qint64(2500));
        QCOMPARE(
            threadNames.value(syncSlice.value(QLatin1String("tid")).toInteger()), QStringLiteral("Sync main (11)"));

        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("counters.wscope")).toStdString();
        SessionData stored = s.d;
        stored.counterSamples.pop_back();          // the store keeps samples of known tracks only
        stored.counterSamples.back().value = 42.0; // and SQLite stores NaN as NULL
        {
            SessionWriter writer(path);
            attachLaneCache(writer);
            writer.write(stored);
            writer.commit();
        }
        const SessionReader reader(path);
        const SessionFileSource file(reader);
        QVERIFY(file.header().counterTracks == stored.counterTracks);
        const auto samples = collect(&RecordSource::forEachCounterSample, file);
        QCOMPARE(samples.size(), size_t(3));
        QCOMPARE(samples[1].value, 87.25);
        std::ostringstream fromFile, fromMemory;
        writeChromeTrace(file, fromFile);
        writeChromeTrace(MemoryRecordSource(stored), fromMemory);
        QCOMPARE(fromFile.str(), fromMemory.str());
    }

    void chromeEmptySession()
    {
        const SessionData empty;
        std::ostringstream out;
        const ChromeTraceSummary summary = writeChromeTrace(MemoryRecordSource(empty), out);
        QCOMPARE(summary.events, 0);
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()));
        QVERIFY(doc.isObject());
        QVERIFY(doc.object().value(QLatin1String("traceEvents")).toArray().isEmpty());
    }

    // CSV numbers: the shortest text that reads back as the same double (issue 24 item 11).
    void shortestNumberText_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("float noise") << 0.25769599999999998 << "0.257696";
        QTest::newRow("tenth") << 0.1 << "0.1";
        QTest::newRow("integral") << 1048576.0 << "1048576";
        QTest::newRow("negative") << -2.5 << "-2.5";
        QTest::newRow("negative zero") << -0.0 << "0";
        QTest::newRow("tiny") << 1.25e-7 << "1.25e-07";
        QTest::newRow("huge") << 3.0e20 << "3e+20";
        QTest::newRow("third") << 1.0 / 3.0 << "0.3333333333333333";
        QTest::newRow("nan") << std::nan("") << "nan";
        QTest::newRow("inf") << HUGE_VAL << "inf";
    }
    void shortestNumberText()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        const std::string got = shortestText(value);
        QCOMPARE(QString::fromStdString(got), text);
        if (std::isfinite(value))
            QCOMPARE(std::strtod(got.c_str(), nullptr), value == 0.0 ? 0.0 : value); // reads back exactly
    }

    void csvKernelTable()
    {
        const ExportSession s;
        std::ostringstream out;
        const int64_t rows = writeCsvTable(MemoryRecordSource(s.d), "kernel", out);
        QCOMPARE(rows, int64_t(s.d.kernels.size()));
        const QList<QStringList> csv = parseCsv(out.str());
        QCOMPARE(csv.size(), int(s.d.kernels.size()) + 1);
        const QStringList header = csv.first();
        QCOMPARE(header.first(), QStringLiteral("id"));
        const int nameColumn = int(header.indexOf(QStringLiteral("demangled_name")));
        const int startColumn = int(header.indexOf(QStringLiteral("start")));
        QVERIFY(nameColumn > 0 && startColumn > 0);
        for (int r = 1; r < csv.size(); ++r)
            QCOMPARE(csv[r].size(), header.size());
        // Commas and quotes inside the name survive quoting; the string id became text.
        QCOMPARE(csv[1][nameColumn], QString::fromUtf8(kNastyName)); // same U+FFFD for the bad byte
        QCOMPARE(csv[1][startColumn], QStringLiteral("1200"));
    }

    void csvEveryTableHasHeaderAndRows()
    {
        const ExportSession s;
        const MemoryRecordSource source(s.d);
        const QMap<QString, int> expectedRows = {
            {"meta", 1},
            {"environment", 1},
            {"process", 1},
            {"thread", 2},
            {"device", 1},
            {"stream", 2},
            {"kernel", 6},
            {"memcpy", 1},
            {"memset", 1},
            {"api_call", 7},
            {"nvtx_range", 3},
            {"nvtx_mark", 1},
            {"sync", 1},
        };
        QCOMPARE(int(csvTableNames().size()), expectedRows.size());
        for (const auto name : csvTableNames()) {
            std::ostringstream out;
            const int64_t rows = writeCsvTable(source, name, out);
            const QString table = QString::fromLatin1(name.data(), qsizetype(name.size()));
            QCOMPARE(rows, int64_t(expectedRows.value(table, -1)));
            const QList<QStringList> csv = parseCsv(out.str());
            QCOMPARE(csv.size(), int(rows) + 1);
        }
        std::ostringstream out;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writeCsvTable(source, "no_such_table", out));
    }

    void fileSourceStreamsWhatWasWritten()
    {
        // Write with the store, read back through the streaming source: same rows, same
        // reports, byte-identical exports.
        const ExportSession s;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("export.wscope")).toStdString();
        {
            SessionWriter writer(path);
            attachLaneCache(writer);
            writer.write(s.d);
            writer.commit();
        }
        const SessionReader reader(path);
        const SessionFileSource file(reader);
        const MemoryRecordSource memory(s.d);

        QVERIFY(collect(&RecordSource::forEachKernel, file) == s.d.kernels);
        QVERIFY(collect(&RecordSource::forEachMemcpy, file) == s.d.memcpys);
        QVERIFY(collect(&RecordSource::forEachMemset, file) == s.d.memsets);
        QVERIFY(collect(&RecordSource::forEachApiCall, file) == s.d.apiCalls);
        QVERIFY(collect(&RecordSource::forEachNvtxRange, file) == s.d.nvtxRanges);
        QVERIFY(collect(&RecordSource::forEachNvtxMark, file) == s.d.nvtxMarks);
        QVERIFY(collect(&RecordSource::forEachSync, file) == s.d.syncs);
        QVERIFY(file.header().processes == s.d.processes);
        QVERIFY(file.header().threads == s.d.threads);
        QVERIFY(file.header().devices == s.d.devices);
        QVERIFY(file.header().streams == s.d.streams);
        QCOMPARE(file.header().environment.at("host"), std::string("testhost"));
        QCOMPARE(file.header().meta.at("title"), std::string("export test"));

        const TimeSpan a = file.timeSpan();
        const TimeSpan b = memory.timeSpan();
        QVERIFY(a.valid && b.valid);
        QCOMPARE(a.begin, b.begin);
        QCOMPARE(a.end, b.end);

        for (const auto& info : availableReports()) {
            std::ostringstream fromFile, fromMemory;
            writeReportCsv(fromFile, computeReport(info.id, file));
            writeReportCsv(fromMemory, computeReport(info.id, memory));
            QCOMPARE(fromFile.str(), fromMemory.str());
        }
        std::ostringstream chromeFile, chromeMemory;
        writeChromeTrace(file, chromeFile);
        writeChromeTrace(memory, chromeMemory);
        QCOMPARE(chromeFile.str(), chromeMemory.str());
    }

    void outputFileIsAtomic()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("out.json")).toStdString();
        {
            OutputFile out(path);
            out.stream() << "partial";
            // Not committed: nothing may appear under the final name, and no temp file remains.
        }
        QVERIFY(!QFileInfo::exists(QString::fromStdString(path)));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
        {
            OutputFile out(path);
            out.stream() << "complete";
            out.commit();
        }
        std::ifstream in(path);
        std::string content;
        std::getline(in, content);
        QCOMPARE(content, std::string("complete"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    void outputFileErrorsNameThePath()
    {
        QTemporaryDir dir;
        const std::string missingDir = dir.filePath(QStringLiteral("no/such/dir/out.json")).toStdString();
        try {
            OutputFile out(missingDir);
            QFAIL("opening a file in a missing directory must throw");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).starts_with(missingDir + ": "));
        }
        try {
            OutputFile out(dir.path().toStdString());
            QFAIL("a directory is not an output file");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("is a directory") != std::string::npos);
        }
        const std::string session = dir.filePath(QStringLiteral("s.wscope")).toStdString();
        std::ofstream(session) << "x";
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, OutputFile::ensureNotSameFile(session, session));
        OutputFile::ensureNotSameFile(dir.filePath(QStringLiteral("other")).toStdString(), session);
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"

// SPDX-License-Identifier: MIT
// The recorder's CUPTI conversion without a GPU (issue 19 item 3). Activity buffers CUPTI
// completed on the H200, captured with WS_CUPTI_CAPTURE (tests/fixtures/cupti/README.md), are
// replayed through ActivityConverter, the class the recorder converts with, and ingested: the
// kernels, copies, memsets and API calls must equal the rows of the session the same run
// recorded. A hand-built capture checks the conversion field by field and every way a capture
// is refused. The test links CUPTI's headers only, no libcupti.
#include "collectors/inject/activityreplay.h"
#include "collectors/inject/rawwriter.h"

#include "core/ingest/rawingest.h"
#include "core/raw/rawreader.h"
#include "core/store/sessionreader.h"

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cstring>
#include <fstream>

using namespace ws;
using ws::inject::RawWriter;
using ws::inject::cupti::CapturedActivity;

namespace {

QString fixtures()
{
    return QStringLiteral(WS_FIXTURES_DIR "/cupti");
}

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replays `capture` into a raw file whose header (pid, anchors) is `header`'s, so ingest sees the
// process the capture came from, and ingests it.
SessionData replayAndIngest(const CapturedActivity& capture, const raw::FileHeader& header, uint64_t& frames)
{
    QTemporaryDir dir;
    RawWriter writer;
    if (!writer.open(dir.path().toStdString()))
        throw std::runtime_error("cannot open a raw file in " + dir.path().toStdString());
    frames = capture.replay(writer);
    writer.writeOut();
    writer.close(0);
    std::string bytes = readBytes(writer.path());
    std::memcpy(bytes.data(), &header, sizeof(header));
    RawIngest ingest;
    ingest.addFile(raw::RawFile::fromBytes(std::move(bytes), "replay.raw"));
    return ingest.finish();
}

// The frames the converter writes (ThreadName aside: it names threads the converter meets).
bool fromActivity(raw::RecordType t)
{
    using T = raw::RecordType;
    return t == T::Kernel || t == T::Memcpy || t == T::Memset || t == T::Api || t == T::Sync || t == T::Overhead;
}

std::string frameBytes(const raw::RawFrame& f)
{
    raw::FrameHeader h {};
    h.size = static_cast<uint32_t>(f.payload.size());
    h.type = static_cast<uint16_t>(f.type);
    return std::string(reinterpret_cast<const char*>(&h), sizeof(h)) + std::string(f.payload);
}

// The live raw file with its activity frames replaced by the replay's: the live file's strings
// are interned first, in their order, so the replay's frames name strings by the same ids and
// the live file's other frames (process, devices, NVTX, stream map, ...), which follow, keep
// theirs; the replay comes last. The frames the replay wrote are returned in `replayed`.
raw::RawFile liveWithReplayedActivity(
    const raw::RawFile& live, const CapturedActivity& capture, std::vector<std::string>& replayed)
{
    QTemporaryDir dir;
    RawWriter writer;
    if (!writer.open(dir.path().toStdString()))
        throw std::runtime_error("cannot open a raw file in " + dir.path().toStdString());
    std::string others;
    uint64_t otherCount = 0;
    for (const auto& f : live.frames()) {
        if (f.type == raw::RecordType::String) {
            const auto def = raw::readPayload<raw::StringDef>(f.payload);
            if (writer.intern(raw::trailingBytes<raw::StringDef>(f.payload)) != def.id)
                throw std::runtime_error("the live file's string table is not in first-use order");
        } else if (!fromActivity(f.type) && f.type != raw::RecordType::End) {
            others += frameBytes(f);
            ++otherCount;
        }
    }
    writer.addPrepared(others, otherCount);
    writer.writeOut();
    const size_t before = readBytes(writer.path()).size();
    capture.replay(writer);
    writer.writeOut();
    const std::string replayBytes = readBytes(writer.path()).substr(before);
    const raw::RawFile r = raw::RawFile::fromBytes(
        std::string(reinterpret_cast<const char*>(&live.header()), sizeof(raw::FileHeader)) + replayBytes,
        "replayed.raw");
    replayed.clear();
    for (const auto& f : r.frames())
        replayed.push_back(frameBytes(f));
    writer.close(0);
    std::string bytes = readBytes(writer.path());
    std::memcpy(bytes.data(), &live.header(), sizeof(raw::FileHeader));
    return raw::RawFile::fromBytes(std::move(bytes), "live-with-replay.raw");
}

// Rows of one kind with their string ids taken out and their texts beside them, so rows of two
// files (different string tables) compare with ==.
template <class R>
std::vector<std::pair<R, std::vector<std::string>>> named(const std::vector<R>& rows, const StringTable& strings)
{
    std::vector<std::pair<R, std::vector<std::string>>> out;
    for (R r : rows) {
        std::vector<std::string> texts;
        if constexpr (std::is_same_v<R, KernelRecord>) {
            texts = {strings.at(r.mangledName), strings.at(r.demangledName), strings.at(r.shortName)};
            r.mangledName = r.demangledName = r.shortName = 0;
        } else if constexpr (std::is_same_v<R, ApiCallRecord>) {
            texts = {strings.at(r.name)};
            r.name = 0;
        } else if constexpr (std::is_same_v<R, OverheadRecord>) {
            texts = {strings.at(r.kind)};
            r.kind = 0;
        }
        out.emplace_back(r, texts);
    }
    return out;
}

template <class R> QString describe(const R& r)
{
    QString d = QStringLiteral("id %1 corr %2 start %3 end %4")
                    .arg(r.id)
                    .arg(r.correlationId)
                    .arg(static_cast<qlonglong>(r.start))
                    .arg(static_cast<qlonglong>(r.end));
    if constexpr (requires { r.streamId; })
        d += QStringLiteral(" stream %1").arg(r.streamId);
    return d;
}

// meta stream_id_map of a session ("pid P ctx C: 7->7, pid P ctx C: 13->14"): CUPTI's stream ids
// -> the program's, keyed by (pid, context, CUPTI id).
using StreamMap = std::map<std::tuple<int64_t, uint32_t, uint32_t>, uint32_t>;
StreamMap parseStreamMap(const std::string& text)
{
    StreamMap m;
    for (const QString& entry : QString::fromStdString(text).split(QStringLiteral(", "), Qt::SkipEmptyParts)) {
        const QStringList w = entry.split(QRegularExpression(QStringLiteral("[ :>-]+")), Qt::SkipEmptyParts);
        if (w.size() == 6 && w[0] == "pid" && w[2] == "ctx")
            m[{w[1].toLongLong(), w[3].toUInt(), w[4].toUInt()}] = w[5].toUInt();
    }
    return m;
}

// Where this ingest keeps CUPTI's stream ids and the session's ingest stored the program's
// (meta stream_id_map, from the recorder's StreamMap records), the replayed id is mapped as that
// ingest mapped it; where both map, the ids are equal already and the map changes nothing.
template <class R> void mapStreams(R& r, const StreamMap& map, const R& recorded)
{
    if constexpr (requires { r.streamId; }) {
        const auto it = map.find({r.pid, r.contextId, r.streamId});
        if (r.streamId != recorded.streamId && it != map.end())
            r.streamId = it->second;
    }
}

// The same rows in the same order, naming the first that differs.
template <class R>
void compareRows(const char* what, const std::vector<R>& replayed, const StringTable& replayStrings,
    const std::vector<R>& recorded, const StringTable& recordedStrings, const StreamMap& streams)
{
    auto a = named(replayed, replayStrings);
    const auto b = named(recorded, recordedStrings);
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        mapStreams(a[i].first, streams, b[i].first);
    QVERIFY2(a.size() == b.size(),
        qPrintable(QStringLiteral("%1: %2 replayed, %3 in the session").arg(what).arg(a.size()).arg(b.size())));
    for (size_t i = 0; i < a.size(); ++i) {
        QVERIFY2(a[i].first == b[i].first,
            qPrintable(QStringLiteral("%1 row %2 differs: replayed %3, session %4")
                           .arg(what)
                           .arg(i)
                           .arg(describe(a[i].first), describe(b[i].first))));
        QVERIFY2(a[i].second == b[i].second,
            qPrintable(QStringLiteral("%1 row %2: names differ (%3 vs %4)")
                           .arg(what)
                           .arg(i)
                           .arg(QString::fromStdString(a[i].second.empty() ? "" : a[i].second[0]),
                               QString::fromStdString(b[i].second.empty() ? "" : b[i].second[0]))));
    }
}

// --- a hand-built capture -----------------------------------------------------------------------

struct Built {
    std::vector<uint8_t> buffer;
    std::vector<std::pair<uint32_t, uint32_t>> records;
    template <class T> T& add(CUpti_ActivityKind kind)
    {
        const size_t at = buffer.size();
        buffer.resize(at + (sizeof(T) + 7) / 8 * 8, 0);
        auto* t = reinterpret_cast<T*>(buffer.data() + at);
        t->kind = kind;
        records.emplace_back(static_cast<uint32_t>(at), static_cast<uint32_t>(kind));
        return *t;
    }
};

void writeCapture(const QString& dir, const Built& b, const QStringList& extraLines = {},
    const QString& structOverride = {}, size_t declaredSize = 0)
{
    QDir().mkpath(dir);
    QFile m(dir + "/manifest.tsv");
    QVERIFY(m.open(QIODevice::WriteOnly));
    QStringList lines {"# hand-built", "format\t1", "pid\t4242", "cupti_version\t130000"};
    for (const auto& r : ws::inject::cupti::kRecordVersions)
        lines << QStringLiteral("struct\t%1\t%2\t%3\t%4")
                     .arg(QLatin1String(r.kindName))
                     .arg(static_cast<int>(r.kind))
                     .arg(QLatin1String(r.structName))
                     .arg(r.structSize);
    if (!structOverride.isEmpty())
        lines << structOverride;
    lines << extraLines;
    QStringList recs;
    for (const auto& [offset, kind] : b.records)
        recs << QStringLiteral("%1:%2").arg(offset).arg(kind);
    lines << QStringLiteral("buffer\t0\t%1\tbuffer-0000.bin\t%2")
                 .arg(declaredSize ? declaredSize : b.buffer.size())
                 .arg(b.records.size());
    lines << QStringLiteral("records\t0\t") + recs.join(' ');
    m.write((lines.join('\n') + '\n').toUtf8());
    QFile bin(dir + "/buffer-0000.bin");
    QVERIFY(bin.open(QIODevice::WriteOnly));
    bin.write(reinterpret_cast<const char*>(b.buffer.data()), static_cast<qint64>(b.buffer.size()));
}

constexpr uintptr_t kNamePtr = 0x7f00deadbee0;

Built sampleBuffer()
{
    Built b;
    auto& k = b.add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.start = 1000;
    k.end = 1900;
    k.queued = CUPTI_TIMESTAMP_UNKNOWN;
    k.submitted = 990;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = 7;
    k.correlationId = 11;
    k.gridX = 64;
    k.gridY = 2;
    k.gridZ = 1;
    k.blockX = 256;
    k.blockY = 1;
    k.blockZ = 1;
    k.clusterX = 2;
    k.clusterY = 1;
    k.clusterZ = 1;
    k.registersPerThread = 40;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 4096;
    k.localMemoryPerThread = 8;
    k.name = reinterpret_cast<const char*>(kNamePtr);
    auto& a = b.add<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    a.cbid = 211;
    a.start = 900;
    a.end = 950;
    a.threadId = 555;
    a.correlationId = 11;
    auto& c = b.add<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    c.start = 2000;
    c.end = 2600;
    c.bytes = 1 << 20;
    c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    c.streamId = 7;
    c.contextId = 1;
    c.correlationId = 12;
    return b;
}

const QStringList kSampleNames {
    QStringLiteral("string\t%1\t_Z4gemmPfS_i").arg(kNamePtr, 0, 16),
    QStringLiteral("api\truntime\t211\tcudaLaunchKernel_v7000"),
    QStringLiteral("thread\t555\tmain\\tthread"),
};

} // namespace

class TestCuptiReplay : public QObject {
    Q_OBJECT

private slots:
    // Every field the converter copies, through the same RawWriter and ingest as a recording.
    void handBuiltBufferConverts()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.path() + "/ws-4242.cupti";
        writeCapture(dir, sampleBuffer(), kSampleNames);
        const auto capture = CapturedActivity::read(dir.toStdString());
        QCOMPARE(capture.buffers().size(), size_t(1));
        QCOMPARE(capture.pid(), int64_t(4242));
        raw::FileHeader header {};
        std::memcpy(header.magic, raw::kMagic, sizeof(header.magic));
        header.version = raw::kFormatVersion;
        header.headerSize = sizeof(raw::FileHeader);
        header.pid = 4242;
        uint64_t frames = 0;
        const SessionData s = replayAndIngest(capture, header, frames);
        QCOMPARE(frames, uint64_t(3));
        QCOMPARE(s.kernels.size(), size_t(1));
        const KernelRecord& k = s.kernels[0];
        QCOMPARE(s.strings.at(k.mangledName), std::string("_Z4gemmPfS_i"));
        QCOMPARE(k.pid, int64_t(4242));
        QCOMPARE(k.start, TimeNs(1000));
        QCOMPARE(k.end, TimeNs(1900));
        QCOMPARE(k.queued, TimeNs(0)); // CUPTI_TIMESTAMP_UNKNOWN
        QCOMPARE(k.submitted, TimeNs(990));
        QCOMPARE(k.streamId, 7u);
        QCOMPARE(k.correlationId, 11u);
        QCOMPARE(k.gridX, 64);
        QCOMPARE(k.gridY, 2);
        QCOMPARE(k.blockX, 256);
        QCOMPARE(k.clusterX, 2);
        QCOMPARE(k.registersPerThread, 40);
        QCOMPARE(k.staticSmemBytes, 1024);
        QCOMPARE(k.dynamicSmemBytes, 4096);
        QCOMPARE(k.localMemPerThread, 8);
        QCOMPARE(s.apiCalls.size(), size_t(1));
        QCOMPARE(s.strings.at(s.apiCalls[0].name), std::string("cudaLaunchKernel_v7000"));
        QCOMPARE(s.apiCalls[0].tid, int64_t(555));
        QCOMPARE(s.apiCalls[0].cbid, 211);
        QCOMPARE(s.memcpys.size(), size_t(1));
        QCOMPARE(s.memcpys[0].bytes, int64_t(1) << 20);
        QCOMPARE(s.memcpys[0].copyKind, CopyKind::HtoD);
        bool threadNamed = false;
        for (const auto& t : s.threads)
            threadNamed |= t.tid == 555 && t.name == "main\tthread";
        QVERIFY2(threadNamed, "the thread name (escaped tab) did not come through");
    }

    void refusedCaptures_data()
    {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("expected");
        QTest::newRow("other struct version") << "struct"
                                              << "this build reads";
        QTest::newRow("buffer file short") << "short"
                                           << "shorter than its valid size";
        QTest::newRow("record outside the buffer") << "outside"
                                                   << "lies outside";
        QTest::newRow("kind differs from the bytes") << "kind"
                                                     << "in the manifest";
        QTest::newRow("kernel name missing") << "name"
                                             << "no text for the string";
        QTest::newRow("newer format") << "format"
                                      << "capture format 2";
    }

    // A capture that cannot be replayed faithfully is refused with the reason, never converted
    // into something else.
    void refusedCaptures()
    {
        QFETCH(QString, problem);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const QString dir = tmp.path() + "/c";
        Built b = sampleBuffer();
        QStringList names = kSampleNames;
        QString override;
        size_t declared = 0;
        if (problem == "struct") {
            override = QStringLiteral("struct\tCONCURRENT_KERNEL\t%1\tCUpti_ActivityKernel9\t%2")
                           .arg(static_cast<int>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
                           .arg(sizeof(CUpti_ActivityKernel9));
        } else if (problem == "short") {
            declared = b.buffer.size() + 8;
        } else if (problem == "outside") {
            b.records.back().first = static_cast<uint32_t>(b.buffer.size() - 8);
        } else if (problem == "kind") {
            b.records[1].second = CUPTI_ACTIVITY_KIND_DRIVER;
        } else if (problem == "name") {
            names.removeFirst();
        } else if (problem == "format") {
            names << "format\t2";
        }
        writeCapture(dir, b, names, override, declared);
        QString message;
        try {
            const auto capture = CapturedActivity::read(dir.toStdString());
            RawWriter writer;
            QVERIFY(writer.open(tmp.path().toStdString()));
            capture.replay(writer);
        } catch (const std::exception& e) {
            message = QString::fromUtf8(e.what());
        }
        QVERIFY2(message.contains(expected), qPrintable("got: '" + message + "'"));
    }

    void recordedRunMatches_data()
    {
        QTest::addColumn<QString>("caseDir");
        const QStringList cases = QDir(fixtures()).entryList({"*"}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString& c : cases) {
            if (QDir(fixtures() + "/" + c + "/trace").exists())
                QTest::newRow(qPrintable(c)) << fixtures() + "/" + c + "/trace";
        }
        // The fixtures are committed: none found is a broken checkout, not a pass.
        if (cases.isEmpty())
            QTest::newRow("missing") << QString();
    }

    // The H200's buffers replayed here give exactly the frames the recorder wrote from them, and
    // with the raw file's other records, the session the same run recorded.
    void recordedRunMatches()
    {
        QFETCH(QString, caseDir);
        QVERIFY2(!caseDir.isEmpty(), "no fixtures under tests/fixtures/cupti");
        const QStringList captures = QDir(caseDir + "/capture").entryList({"ws-*.cupti"}, QDir::Dirs);
        QCOMPARE(captures.size(), 1); // one traced process
        const auto capture = CapturedActivity::read((caseDir + "/capture/" + captures[0]).toStdString());
        const auto counts = capture.recordCounts();
        QVERIFY2(counts.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) && counts.count(CUPTI_ACTIVITY_KIND_RUNTIME),
            "the capture holds no kernel or runtime API records");
        const QString rawPath = caseDir + QStringLiteral("/ws-%1.raw").arg(capture.pid());
        QVERIFY2(QFile::exists(rawPath), qPrintable(rawPath + " (the raw file of the same run) is missing"));
        const raw::RawFile live = raw::RawFile::load(rawPath.toStdString());

        // Frame for frame: the converter's output here equals what it wrote in the traced process.
        std::vector<std::string> replayed;
        raw::RawFile merged = liveWithReplayedActivity(live, capture, replayed);
        std::vector<std::string> liveActivity, replayedActivity;
        for (const auto& f : live.frames())
            if (fromActivity(f.type))
                liveActivity.push_back(frameBytes(f));
        for (const auto& f : replayed) {
            raw::FrameHeader h {};
            std::memcpy(&h, f.data(), sizeof(h));
            if (fromActivity(static_cast<raw::RecordType>(h.type)))
                replayedActivity.push_back(f);
        }
        QCOMPARE(replayedActivity.size(), liveActivity.size());
        for (size_t i = 0; i < liveActivity.size(); ++i)
            QVERIFY2(replayedActivity[i] == liveActivity[i], qPrintable(QStringLiteral("frame %1 differs").arg(i)));

        // Row for row against the session of the same run.
        RawIngest ingest;
        ingest.addFile(std::move(merged));
        const SessionData s = ingest.finish();
        SessionReader reader((caseDir + "/trace.wscope").toStdString());
        const StringTable strings = reader.readStrings();
        const auto kernels = reader.readTable<KernelRecord>();
        QVERIFY(!kernels.empty());
        const auto meta = reader.meta();
        const StreamMap streams = parseStreamMap(meta.count("stream_id_map") ? meta.at("stream_id_map") : "");
        compareRows("kernel", s.kernels, s.strings, kernels, strings, streams);
        QVERIFY(!QTest::currentTestFailed());
        compareRows("memcpy", s.memcpys, s.strings, reader.readTable<MemcpyRecord>(), strings, streams);
        QVERIFY(!QTest::currentTestFailed());
        compareRows("memset", s.memsets, s.strings, reader.readTable<MemsetRecord>(), strings, streams);
        QVERIFY(!QTest::currentTestFailed());
        compareRows("api", s.apiCalls, s.strings, reader.readTable<ApiCallRecord>(), strings, streams);
        QVERIFY(!QTest::currentTestFailed());
        compareRows("sync", s.syncs, s.strings, reader.readTable<SyncRecord>(), strings, streams);
    }
};

QTEST_GUILESS_MAIN(TestCuptiReplay)
#include "tst_cupti_replay.moc"

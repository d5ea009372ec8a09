// SPDX-License-Identifier: MIT
// The raw record format (core/raw): frames written with appendFrame read back by RawFile, a
// truncated last frame tolerated at every cut point, bad files refused with the file named,
// and the raw files recorded on the H200 (tests/fixtures/recorder/raw) all readable.
#include "core/raw/rawreader.h"

#include <QtTest>

#include <fstream>
#include <string>

using namespace ws;

namespace {

std::string header(int64_t pid)
{
    raw::FileHeader h {};
    std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(h);
    h.pid = pid;
    h.parentPid = 1;
    h.anchorRealtimeNs = 1'700'000'000'000'000'000;
    h.anchorMonotonicNs = 5'000'000'000;
    return std::string(reinterpret_cast<const char*>(&h), sizeof(h));
}

// A file with a string, a kernel and an API record.
std::string sampleFile()
{
    std::string f = header(42);
    raw::StringDef def {1, 0};
    raw::appendFrame(f, raw::RecordType::String, def, std::string_view("my_kernel"));
    raw::KernelRecord k {};
    k.start = 100;
    k.end = 250;
    k.correlationId = 7;
    k.name = 1;
    k.grid[0] = 128;
    raw::appendFrame(f, raw::RecordType::Kernel, k);
    raw::ApiRecord a {};
    a.start = 90;
    a.end = 95;
    a.tid = 42;
    a.correlationId = 7;
    raw::appendFrame(f, raw::RecordType::Api, a);
    return f;
}

std::string fixtureDir()
{
    return std::string(WS_FIXTURES_DIR) + "/recorder/raw";
}

} // namespace

class TestRaw : public QObject {
    Q_OBJECT

private slots:
    void roundTrip()
    {
        const raw::RawFile f = raw::RawFile::fromBytes(sampleFile(), "sample.raw");
        QCOMPARE(f.header().pid, int64_t(42));
        QCOMPARE(f.header().anchorMonotonicNs, int64_t(5'000'000'000));
        QCOMPARE(f.truncatedBytes(), size_t(0));
        QCOMPARE(f.frames().size(), size_t(3));
        QCOMPARE(f.frames()[0].type, raw::RecordType::String);
        QCOMPARE(std::string(raw::trailingBytes<raw::StringDef>(f.frames()[0].payload)), std::string("my_kernel"));
        const auto k = raw::readPayload<raw::KernelRecord>(f.frames()[1].payload);
        QCOMPARE(k.start, int64_t(100));
        QCOMPARE(k.end, int64_t(250));
        QCOMPARE(k.grid[0], 128);
        QCOMPARE(raw::readPayload<raw::ApiRecord>(f.frames()[2].payload).correlationId, 7u);
    }

    void shorterPayloadIsZeroFilled()
    {
        // A record written by an older, shorter struct: the missing fields read as zero.
        const std::string_view half("\x05\x00\x00\x00\x00\x00\x00\x00", 8);
        const auto k = raw::readPayload<raw::KernelRecord>(half);
        QCOMPARE(k.start, int64_t(5));
        QCOMPARE(k.end, int64_t(0));
        QCOMPARE(k.correlationId, 0u);
    }

    void truncatedLastFrame_data()
    {
        QTest::addColumn<int>("cut");
        QTest::addColumn<int>("framesLeft");
        const int apiFrame = int(sizeof(raw::FrameHeader) + sizeof(raw::ApiRecord));
        QTest::newRow("one byte of the API record") << 1 << 2;
        QTest::newRow("the API record's payload but its header") << apiFrame - int(sizeof(raw::FrameHeader)) << 2;
        QTest::newRow("inside the API frame header") << apiFrame - 3 << 2;
        QTest::newRow("the whole API frame") << apiFrame << 2;
        QTest::newRow("into the kernel frame") << apiFrame + 10 << 1;
    }
    void truncatedLastFrame()
    {
        QFETCH(int, cut);
        QFETCH(int, framesLeft);
        std::string bytes = sampleFile();
        const size_t full = bytes.size();
        bytes.resize(full - size_t(cut));
        const raw::RawFile f = raw::RawFile::fromBytes(bytes, "cut.raw");
        QCOMPARE(int(f.frames().size()), framesLeft);
        // What remains after the last whole frame is reported, not silently dropped.
        size_t whole = sizeof(raw::FileHeader);
        for (const auto& fr : f.frames())
            whole += sizeof(raw::FrameHeader) + fr.payload.size();
        QCOMPARE(f.truncatedBytes(), bytes.size() - whole);
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << QByteArray() << "bad magic";
        QTest::newRow("text") << QByteArray("hello world, not a raw file") << "bad magic";
        const std::string h = header(1);
        QTest::newRow("header cut") << QByteArray(h.data(), 12) << "truncated inside its header";
        std::string newer = header(1);
        const uint32_t v = raw::kFormatVersion + 1;
        std::memcpy(newer.data() + offsetof(raw::FileHeader, version), &v, sizeof v);
        QTest::newRow("newer version") << QByteArray(newer.data(), int(newer.size())) << "newer";
        std::string huge = header(1);
        raw::FrameHeader fh {raw::kMaxFramePayload + 1, uint16_t(raw::RecordType::Kernel), 0};
        huge.append(reinterpret_cast<const char*>(&fh), sizeof fh);
        huge.append(64, 'x');
        QTest::newRow("absurd frame size") << QByteArray(huge.data(), int(huge.size())) << "exceeds the limit";
    }
    void badFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, reason);
        try {
            raw::RawFile::fromBytes(bytes.toStdString(), "/some/dir/ws-1.raw");
            QFAIL("accepted a bad raw file");
        } catch (const raw::RawError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith(QStringLiteral("/some/dir/ws-1.raw: ")), qPrintable(what));
            QVERIFY2(what.contains(reason), qPrintable(what));
        }
    }

    void missingFileNamesIt()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("nope.raw")).toStdString();
        try {
            raw::RawFile::load(path);
            QFAIL("loaded a missing file");
        } catch (const raw::RawError& e) {
            QVERIFY(QString::fromUtf8(e.what()).startsWith(QString::fromStdString(path)));
        }
    }

    void loadFromDisk()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("ws-42.raw")).toStdString();
        const std::string bytes = sampleFile();
        std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
        const raw::RawFile f = raw::RawFile::load(path);
        QCOMPARE(f.path(), path);
        QCOMPARE(f.frames().size(), size_t(3));
        QCOMPARE(f.sizeBytes(), bytes.size());
    }

    // Every raw file recorded on the H200 reads completely; the ones from processes that
    // exited normally end with an End record, the killed ones do not.
    void recordedFixtures_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<bool>("clean");
        QTest::newRow("gemm_relu") << "gemm_relu" << true;
        QTest::newRow("torch_nvtx") << "torch_nvtx" << true;
        QTest::newRow("graphs") << "graphs" << true;
        QTest::newRow("children") << "children" << true;
        QTest::newRow("capture_profiler") << "capture_profiler" << true;
        QTest::newRow("segv") << "segv" << false;
        QTest::newRow("sigkill") << "sigkill" << false;
    }
    void recordedFixtures()
    {
        QFETCH(QString, dir);
        QFETCH(bool, clean);
        const QDir d(QString::fromStdString(fixtureDir()) + QLatin1Char('/') + dir);
        const QStringList files = d.entryList({QStringLiteral("ws-*.raw")}, QDir::Files);
        QVERIFY2(!files.isEmpty(), qPrintable(d.path()));
        for (const QString& name : files) {
            const raw::RawFile f = raw::RawFile::load(d.filePath(name).toStdString());
            QCOMPARE(f.truncatedBytes(), size_t(0));
            QVERIFY(f.frames().size() > 10);
            QVERIFY(f.header().anchorRealtimeNs > f.header().anchorMonotonicNs);
            const bool hasEnd = f.frames().back().type == raw::RecordType::End;
            QCOMPARE(hasEnd, clean);
        }
    }
};

QTEST_GUILESS_MAIN(TestRaw)
#include "tst_raw.moc"

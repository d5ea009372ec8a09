// SPDX-License-Identifier: MIT
// Following a recording while it runs (RawIngest::follow / poll, RawTail; issue 20 item 4b):
// the raw files recorded on the H200 (tests/fixtures/recorder/raw) are copied into a directory
// in appends of random sizes (frames and headers cut anywhere), ingest polls after each, and
// the session must be the one the whole files give: every table, string for string (string ids
// may be numbered in another order, so rows are compared with their strings resolved), the
// meta and the warnings. Hand-built files cover what a recording rarely shows: a table entry
// after a record that needs it (the whole-file path takes over), a file cut mid-frame, and two
// processes whose files grow at the same time.
#include "core/ingest/rawingest.h"
#include "core/ingest/rawtail.h"
#include "core/raw/rawformat.h"
#include "sessiondump.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace ws;
using ws::test::dump;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void append(const fs::path& p, std::string_view bytes)
{
    std::ofstream out(p, std::ios::binary | std::ios::app);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct Result {
    std::string dump;
    std::vector<std::string> warnings; // sorted, the directory written as <dir>
};

std::vector<std::string> normalized(std::vector<std::string> warnings, const fs::path& dir)
{
    const std::string d = dir.string();
    for (auto& w : warnings)
        for (size_t at = w.find(d); at != std::string::npos; at = w.find(d))
            w.replace(at, d.size(), "<dir>");
    std::sort(warnings.begin(), warnings.end());
    return warnings;
}

Result whole(const fs::path& dir)
{
    RawIngest ingest;
    ingest.addDirectory(dir.string());
    SessionData s = ingest.finish();
    return {dump(s), normalized(ingest.warnings(), dir)};
}

// Copies the files of `from` into `to` in appends of 1 .. maxChunk bytes, polling after each;
// `interleave`: the files grow in turns, else one after the other.
Result followed(const fs::path& from, const fs::path& to, size_t maxChunk, bool interleave, unsigned seed)
{
    fs::remove_all(to);
    fs::create_directories(to);
    std::vector<std::pair<fs::path, std::string>> files;
    for (const auto& e : fs::directory_iterator(from))
        files.emplace_back(to / e.path().filename(), readAll(e.path()));
    std::sort(files.begin(), files.end());
    RawIngest ingest;
    ingest.follow(to.string());
    std::mt19937 rng(seed);
    std::vector<size_t> pos(files.size(), 0);
    std::vector<bool> finished(files.size(), false);
    for (size_t left = files.size(); left > 0;) {
        for (size_t i = 0; i < files.size(); ++i) {
            if (finished[i])
                continue;
            const std::string& bytes = files[i].second;
            do {
                const size_t n = std::min<size_t>(1 + rng() % maxChunk, bytes.size() - pos[i]);
                append(files[i].first, std::string_view(bytes).substr(pos[i], n));
                pos[i] += n;
                ingest.poll();
            } while (!interleave && pos[i] < bytes.size());
            if (pos[i] == bytes.size()) {
                finished[i] = true;
                --left;
            }
        }
    }
    SessionData s = ingest.finish();
    return {dump(s), normalized(ingest.warnings(), to)};
}

template <typename P> void frame(std::string& out, raw::RecordType type, const P& p, std::string_view tail = {})
{
    raw::appendFrame(out, type, p, tail);
}

std::string header(int64_t pid)
{
    raw::FileHeader h {};
    std::memcpy(h.magic, raw::kMagic, sizeof raw::kMagic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(raw::FileHeader);
    h.pid = pid;
    h.parentPid = 1;
    h.anchorRealtimeNs = 1'800'000'000'000'000'000;
    h.anchorMonotonicNs = 1'000'000'000;
    return std::string(reinterpret_cast<const char*>(&h), sizeof h);
}

// One process's launches: strings, API calls and kernels on two streams, a stream map.
std::string launches(int64_t pid, int n, bool threadMapLast)
{
    using namespace raw;
    std::string out = header(pid);
    frame(out, RecordType::String, StringDef {1, 0}, "_Z6kernelv");
    frame(out, RecordType::String, StringDef {2, 0}, "cudaLaunchKernel_v7000");
    frame(out, RecordType::StreamMap, StreamMapRecord {1, 13, 14});
    if (!threadMapLast)
        frame(out, RecordType::ThreadMap, ThreadMapRecord {777, pid + 1});
    for (int i = 0; i < n; ++i) {
        raw::ApiRecord a {};
        a.start = 2'000'000'000 + i * 5000;
        a.end = a.start + 4000;
        a.tid = 777;
        a.correlationId = static_cast<uint32_t>(i + 1);
        a.cbid = 211;
        a.name = 2;
        frame(out, RecordType::Api, a);
        raw::KernelRecord k {};
        k.start = a.start + 9000 - (i % 3) * 100;
        k.end = k.start + 1000;
        k.contextId = 1;
        k.streamId = i % 2 ? 13 : 7;
        k.correlationId = a.correlationId;
        k.name = 1;
        frame(out, RecordType::Kernel, k);
    }
    if (threadMapLast)
        frame(out, RecordType::ThreadMap, ThreadMapRecord {777, pid + 1});
    frame(out, RecordType::End, EndRecord {});
    return out;
}

} // namespace

class TestRawFollow : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

private slots:
    void fixturesFollowedEqualWholeFiles_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("maxChunk");
        QTest::addColumn<bool>("interleave");
        for (const char* f : {"gemm_relu", "torch_nvtx", "graphs", "children", "segv", "sigkill", "capture_profiler"}) {
            QTest::newRow((std::string(f) + " 4 KiB").c_str()) << QString::fromLatin1(f) << 4096 << false;
            QTest::newRow((std::string(f) + " 61 B").c_str()) << QString::fromLatin1(f) << 61 << false;
        }
        QTest::newRow("children interleaved") << QStringLiteral("children") << 777 << true;
    }

    void fixturesFollowedEqualWholeFiles()
    {
        QFETCH(QString, fixture);
        QFETCH(int, maxChunk);
        QFETCH(bool, interleave);
        const fs::path from = (QStringLiteral(WS_FIXTURES_DIR "/recorder/raw/") + fixture).toStdString();
        const Result a = whole(from);
        const Result b = followed(from, fs::path(m_tmp.path().toStdString()) / "f", size_t(maxChunk), interleave, 7);
        QVERIFY(a.dump.size() > 1000);
        QCOMPARE(b.dump, a.dump);
        QCOMPARE(b.warnings, a.warnings);
    }

    void tableEntryAfterItsRecordsFallsBackToWholeFiles()
    {
        // A ThreadMap written after the API records it maps: converting as the file grows would
        // keep CUPTI's thread ids; the result must still be the whole file's (mapped ids).
        const fs::path src = fs::path(m_tmp.path().toStdString()) / "late-src";
        fs::create_directories(src);
        append(src / "ws-500.raw", launches(500, 300, true));
        const Result a = whole(src);
        const Result b = followed(src, fs::path(m_tmp.path().toStdString()) / "late", 512, false, 3);
        QCOMPARE(b.dump, a.dump);
        QVERIFY(a.dump.find("tid=501") != std::string::npos);
        QVERIFY(a.dump.find("stream_id=14") != std::string::npos); // the program's id for CUPTI's 13
    }

    void entriesForNewStreamsAndThreadsKeepFollowing()
    {
        // As the recorder writes them: the device and the default stream's entry at context
        // creation, a stream's entry when the program creates it (after work on other streams),
        // a thread's entry when the recorder first sees it. None of these may send the
        // recording to the whole-file path: settle() still hands out rows.
        using namespace raw;
        std::string bytes = header(800);
        appendFrame(bytes, RecordType::String, StringDef {1, 0}, "_Z6kernelv");
        appendFrame(bytes, RecordType::String, StringDef {2, 0}, "cudaLaunchKernel_v7000");
        appendFrame(bytes, RecordType::String, StringDef {3, 0}, "NVIDIA H200");
        raw::DeviceRecord d {};
        d.name = 3;
        d.smCount = 132;
        appendFrame(bytes, RecordType::Device, d);
        appendFrame(bytes, RecordType::StreamMap, StreamMapRecord {1, 7, 7});
        const auto launch = [&](int i, uint32_t stream, int64_t tid) {
            raw::ApiRecord a {};
            a.start = 2'000'000'000 + i * 5000;
            a.end = a.start + 4000;
            a.tid = tid;
            a.correlationId = static_cast<uint32_t>(i + 1);
            a.name = 2;
            appendFrame(bytes, RecordType::Api, a);
            raw::KernelRecord k {};
            k.start = a.start + 9000;
            k.end = k.start + 1000;
            k.contextId = 1;
            k.streamId = stream;
            k.correlationId = a.correlationId;
            k.name = 1;
            appendFrame(bytes, RecordType::Kernel, k);
        };
        for (int i = 0; i < 100; ++i)
            launch(i, 7, 777);
        appendFrame(bytes, RecordType::StreamMap, StreamMapRecord {1, 13, 14});
        appendFrame(bytes, RecordType::ThreadMap, ThreadMapRecord {888, 801});
        for (int i = 100; i < 200; ++i)
            launch(i, i % 2 ? 13 : 7, i % 3 ? 777 : 888);
        appendFrame(bytes, RecordType::End, EndRecord {});
        const fs::path src = fs::path(m_tmp.path().toStdString()) / "entries-src";
        fs::create_directories(src);
        append(src / "ws-800.raw", bytes);
        const Result a = whole(src);

        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "entries";
        fs::create_directories(dir);
        RawIngest ingest;
        ingest.follow(dir.string());
        size_t settled = 0;
        for (size_t pos = 0; pos < bytes.size(); pos += 700) {
            append(dir / "ws-800.raw", std::string_view(bytes).substr(pos, 700));
            ingest.poll();
            const auto rows = ingest.settle(INT64_MAX);
            settled += rows.kernels.size() + rows.apiCalls.size();
        }
        QCOMPARE(settled, size_t(400));
        const SessionData s = ingest.finish();
        QVERIFY(ingest.settledRowsHold());
        QCOMPARE(dump(s), a.dump);
        QVERIFY(a.dump.find("tid=801") != std::string::npos);
        QVERIFY(a.dump.find("stream_id=14") != std::string::npos);
    }

    void twoProcessesGrowingTogether()
    {
        const fs::path src = fs::path(m_tmp.path().toStdString()) / "two-src";
        fs::create_directories(src);
        append(src / "ws-600.raw", launches(600, 500, false));
        append(src / "ws-601.raw", launches(601, 400, false));
        const Result a = whole(src);
        const Result b = followed(src, fs::path(m_tmp.path().toStdString()) / "two", 300, true, 11);
        QCOMPARE(b.dump, a.dump);
    }

    void cutMidFrameIsReportedLikeTheWholeFile()
    {
        const fs::path src = fs::path(m_tmp.path().toStdString()) / "cut-src";
        fs::create_directories(src);
        std::string bytes = launches(700, 50, false);
        bytes.resize(bytes.size() - 30); // the End record and part of the last kernel
        append(src / "ws-700.raw", bytes);
        const Result a = whole(src);
        const Result b = followed(src, fs::path(m_tmp.path().toStdString()) / "cut", 97, false, 5);
        QCOMPARE(b.dump, a.dump);
        QCOMPARE(b.warnings, a.warnings);
        QVERIFY(std::any_of(a.warnings.begin(), a.warnings.end(),
            [](const std::string& w) { return w.find("last record cut off") != std::string::npos; }));
    }

    void tailWaitsForIncompleteFrames()
    {
        const fs::path p = fs::path(m_tmp.path().toStdString()) / "tail" / "ws-1.raw";
        fs::create_directories(p.parent_path());
        const std::string bytes = launches(1, 3, false);
        RawTail tail(p.string());
        append(p, std::string_view(bytes).substr(0, 10)); // inside the header
        QVERIFY(tail.read().empty());
        QVERIFY(!tail.hasHeader());
        append(p, std::string_view(bytes).substr(10, sizeof(raw::FileHeader) + 5 - 10)); // header + 5 bytes
        QVERIFY(tail.read().empty());
        QVERIFY(tail.hasHeader());
        QCOMPARE(tail.pendingBytes(), size_t(5));
        append(p, std::string_view(bytes).substr(sizeof(raw::FileHeader) + 5));
        size_t frames = tail.read().size();
        QCOMPARE(frames, size_t(4 + 3 * 2 + 1)); // 2 strings, stream map, thread map, 3 x (API, kernel), End
        QCOMPARE(tail.pendingBytes(), size_t(0));
        QCOMPARE(tail.bytesRead(), bytes.size());
        QVERIFY(tail.read().empty());
    }

    void tailRefusesWhatTheReaderRefuses()
    {
        const fs::path p = fs::path(m_tmp.path().toStdString()) / "bad" / "ws-2.raw";
        fs::create_directories(p.parent_path());
        append(p, "definitely not a raw record file");
        RawTail tail(p.string());
        QVERIFY_THROWS_EXCEPTION(raw::RawError, tail.read());
    }
};

QTEST_GUILESS_MAIN(TestRawFollow)
#include "tst_rawfollow.moc"

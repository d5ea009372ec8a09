// SPDX-License-Identifier: MIT
// LiveSessionWriter (collectors/launcher, issue 20 item 4b): a session written while the raw
// files grow, taking the rows RawIngest settles, must be the session `record` writes from the
// whole files after the exit: every table, string for string, and the same table sizes (lane
// cache included). When a record arrives that sorts before rows already written, complete()
// refuses and the usual write gives that session instead.
#include "core/ingest/rawingest.h"
#include "core/raw/rawformat.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "launcher/livesessionwriter.h"
#include "sessiondump.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ws;
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

// What a reader sees of a session: its rows (strings resolved) and its table sizes.
std::string contents(const std::string& path)
{
    const SessionReader reader(path);
    SessionData s = reader.readAll();
    s.meta.erase("created");
    std::ostringstream out;
    out << test::dump(s);
    for (const auto& [table, rows] : reader.tableCounts())
        out << "rows " << table << ' ' << rows << '\n';
    return out.str();
}

std::string writeWhole(const fs::path& rawDir, const fs::path& session)
{
    RawIngest ingest;
    ingest.addDirectory(rawDir.string());
    const SessionData data = ingest.finish();
    SessionWriter w(session.string());
    attachLaneCache(w);
    w.write(data);
    w.commit();
    return contents(session.string());
}

template <typename P> void frame(std::string& out, raw::RecordType type, const P& p)
{
    raw::appendFrame(out, type, p);
}

std::string header(int64_t pid)
{
    raw::FileHeader h {};
    std::memcpy(h.magic, raw::kMagic, sizeof raw::kMagic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(raw::FileHeader);
    h.pid = pid;
    h.anchorMonotonicNs = 1'000'000'000;
    return std::string(reinterpret_cast<const char*>(&h), sizeof h);
}

// Launches i in [first, last): an API call and its kernel, 5 us apart.
std::string launches(int first, int last, int64_t shiftNs = 0)
{
    std::string out;
    for (int i = first; i < last; ++i) {
        raw::ApiRecord a {};
        a.start = 2'000'000'000 + int64_t(i) * 5000 + shiftNs;
        a.end = a.start + 4000;
        a.tid = 42;
        a.correlationId = static_cast<uint32_t>(i + 1);
        a.cbid = 211;
        a.name = 2;
        frame(out, raw::RecordType::Api, a);
        raw::KernelRecord k {};
        k.start = a.start + 9000;
        k.end = k.start + 1000;
        k.contextId = 1;
        k.streamId = 7;
        k.correlationId = a.correlationId;
        k.name = 1;
        frame(out, raw::RecordType::Kernel, k);
    }
    return out;
}

} // namespace

class TestLiveSessionWriter : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    fs::path tmp(const char* name) const { return fs::path(m_tmp.path().toStdString()) / name; }

private slots:
    void writtenWhileGrowingEqualsWrittenAfter_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const char* f : {"gemm_relu", "torch_nvtx", "graphs", "children", "sigkill"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }

    void writtenWhileGrowingEqualsWrittenAfter()
    {
        QFETCH(QString, fixture);
        const fs::path from = (QStringLiteral(WS_FIXTURES_DIR "/recorder/raw/") + fixture).toStdString();
        const fs::path dir = tmp("live") / fixture.toStdString();
        fs::create_directories(dir);
        const std::string expected = writeWhole(from, tmp("whole.wscope"));

        // The fixture's time range, so that the horizon sweeps across it as the files grow.
        RawIngest probe;
        probe.addDirectory(from.string());
        const SessionData all = probe.finish();
        QVERIFY(!all.apiCalls.empty());
        const TimeNs t0 = all.apiCalls.front().start, t1 = all.apiCalls.back().start;

        std::vector<std::pair<fs::path, std::string>> files;
        for (const auto& e : fs::directory_iterator(from))
            files.emplace_back(dir / e.path().filename(), readAll(e.path()));
        std::sort(files.begin(), files.end());
        const std::string session = (tmp("live") / (fixture.toStdString() + ".wscope")).string();
        RawIngest ingest;
        ingest.follow(dir.string());
        LiveSessionWriter live(session);
        // The processes' files grow side by side, as they run side by side.
        constexpr int kSteps = 40;
        for (int step = 1; step <= kSteps; ++step) {
            for (const auto& [path, bytes] : files) {
                const size_t a = bytes.size() * size_t(step - 1) / kSteps, b = bytes.size() * size_t(step) / kSteps;
                append(path, std::string_view(bytes).substr(a, b - a));
            }
            ingest.poll();
            // Lags behind what was appended, like the launcher's horizon.
            live.take(ingest, t0 + (t1 - t0) * (step - 3) / kSteps);
        }
        const SessionData data = ingest.finish();
        QVERIFY(ingest.settledRowsHold());
        QVERIFY(live.rowsWrittenEarly() > 0);
        QVERIFY(live.complete(ingest, data));
        QCOMPARE(contents(session), expected);
    }

    void lateRecordFallsBack()
    {
        const fs::path dir = tmp("late");
        fs::create_directories(dir);
        std::string first = header(900);
        raw::appendFrame(first, raw::RecordType::String, raw::StringDef {1, 0}, "_Z6kernelv");
        raw::appendFrame(first, raw::RecordType::String, raw::StringDef {2, 0}, "cudaLaunchKernel_v7000");
        first += launches(0, 200);
        // Arrives after the first 200 were written, but starts before the last of them.
        const std::string late = launches(200, 201, -400'000) + launches(201, 300);
        const fs::path rawPath = dir / "ws-900.raw";
        append(rawPath, first);
        RawIngest ingest;
        ingest.follow(dir.string());
        LiveSessionWriter live(tmp("late.wscope").string());
        ingest.poll();
        live.take(ingest, 4'000'000'000);
        QCOMPARE(live.rowsWrittenEarly(), size_t(400));
        append(rawPath, late);
        ingest.poll();
        live.take(ingest, 4'000'000'000);
        const SessionData data = ingest.finish();
        QVERIFY(!ingest.settledRowsHold());
        QVERIFY(!live.complete(ingest, data));
        QVERIFY(!fs::exists(tmp("late.wscope")));
        QVERIFY(data.apiCalls.size() == 300);
        QVERIFY(std::is_sorted(data.apiCalls.begin(), data.apiCalls.end(),
            [](const ApiCallRecord& x, const ApiCallRecord& y) { return x.start < y.start; }));
    }
};

QTEST_GUILESS_MAIN(TestLiveSessionWriter)
#include "tst_livesessionwriter.moc"

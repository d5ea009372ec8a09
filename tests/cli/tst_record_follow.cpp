// SPDX-License-Identifier: MIT
// `warpscope-cli record` following the raw files while the program runs (issue 20 item 4b), end
// to end with a real launcher, follower thread and live writer: the "program" is a Python script
// that appends a raw file (an H200 fixture, or a synthetic in-order one) into $WS_RAW_DIR in
// chunks with pauses, as the injection library's writer thread does. The session must hold what
// ingesting the whole file gives (every event table, strings resolved), and record must say how
// the post-run wait went. Needs the injection library (CUDA toolkit builds; it loads on machines
// without a GPU, so that record sets WS_RAW_DIR); skips elsewhere.
#include "clirun.h"
#include "core/ingest/rawingest.h"
#include "core/raw/rawformat.h"
#include "core/store/sessionreader.h"
#include "sessiondump.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ws;
namespace fs = std::filesystem;

namespace {

// The event tables and what describes the GPU work: not the processes (the launcher adds the
// script as the root process) nor meta.
std::string events(const SessionData& s)
{
    SessionData e;
    e.strings = s.strings;
    e.devices = s.devices;
    e.streams = s.streams;
    e.kernels = s.kernels;
    e.memcpys = s.memcpys;
    e.memsets = s.memsets;
    e.apiCalls = s.apiCalls;
    e.syncs = s.syncs;
    e.nvtxRanges = s.nvtxRanges;
    e.nvtxMarks = s.nvtxMarks;
    e.warpEvents = s.warpEvents;
    return test::dump(e);
}

const char* kAppender = R"(
import os, sys, time
src, chunks, pause = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
data = open(src, 'rb').read()
path = os.path.join(os.environ['WS_RAW_DIR'], 'ws-%d.raw' % os.getpid())
step = len(data) // chunks + 1
with open(path, 'ab', buffering=0) as f:
    for i in range(0, len(data), step):
        f.write(data[i:i + step])
        time.sleep(pause)
print('appended', len(data))
)";

// One process's launches in order: API calls and kernels, 5 us apart, long ago in CLOCK_MONOTONIC.
std::string inOrderLaunches(int n)
{
    raw::FileHeader h {};
    std::memcpy(h.magic, raw::kMagic, sizeof raw::kMagic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(raw::FileHeader);
    h.pid = 4321;
    h.anchorMonotonicNs = 1'000'000'000;
    std::string out(reinterpret_cast<const char*>(&h), sizeof h);
    raw::appendFrame(out, raw::RecordType::String, raw::StringDef {1, 0}, "_Z6kernelv");
    raw::appendFrame(out, raw::RecordType::String, raw::StringDef {2, 0}, "cudaLaunchKernel_v7000");
    for (int i = 0; i < n; ++i) {
        raw::ApiRecord a {};
        a.start = 2'000'000'000 + int64_t(i) * 5000;
        a.end = a.start + 4000;
        a.tid = 4321;
        a.correlationId = static_cast<uint32_t>(i + 1);
        a.cbid = 211;
        a.name = 2;
        raw::appendFrame(out, raw::RecordType::Api, a);
        raw::KernelRecord k {};
        k.start = a.start + 9000;
        k.end = k.start + 1000;
        k.contextId = 1;
        k.streamId = 7;
        k.correlationId = a.correlationId;
        k.name = 1;
        raw::appendFrame(out, raw::RecordType::Kernel, k);
    }
    raw::appendFrame(out, raw::RecordType::End, raw::EndRecord {});
    return out;
}

} // namespace

class TestRecordFollow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Records the appender copying `raw` and returns record's stderr; `s` gets the session.
    QString recordAppender(const QString& raw, int chunks, SessionData& s)
    {
        const QString script = m_dir.filePath(QStringLiteral("appender.py"));
        {
            std::ofstream(script.toStdString()) << kAppender;
        }
        const QString out = m_dir.filePath(QFileInfo(raw).completeBaseName() + QStringLiteral(".wscope"));
        const test::CliRun r = test::runCli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--"),
            QStringLiteral("python3"), script, raw, QString::number(chunks), QStringLiteral("0.05")});
        if (r.exitCode != 0)
            qWarning("record failed: %s", qPrintable(r.err));
        s = SessionReader(out.toStdString()).readAll();
        return r.err;
    }

    static std::string wholeFile(const QString& raw)
    {
        RawIngest ingest;
        ingest.addFile(raw::RawFile::load(raw.toStdString()));
        return events(ingest.finish());
    }

private slots:
    void initTestCase()
    {
        if (!QFileInfo::exists(QStringLiteral(WS_BUILD_DIR "/lib/libwarpscope-inject.so")))
            QSKIP("the injection library was not built (no CUDA toolkit): record sets no raw directory");
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("no python3 for the appending program");
    }

    void fixturesAppendedWhileRunning_data()
    {
        QTest::addColumn<QString>("raw");
        QTest::newRow("gemm_relu") << QStringLiteral(WS_FIXTURES_DIR "/recorder/raw/gemm_relu/ws-1661.raw");
        QTest::newRow("torch_nvtx") << QStringLiteral(WS_FIXTURES_DIR "/recorder/raw/torch_nvtx");
    }

    void fixturesAppendedWhileRunning()
    {
        QFETCH(QString, raw);
        QString file = raw;
        if (QFileInfo(raw).isDir())
            file = raw + QLatin1Char('/') + QDir(raw).entryList({QStringLiteral("ws-*.raw")}).value(0);
        SessionData s;
        const QString err = recordAppender(file, 20, s);
        QVERIFY2(err.contains(QStringLiteral("after exit: ")), qPrintable(err));
        QCOMPARE(events(s), wholeFile(file));
    }

    void inOrderRowsAreWrittenWhileRunning()
    {
        const QString raw = m_dir.filePath(QStringLiteral("inorder.raw"));
        {
            std::ofstream(raw.toStdString(), std::ios::binary) << inOrderLaunches(20000);
        }
        SessionData s;
        const QString err = recordAppender(raw, 25, s);
        QCOMPARE(s.kernels.size(), size_t(20000));
        QCOMPARE(events(s), wholeFile(raw));
        // Every row started long before the horizon: all of them were written while it ran.
        const QRegularExpression written(QStringLiteral("(\\d+) rows written while the program ran \\(followed\\)"));
        const auto m = written.match(err);
        QVERIFY2(m.hasMatch(), qPrintable(err));
        QVERIFY2(m.captured(1).toLongLong() > 0, qPrintable(err));
    }

    // A program with in-kernel traces: their frames are kept as they arrive (not read again from
    // the whole file after the exit), the session's warp events are the whole file's, and the
    // post-run line counts them among its events (before, its events/s left them out).
    void inKernelTracesAreFollowedAndCounted()
    {
        const QString raw = QStringLiteral(WS_FIXTURES_DIR "/iket/raw/pipelined/ws-618.raw");
        SessionData s;
        const QString err = recordAppender(raw, 20, s);
        QVERIFY(!s.warpEvents.empty());
        QCOMPARE(events(s), wholeFile(raw));
        const QRegularExpression line(
            QStringLiteral("total [0-9.]+ s \\(([0-9.]+)M events/s\\), (\\d+) events \\((\\d+) of "
                           "them warp events\\)"));
        const auto m = line.match(err);
        QVERIFY2(m.hasMatch(), qPrintable(err));
        const size_t all = s.kernels.size() + s.memcpys.size() + s.memsets.size() + s.apiCalls.size() + s.syncs.size()
            + s.nvtxRanges.size() + s.nvtxMarks.size() + s.warpEvents.size();
        QCOMPARE(m.captured(2).toULongLong(), qulonglong(all));
        QCOMPARE(m.captured(3).toULongLong(), qulonglong(s.warpEvents.size()));
    }
};

QTEST_GUILESS_MAIN(TestRecordFollow)
#include "tst_record_follow.moc"

// SPDX-License-Identifier: MIT
// WS_CUPTI_CAPTURE's writer and reader agree (issue 19 item 3): a buffer converted the way the
// recorder converts it, with ActivityCapture answering the names (from CUPTI's callback table
// and /proc, as in a traced process) and keeping the bytes, replays through CapturedActivity
// into byte-identical raw frames. Links libcupti for cuptiGetCallbackName, which needs no driver.
#include "collectors/inject/activitycapture.h"
#include "collectors/inject/activityreplay.h"
#include "collectors/inject/rawwriter.h"

#include <QtTest>

#include <QDir>
#include <QTemporaryDir>

#include <cupti.h>

#include <cstdlib>
#include <fstream>
#include <sys/syscall.h>
#include <unistd.h>

using namespace ws::inject;
using namespace ws::inject::cupti;

namespace {

std::string framesOf(const std::string& rawPath)
{
    std::ifstream in(rawPath, std::ios::binary);
    std::string bytes {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return bytes.substr(sizeof(ws::raw::FileHeader));
}

} // namespace

class TestCuptiCapture : public QObject {
    Q_OBJECT

private slots:
    void captureReplaysToTheSameFrames()
    {
        QTemporaryDir tmp;
        const QString captureDir = tmp.path() + "/capture";
        QVERIFY(qputenv("WS_CUPTI_CAPTURE", captureDir.toUtf8()));
        ActivityCapture* capture = ActivityCapture::fromEnvironment(tmp.path().toStdString(), 130000);
        QVERIFY(capture);

        // One buffer as CUPTI lays it out: records 8-byte aligned, one after the other.
        static const char kernelName[] = "_Z10gemm_tileILi128EEvPKfS1_Pfi";
        const auto tid = static_cast<uint32_t>(syscall(SYS_gettid));
        std::vector<uint64_t> storage(4096 / 8, 0);
        auto* bytes = reinterpret_cast<uint8_t*>(storage.data());
        std::vector<std::pair<uint32_t, uint32_t>> records;
        size_t used = 0;
        auto place = [&](auto* record, CUpti_ActivityKind kind) {
            record->kind = kind;
            records.emplace_back(static_cast<uint32_t>(used), static_cast<uint32_t>(kind));
            used += (sizeof(*record) + 7) / 8 * 8;
        };
        auto* api = reinterpret_cast<CUpti_ActivityAPI*>(bytes + used);
        api->cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
        api->start = 100;
        api->end = 180;
        api->threadId = tid;
        api->correlationId = 5;
        place(api, CUPTI_ACTIVITY_KIND_RUNTIME);
        auto* drv = reinterpret_cast<CUpti_ActivityAPI*>(bytes + used);
        drv->cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
        drv->start = 110;
        drv->end = 170;
        drv->threadId = tid;
        drv->correlationId = 6;
        place(drv, CUPTI_ACTIVITY_KIND_DRIVER);
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(bytes + used);
        k->start = 200;
        k->end = 900;
        k->correlationId = 5;
        k->gridX = k->gridY = k->gridZ = 1;
        k->blockX = 128;
        k->name = kernelName;
        place(k, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        auto* o = reinterpret_cast<CUpti_ActivityOverhead3*>(bytes + used);
        o->overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
        o->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
        o->objectId.pt.threadId = tid;
        o->start = 1000;
        o->end = 1100;
        place(o, CUPTI_ACTIVITY_KIND_OVERHEAD);

        // Live: the recorder's path (cuptisession.cpp convertBuffer) with the capture on.
        QTemporaryDir liveDir;
        RawWriter live;
        QVERIFY(live.open(liveDir.path().toStdString()));
        ConverterCache cache;
        ActivityConverter converter(live, cache, *capture);
        for (const auto& [offset, kind] : records)
            converter.add(reinterpret_cast<const CUpti_Activity*>(bytes + offset));
        converter.finish();
        capture->addBuffer(bytes, used, records);
        live.writeOut(); // not close(): its End record carries the time of closing

        // Replay, without CUPTI's answers.
        const QString dir = captureDir + QStringLiteral("/ws-%1.cupti").arg(getpid());
        QVERIFY2(QDir(dir).exists(), qPrintable(dir));
        const CapturedActivity replayed = CapturedActivity::read(dir.toStdString());
        QCOMPARE(replayed.buffers().size(), size_t(1));
        QCOMPARE(replayed.buffers()[0].validSize, used);
        QCOMPARE(replayed.cuptiVersion(), 130000u);
        QTemporaryDir replayDir;
        RawWriter again;
        QVERIFY(again.open(replayDir.path().toStdString()));
        QCOMPARE(replayed.replay(again), uint64_t(4));
        again.writeOut();

        const std::string a = framesOf(live.path());
        const std::string b = framesOf(again.path());
        QVERIFY(a.size() > 200);
        QVERIFY2(a == b, "the replayed frames differ from the live ones");
        // The names came from CUPTI and /proc, not from the test.
        QVERIFY(a.find("cudaLaunchKernel_v7000") != std::string::npos);
        QVERIFY(a.find("cuLaunchKernel") != std::string::npos);
        QVERIFY(a.find(kernelName) != std::string::npos);
        QVERIFY(a.find("CUPTI buffer flush") != std::string::npos);
        live.close(0);
        again.close(0);
    }
};

QTEST_GUILESS_MAIN(TestCuptiCapture)
#include "tst_cupti_capture.moc"

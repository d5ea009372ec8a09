// SPDX-License-Identifier: MIT
// ReplayGate (collectors/profiler/replaygate.h): the profiler keeps a program's other threads from
// copying, setting, allocating or freeing memory while a launch is replayed, since the replay's
// final restore would overwrite a copy and fault on a free. On the GPU a broken gate shows only as
// a corrupted result now and then, so the ordering is checked here with real threads. The waits
// are checked as "has not happened yet after 100 ms": a broken gate lets the other thread through
// at once, and a slow machine can only make these checks pass, never fail wrongly.
#include "collectors/profiler/replaygate.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <thread>

using ws::profiler::isMemoryWrite;
using ws::profiler::ReplayGate;
using namespace std::chrono_literals;

namespace {

constexpr auto kWhile = 100ms;

// Spins (with short sleeps) until `flag` is set or 5 s passed.
bool becomes(const std::atomic<bool>& flag)
{
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (!flag.load() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(1ms);
    return flag.load();
}

// Another thread inside a memory call (a copy in flight) from construction until end().
class CallInFlight {
public:
    explicit CallInFlight(ReplayGate& gate)
        : m_thread([this, &gate] {
            gate.memoryCallEnter();
            m_in = true;
            while (!m_end.load())
                std::this_thread::sleep_for(1ms);
            gate.memoryCallExit();
        })
    {
    }
    ~CallInFlight() { end(); }
    bool started() const { return becomes(m_in); }
    void end()
    {
        m_end = true;
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    std::atomic<bool> m_in {false}, m_end {false};
    std::thread m_thread;
};

} // namespace

class TestReplayGate : public QObject {
    Q_OBJECT

private slots:
    // The names cuptiGetCallbackName gives the driver's calls, as CUDA 13's CUPTI lists them.
    void memoryWrites_data()
    {
        QTest::addColumn<QString>("call");
        QTest::addColumn<bool>("gated");
        QTest::newRow("copy to the device, async, per-thread stream") << "cuMemcpyHtoDAsync_v2_ptsz" << true;
        QTest::newRow("copy device to device") << "cuMemcpyDtoD_v2" << true;
        QTest::newRow("copy to the host (would read a pass's results)") << "cuMemcpyDtoH_v2" << true;
        QTest::newRow("batched 3D copy") << "cuMemcpy3DBatchAsync_v2" << true;
        QTest::newRow("memset, per-thread default stream") << "cuMemsetD32_v2_ptds" << true;
        QTest::newRow("free") << "cuMemFree_v2" << true;
        QTest::newRow("stream-ordered free") << "cuMemFreeAsync_ptsz" << true;
        QTest::newRow("allocation from a pool") << "cuMemAllocFromPoolAsync" << true;
        QTest::newRow("virtual memory unmap") << "cuMemUnmap" << true;
        QTest::newRow("managed prefetch") << "cuMemPrefetchAsync_v2" << true;
        QTest::newRow("stream memory write") << "cuStreamWriteValue32_v2" << true;
        QTest::newRow("stream batch of memory operations") << "cuStreamBatchMemOp_ptsz" << true;
        QTest::newRow("array destroyed") << "cuArrayDestroy" << true;
        QTest::newRow("kernel launch (the launch callback's own lock)") << "cuLaunchKernel" << false;
        QTest::newRow("synchronize") << "cuCtxSynchronize" << false;
        QTest::newRow("memory information") << "cuMemGetInfo_v2" << false;
        QTest::newRow("address range") << "cuMemGetAddressRange_v2" << false;
        QTest::newRow("pointer attribute") << "cuPointerGetAttribute" << false;
        QTest::newRow("host registration") << "cuMemHostRegister_v2" << false;
        QTest::newRow("empty") << "" << false;
    }
    void memoryWrites()
    {
        QFETCH(QString, call);
        QFETCH(bool, gated);
        QCOMPARE(isMemoryWrite(call.toStdString()), gated);
    }

    void memoryCallWaitsForTheReplay()
    {
        ReplayGate gate;
        std::atomic<bool> inCall {false};
        std::thread other;
        {
            auto replay = gate.replay();
            QVERIFY(replay.gated());
            other = std::thread([&] {
                gate.memoryCallEnter();
                inCall = true;
                gate.memoryCallExit();
            });
            std::this_thread::sleep_for(kWhile);
            QVERIFY2(!inCall.load(), "another thread's memory call ran during the replay");
        }
        QVERIFY(becomes(inCall));
        other.join();
    }

    void replayWaitsForTheCallInFlight()
    {
        ReplayGate gate;
        std::atomic<bool> replaying {false};
        CallInFlight call(gate);
        QVERIFY(call.started());
        std::thread replayer([&] {
            auto r = gate.replay();
            replaying = r.gated();
        });
        std::this_thread::sleep_for(kWhile);
        QVERIFY2(!replaying.load(), "the replay started while a memory call was in flight");
        call.end();
        QVERIFY(becomes(replaying));
        replayer.join();
    }

    // Copies arriving one after another must not keep a waiting replay out for ever: a call that
    // arrives while a replay waits goes after that replay.
    void callsWaitBehindAWaitingReplay()
    {
        ReplayGate gate;
        std::atomic<bool> replayRan {false}, secondIn {false}, secondBeforeReplay {false};
        CallInFlight first(gate);
        QVERIFY(first.started());
        std::thread replayer([&] {
            auto r = gate.replay();
            replayRan = r.gated();
        });
        std::this_thread::sleep_for(kWhile / 4); // the replay is waiting now
        std::thread second([&] {
            gate.memoryCallEnter();
            secondBeforeReplay = !replayRan.load();
            secondIn = true;
            gate.memoryCallExit();
        });
        std::this_thread::sleep_for(kWhile);
        QVERIFY2(!secondIn.load(), "a new memory call went ahead of the waiting replay");
        first.end();
        replayer.join();
        second.join();
        QVERIFY(replayRan.load());
        QVERIFY(secondIn.load());
        QVERIFY2(!secondBeforeReplay.load(), "the second call ran before the replay");
    }

    // The replay itself allocates, copies and frees (the checkpoint, the compare): its own calls
    // must not wait for it, nor a call of its that nests.
    void replayingThreadPasses()
    {
        ReplayGate gate(200ms);
        auto replay = gate.replay();
        QVERIFY(replay.gated());
        gate.memoryCallEnter();
        gate.memoryCallEnter();
        gate.memoryCallExit();
        gate.memoryCallExit();
        // And a second replay from the same thread does not wait for the first.
        auto nested = gate.replay();
        QVERIFY(!nested.gated());
        QVERIFY(!nested.gaveUp()); // nothing to warn about
    }

    // A replay whose wait runs past the patience goes on without the gate, and the calls held
    // back behind it go on as well.
    void replayGivesUpAfterItsPatience()
    {
        ReplayGate gate(150ms);
        std::atomic<bool> secondIn {false};
        CallInFlight first(gate);
        QVERIFY(first.started());
        std::thread second;
        {
            const auto start = std::chrono::steady_clock::now();
            std::thread late([&] {
                std::this_thread::sleep_for(50ms); // behind the waiting replay
                gate.memoryCallEnter();
                secondIn = true;
                gate.memoryCallExit();
            });
            auto replay = gate.replay();
            QVERIFY(!replay.gated());
            QVERIFY(replay.gaveUp());
            QVERIFY(std::chrono::steady_clock::now() - start >= 150ms);
            QVERIFY(becomes(secondIn));
            second = std::move(late);
        }
        first.end();
        second.join();
        // The gate works again afterwards.
        auto again = gate.replay();
        QVERIFY(again.gated());
    }

    // A memory call held back by a replay that does not end goes on after its own patience, and
    // is counted, so the profiler can say so at the end.
    void callGivesUpAfterItsPatience()
    {
        ReplayGate gate(std::chrono::seconds(10), 150ms);
        std::atomic<bool> inCall {false};
        std::thread other;
        {
            auto replay = gate.replay();
            QVERIFY(replay.gated());
            const auto start = std::chrono::steady_clock::now();
            std::atomic<int64_t> waitedMs {0};
            other = std::thread([&] {
                gate.memoryCallEnter();
                waitedMs
                    = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
                          .count();
                inCall = true;
                gate.memoryCallExit();
            });
            QVERIFY(becomes(inCall)); // while the replay still holds the gate
            QVERIFY(waitedMs.load() >= 150);
            QCOMPARE(gate.lateCalls(), 1);
            other.join();
        }
        // Its exit took nothing back: a replay gets in at once.
        auto again = gate.replay();
        QVERIFY(again.gated());
    }

    void exitWithoutEnterIsIgnored()
    {
        ReplayGate gate(100ms);
        gate.memoryCallExit();
        auto replay = gate.replay();
        QVERIFY(replay.gated());
    }
};

QTEST_APPLESS_MAIN(TestReplayGate)
#include "tst_replaygate.moc"

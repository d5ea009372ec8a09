// SPDX-License-Identifier: MIT
// Kernel matching (exact, by name, by NVTX path, re-paired, unmatched), iterations, hypotheses
// (parsing, JSON, storage in a real session file) and comparisons of real H200 sessions.
#include "core/compare/comparereport.h"
#include "core/compare/comparison.h"
#include "core/compare/hypothesis.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"

#include <QtTest>

#include <sstream>

using namespace ws;
using namespace ws::compare;

namespace {

// A recording in memory: kernels launched from one thread through cudaLaunchKernel, inside
// push/pop NVTX ranges, as the recorder stores them.
class SessionBuilder {
public:
    SessionBuilder() { m_data.processes.push_back({1, "app", "app", 0, 0, 0, 0, 0}); }

    // Opens a range at the current time.
    void push(const std::string& name)
    {
        NvtxRangeRecord r;
        r.id = static_cast<int64_t>(m_data.nvtxRanges.size()) + 1;
        r.pid = 1;
        r.tid = 10;
        r.endTid = 10;
        r.start = m_now++;
        r.end = -1;
        r.name = m_data.strings.intern(name);
        r.depth = static_cast<int32_t>(m_open.size());
        m_open.push_back(m_data.nvtxRanges.size());
        m_data.nvtxRanges.push_back(r);
    }
    void pop()
    {
        m_data.nvtxRanges[m_open.back()].end = m_now++;
        m_open.pop_back();
    }
    // A launch at the current time; the kernel runs `duration` ns on the GPU right after.
    void launch(const std::string& name, TimeNs duration)
    {
        const auto corr = static_cast<uint32_t>(m_data.kernels.size() + 1);
        ApiCallRecord api;
        api.id = corr;
        api.pid = 1;
        api.tid = 10;
        api.correlationId = corr;
        api.start = m_now;
        api.end = m_now + 2;
        api.name = m_data.strings.intern("cudaLaunchKernel_v7000");
        m_data.apiCalls.push_back(api);
        KernelRecord k;
        k.id = corr;
        k.pid = 1;
        k.correlationId = corr;
        k.start = std::max(m_gpu, m_now + 5);
        k.end = k.start + duration;
        m_gpu = k.end;
        k.demangledName = m_data.strings.intern(name);
        k.shortName = k.demangledName;
        m_data.kernels.push_back(k);
        m_now += 3;
    }
    void wait(TimeNs ns) { m_now += ns; }
    SessionData data() const { return m_data; }

private:
    SessionData m_data;
    std::vector<size_t> m_open;
    TimeNs m_now = 1000;
    TimeNs m_gpu = 0;
};

// iters x [gemm range: gemmName (gemmNs), relu range: relu (reluNs)], after a setup kernel.
SessionData loop(int iters, const std::string& gemmName, TimeNs gemmNs, TimeNs reluNs, bool relu = true)
{
    SessionBuilder b;
    b.push("setup");
    b.launch("fill", 100);
    b.pop();
    b.push("timed loop");
    for (int i = 0; i < iters; ++i) {
        b.push("gemm");
        b.launch(gemmName, gemmNs + (i % 3)); // a little spread, no two sides identical
        b.pop();
        if (relu) {
            b.push("relu");
            b.launch("relu_kernel", reluNs + (i % 2));
            b.pop();
        }
        b.wait(1000);
    }
    b.pop();
    return b.data();
}

const KernelRow* rowNamed(const Comparison& c, const std::string& name, bool matched = true)
{
    for (const auto& r : c.kernels) {
        if ((r.name == name || r.nameA == name) && r.matched() == matched)
            return &r;
    }
    return nullptr;
}

QString fixture(const char* rel)
{
    return QStringLiteral(WS_FIXTURES_DIR "/") + QLatin1String(rel);
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void paths()
    {
        const auto s = indexCompareSession(loop(3, "gemm_kernel", 1000, 100), "a");
        QCOMPARE(s.launches.size(), size_t(7));
        QCOMPARE(s.keys.size(), size_t(3));
        QCOMPARE(s.keys[s.launches[0].key].display(), std::string("setup / fill"));
        QCOMPARE(s.keys[s.launches[1].key].display(), std::string("timed loop / gemm / gemm_kernel"));
        QCOMPARE(s.keys[s.launches[2].key].display(), std::string("timed loop / relu / relu_kernel"));
        QCOMPARE(s.durations(s.launches[1].key), (std::vector<double> {1000, 1001, 1002}));
    }

    void exactMatch()
    {
        const auto a = indexCompareSession(loop(10, "gemm_kernel", 1000, 100), "a");
        const auto b = indexCompareSession(loop(10, "gemm_kernel", 1500, 100), "b");
        const auto m = matchKernels(a, b);
        QCOMPARE(m.pairs.size(), size_t(3));
        QVERIFY(m.unmatchedA.empty() && m.unmatchedB.empty());
        for (const auto& p : m.pairs) {
            QCOMPARE(p.kind, MatchKind::Exact);
            QCOMPARE(a.keys[p.keyA], b.keys[p.keyB]);
        }
        const auto c = compareSessions(a, b);
        const auto* gemm = rowNamed(c, "gemm_kernel");
        QVERIFY(gemm);
        QCOMPARE(gemm->medianA, 1001.0);
        QCOMPARE(gemm->medianB, 1501.0);
        QCOMPARE(gemm->diffNs, 500.0);
        QVERIFY(std::fabs(gemm->diffPct - 100.0 * 500 / 1001) < 1e-9);
        QVERIFY(gemm->pValue < 1e-3);
        // Latency = GPU time per iteration (gemm + relu): 10 iterations each, B slower.
        QCOMPARE(c.iterationsA.values.size(), size_t(10));
        QCOMPARE(c.verdictSource, std::string("per-iteration GPU time"));
        QCOMPARE(c.overall, VerdictKind::Slower);
        QVERIFY(c.regression());
    }

    void pathOnlyAndUnmatched()
    {
        // B replaces the GEMM kernel and drops the ReLU (fused): the new GEMM is the only
        // unmatched kernel at "timed loop / gemm" on both sides, the ReLU stays unmatched.
        const auto a = indexCompareSession(loop(10, "gemm_kernel", 1000, 300), "a");
        const auto b = indexCompareSession(loop(10, "gemm_relu_epilogue", 1010, 0, false), "b");
        const auto m = matchKernels(a, b);
        QCOMPARE(m.pairs.size(), size_t(2)); // fill (exact) + gemm (path)
        QCOMPARE(m.unmatchedA.size(), size_t(1));
        QCOMPARE(a.keys[m.unmatchedA[0]].name, std::string("relu_kernel"));
        QVERIFY(m.unmatchedB.empty());
        const auto c = compareSessions(a, b);
        const auto* gemm = rowNamed(c, "gemm_relu_epilogue");
        QVERIFY(gemm);
        QCOMPARE(gemm->kind, MatchKind::PathOnly);
        QCOMPARE(gemm->nameA, std::string("gemm_kernel"));
        const auto* relu = rowNamed(c, "relu_kernel", false);
        QVERIFY(relu);
        QCOMPARE(relu->countA, size_t(10));
        QCOMPARE(relu->countB, size_t(0));
        QVERIFY(std::isnan(relu->medianB));
        // Iterations: A gemm+relu ~1301 ns, B ~1011 ns: faster.
        QCOMPARE(c.overall, VerdictKind::Faster);
        QVERIFY(!c.regression());
    }

    void nameMatchAndRepair()
    {
        // The same kernel under another range name matches by name; the user re-pairs.
        SessionBuilder ba, bb;
        ba.push("step");
        ba.launch("k1", 100);
        ba.launch("k2", 200);
        ba.pop();
        bb.push("iteration");
        bb.launch("k1", 110);
        bb.launch("k3", 210);
        bb.pop();
        const auto a = indexCompareSession(ba.data(), "a");
        const auto b = indexCompareSession(bb.data(), "b");
        auto m = matchKernels(a, b);
        QCOMPARE(m.pairs.size(), size_t(1));
        QCOMPARE(m.pairs[0].kind, MatchKind::Name); // k1 at another path
        // k2 and k3 sit at different paths: listed as unmatched, not guessed.
        QCOMPARE(m.unmatchedA, std::vector<uint32_t> {static_cast<uint32_t>(a.keyIndex({"step", "k2"}))});
        QCOMPARE(m.unmatchedB, std::vector<uint32_t> {static_cast<uint32_t>(b.keyIndex({"iteration", "k3"}))});
        m = matchKernels(a, b, {parseUserPair("k2=k3")});
        QCOMPARE(m.pairs.size(), size_t(2));
        QCOMPARE(m.pairs[1].kind, MatchKind::User);
        QVERIFY(m.unmatchedA.empty() && m.unmatchedB.empty());
    }

    void similarNames_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<double>("similarity");
        QTest::newRow("fused suffix") << "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
                                      << "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_relu_NNT" << 1.0;
        QTest::newRow("template argument") << "void k<128>(float*)"
                                           << "void k<256>(float*)" << 16.0 / 19;
        QTest::newRow("unrelated") << "relu_kernel"
                                   << "nvjet_sm90_tst" << 0.0;
        QTest::newRow("empty") << ""
                               << "k" << 0.0;
    }

    void similarNames()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(double, similarity);
        QCOMPARE(nameSimilarity(a.toStdString(), b.toStdString()), similarity);
        QCOMPARE(nameSimilarity(b.toStdString(), a.toStdString()), similarity);
    }

    void similarPass()
    {
        // Two kernels renamed by a template argument at one path: each pairs with its own
        // counterpart (mutual best), not by order.
        SessionBuilder ba, bb;
        ba.push("step");
        ba.launch("void gemm<128, 64>(float*)", 100);
        ba.launch("void softmax_warp<32>(float*)", 50);
        ba.pop();
        bb.push("step");
        bb.launch("void softmax_warp<64>(float*)", 40);
        bb.launch("void gemm<256, 64>(float*)", 90);
        bb.pop();
        const auto a = indexCompareSession(ba.data(), "a");
        const auto b = indexCompareSession(bb.data(), "b");
        const auto m = matchKernels(a, b);
        QCOMPARE(m.pairs.size(), size_t(2));
        for (const auto& p : m.pairs) {
            QCOMPARE(p.kind, MatchKind::Similar);
            QCOMPARE(a.keys[p.keyA].name.substr(0, 9), b.keys[p.keyB].name.substr(0, 9));
        }
    }

    void userPairs_data()
    {
        QTest::addColumn<QString>("pair");
        QTest::addColumn<QString>("error"); // empty: resolves
        QTest::newRow("substrings") << "relu=epilogue" << QString();
        QTest::newRow("full names") << "relu_kernel=gemm_relu_epilogue" << QString();
        QTest::newRow("no such kernel") << "nothing=epilogue"
                                        << "selects no kernel of A";
        QTest::newRow("ambiguous") << "_kernel=epilogue"
                                   << "selects several kernels of A";
        QTest::newRow("no equals sign") << "relu"
                                        << "expected A_NAME=B_NAME";
    }

    void userPairs()
    {
        QFETCH(QString, pair);
        QFETCH(QString, error);
        const auto a = indexCompareSession(loop(4, "gemm_kernel", 1000, 300), "a");
        const auto b = indexCompareSession(loop(4, "gemm_relu_epilogue", 1010, 0, false), "b");
        try {
            const auto m = matchKernels(a, b, {parseUserPair(pair.toStdString())});
            QVERIFY2(error.isEmpty(), "expected an error");
            // relu_kernel is now paired with the epilogue GEMM; gemm_kernel has no partner left.
            QCOMPARE(m.pairs.size(), size_t(2));
            bool user = false;
            for (const auto& p : m.pairs) {
                if (p.kind == MatchKind::User) {
                    user = true;
                    QCOMPARE(a.keys[p.keyA].name, std::string("relu_kernel"));
                    QCOMPARE(b.keys[p.keyB].name, std::string("gemm_relu_epilogue"));
                }
            }
            QVERIFY(user);
            QCOMPARE(m.unmatchedA.size(), size_t(1));
            QCOMPARE(a.keys[m.unmatchedA[0]].name, std::string("gemm_kernel"));
        } catch (const std::invalid_argument& e) {
            QVERIFY2(!error.isEmpty() && QString::fromUtf8(e.what()).contains(error), e.what());
        }
    }

    void repairByIndex()
    {
        const auto a = indexCompareSession(loop(4, "gemm_kernel", 1000, 300), "a");
        const auto b = indexCompareSession(loop(4, "gemm_relu_epilogue", 1010, 0, false), "b");
        UserPair p;
        p.keyA = a.keyIndex({"setup", "fill"});
        p.keyB = b.keyIndex({"timed loop / gemm", "gemm_relu_epilogue"});
        QVERIFY(p.keyA >= 0 && p.keyB >= 0);
        const auto m = matchKernels(a, b, {p});
        // fill of A is taken: fill of B stays unmatched, and so do A's GEMM and ReLU.
        QCOMPARE(m.pairs.size(), size_t(1));
        QCOMPARE(m.unmatchedA.size(), size_t(2));
        QCOMPARE(m.unmatchedB.size(), size_t(1));
        UserPair bad;
        bad.keyA = 99;
        bad.keyB = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, matchKernels(a, b, {bad}));
    }

    void iterations()
    {
        const auto s = indexCompareSession(loop(6, "gemm_kernel", 1000, 300), "s");
        // Default: split at the most frequent kernel (gemm, first of the tie with relu).
        auto it = findIterations(s);
        QCOMPARE(it.values.size(), size_t(6));
        QCOMPARE(it.values[0], 1000.0 + 300.0);
        QCOMPARE(it.values[1], 1001.0 + 301.0);
        QCOMPARE(it.period, std::string("gemm_kernel"));
        QCOMPARE(it.origin, s.launches.front().start);
        // Instances of a range: one value per "relu" instance.
        it = findIterations(s, "relu");
        QVERIFY(it.rangeFound);
        QCOMPARE(it.values, (std::vector<double> {300, 301, 300, 301, 300, 301}));
        QCOMPARE(it.origin, s.data.nvtxRanges[3].start); // first "relu" push
        // A single instance ("timed loop") is split inside it; setup is left out.
        it = findIterations(s, "timed loop");
        QCOMPARE(it.values.size(), size_t(6));
        QVERIFY(QString::fromStdString(it.basis).startsWith("inside NVTX range 'timed loop'"));
        it = findIterations(s, "nope");
        QVERIFY(!it.rangeFound);
        QVERIFY(it.values.empty());
        QCOMPARE(rangesWithKernels(s).front(), std::string("gemm")); // 6 instances
    }

    void alignKeysDropsPaths()
    {
        auto a = indexCompareSession(loop(3, "gemm_kernel", 1000, 300), "a");
        SessionData plain = loop(3, "gemm_kernel", 1000, 300);
        plain.apiCalls.clear(); // e.g. a profile session: no launches to tie kernels to threads
        auto b = indexCompareSession(plain, "b");
        QVERIFY(hasPaths(a));
        QVERIFY(!hasPaths(b));
        QVERIFY(!alignKeys(a, b).empty());
        QVERIFY(!hasPaths(a));
        QCOMPARE(a.keys.size(), size_t(3));
        const auto m = matchKernels(a, b);
        QCOMPARE(m.pairs.size(), size_t(3));
        QVERIFY(alignKeys(a, b).empty()); // nothing left to align
    }

    void zScores()
    {
        const auto a = indexCompareSession(loop(8, "gemm_kernel", 1000, 300), "a");
        const auto a2 = indexCompareSession(loop(8, "gemm_kernel", 1010, 300), "a2");
        const auto a3 = indexCompareSession(loop(8, "gemm_kernel", 990, 300), "a3");
        const auto b = indexCompareSession(loop(8, "gemm_kernel", 1100, 300), "b");
        const auto c = compareSessions(a, b, {}, {&a2, &a3});
        const auto* gemm = rowNamed(c, "gemm_kernel");
        QVERIFY(gemm);
        QCOMPARE(gemm->baselineMedians.size(), size_t(3));
        QCOMPARE(gemm->baselineMedians[1], 1011.0);
        // Baseline medians 1001, 1011, 991: mean 1001, sd 10 -> B (1101) is 10 sd above.
        QVERIFY2(std::fabs(gemm->zScore - 10.0) < 1e-9, qPrintable(QString::number(gemm->zScore)));
        QVERIFY(std::isfinite(c.latencyZ));
        QVERIFY(std::isnan(zScore(5, {1.0})));
        QVERIFY(std::isnan(zScore(5, {2.0, 2.0})));
    }

    void nothingToCompare()
    {
        SessionBuilder empty;
        const auto a = indexCompareSession(loop(3, "k", 10, 10), "a.wscope");
        const auto b = indexCompareSession(empty.data(), "b.wscope");
        try {
            compareSessions(a, b);
            QFAIL("expected an error");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("b.wscope"), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains("B has no kernel launches"), e.what());
        }
    }

    void hypothesisParsing_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("formatted"); // empty: an error
        QTest::newRow("latency") << "latency:down"
                                 << "latency:down";
        QTest::newRow("size") << "latency:down:10%"
                              << "latency:down:10%";
        QTest::newRow("size without %") << "latency:up:2.5"
                                        << "latency:up:2.5%";
        QTest::newRow("kernel time") << "time@relu_kernel:down"
                                     << "time@relu_kernel:down";
        QTest::newRow("metric of a C++ kernel") << "dram__bytes_read.sum@at::native::relu:down:50"
                                                << "dram__bytes_read.sum@at::native::relu:down:50%";
        QTest::newRow("same") << "sm__throughput.avg.pct_of_peak_sustained_elapsed:same"
                              << "sm__throughput.avg.pct_of_peak_sustained_elapsed:same";
        QTest::newRow("no direction") << "latency" << QString();
        QTest::newRow("bad direction") << "latency:sideways" << QString();
        QTest::newRow("negative size") << "latency:down:-5" << QString();
        QTest::newRow("time without kernel") << "time:down" << QString();
        QTest::newRow("latency with kernel") << "latency@k:down" << QString();
        QTest::newRow("no subject") << ":down" << QString();
    }

    void hypothesisParsing()
    {
        QFETCH(QString, text);
        QFETCH(QString, formatted);
        try {
            const auto h = parseHypothesis(text.toStdString());
            QVERIFY2(!formatted.isEmpty(), "expected an error");
            QCOMPARE(QString::fromStdString(formatHypothesis(h)), formatted);
            QCOMPARE(parseHypothesis(formatHypothesis(h)), h);
        } catch (const std::invalid_argument& e) {
            QVERIFY2(formatted.isEmpty(), e.what());
            QVERIFY(QString::fromUtf8(e.what()).contains(text.left(5)));
        }
    }

    void hypothesisJson()
    {
        const std::vector<Hypothesis> list {parseHypothesis("latency:down:10"), parseHypothesis("time@relu:up"),
            parseHypothesis("dram__bytes.sum@gemm \"quoted\":same")};
        QCOMPARE(hypothesesFromJson(hypothesesToJson(list)), list);
        QVERIFY(hypothesesFromJson("[]").empty());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hypothesesFromJson("{"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hypothesesFromJson("{}"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hypothesesFromJson(R"([{"subject":"x"}])"));
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument, hypothesesFromJson(R"([{"subject":"x","direction":"up","size_pct":-1}])"));
    }

    void hypothesisEvaluation()
    {
        // Fused: GEMM +1%, ReLU gone, iterations ~22% faster.
        const auto a = indexCompareSession(loop(12, "gemm_kernel", 1000, 300), "a");
        const auto b = indexCompareSession(loop(12, "gemm_relu_epilogue", 1010, 0, false), "b");
        const std::vector<Hypothesis> hs {parseHypothesis("latency:down:20"), parseHypothesis("latency:down:60"),
            parseHypothesis("latency:up"), parseHypothesis("time@relu_kernel:down"),
            parseHypothesis("time@epilogue:same"), parseHypothesis("dram__bytes.sum:down"),
            parseHypothesis("time@nothing:down")};
        VerdictRule rule;
        rule.thresholdPct = 2;
        CompareOptions options;
        options.rule = rule;
        const auto c = compareSessions(a, b, options, {}, hs);
        QCOMPARE(c.hypotheses.size(), hs.size());
        const auto held = [&](size_t i) { return c.hypotheses[i].evaluated && c.hypotheses[i].held; };
        QVERIFY2(held(0), c.hypotheses[0].text.c_str());  // -22% >= half of 20%
        QVERIFY2(!held(1), c.hypotheses[1].text.c_str()); // -22% < half of 60%
        QVERIFY(c.hypotheses[1].evaluated);
        QVERIFY(!held(2));
        QVERIFY2(held(3), c.hypotheses[3].text.c_str()); // only in A: -100%
        QCOMPARE(c.hypotheses[3].observedPct, -100.0);
        QVERIFY2(held(4), c.hypotheses[4].text.c_str()); // +1%, below the 2% threshold
        QVERIFY(!c.hypotheses[5].evaluated);             // no metrics in these sessions
        QVERIFY(QString::fromStdString(c.hypotheses[5].text).contains("not collected"));
        QVERIFY(!c.hypotheses[6].evaluated);
    }

    void saveHypothesesInSession()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("b.wscope"));
        QVERIFY(QFile::copy(fixture("metrics/copy.wscope"), path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        std::map<std::string, int64_t> before;
        {
            const SessionReader r(path.toStdString());
            before = r.tableCounts();
        }
        const std::vector<Hypothesis> list {parseHypothesis("latency:down:5"), parseHypothesis("time@copy:down")};
        saveHypotheses(path.toStdString(), list);
        const SessionReader r(path.toStdString());
        auto after = r.tableCounts();
        QCOMPARE(after.at("meta"), before.at("meta") + 1); // one row added, every other table as it was
        after.erase("meta");
        before.erase("meta");
        QCOMPARE(after, before);
        QCOMPARE(r.meta().at(kHypothesesMetaKey), hypothesesToJson(list));
        const auto s = loadCompareSession(path.toStdString());
        QCOMPARE(storedHypotheses(s), list);
        // Nothing left beside the session.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList {QStringLiteral("b.wscope")});
        // Not a session: refused, file untouched.
        const QString text = dir.filePath(QStringLiteral("notes.txt"));
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello");
        f.close();
        QVERIFY_THROWS_EXCEPTION(SessionError, saveHypotheses(text.toStdString(), list));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("hello"));
    }

    // The CLI and the compare window load multi-run sessions alike: the trace run's launches
    // only (a replayed or sampled launch has no real timing), the profile's metrics on them.
    void multiRunSessionsCompareTheirTraceRuns()
    {
        const auto s = loadCompareSession(fixture("multirun/h200-gemm-relu-3runs.wscope").toStdString());
        QCOMPARE(s.launches.size(), size_t(50)); // trace 50, not + 14 profiled + 1 sampled
        QVERIFY(std::all_of(s.data.kernels.begin(), s.data.kernels.end(), [](const auto& k) { return k.runId == 1; }));
        const auto c
            = compareSessions(s, loadCompareSession(fixture("multirun/h200-gemm-relu-3runs.wscope").toStdString()));
        size_t gemms = 0;
        for (const auto& r : c.kernels)
            gemms += r.name.rfind("nvjet", 0) == 0 ? r.countA : 0;
        QCOMPARE(gemms, size_t(24));
        // A single-run session is untouched.
        SessionData one = SessionReader(fixture("recorder/sessions/gemm_relu.wscope").toStdString()).readAll();
        const size_t kernels = one.kernels.size();
        QCOMPARE(timingRuns(std::move(one)).kernels.size(), kernels);
    }

    void realRecordingVsProfile()
    {
        // The H200 recording of the example against its profiled run: the profile session has
        // no NVTX paths, so kernels match by name; the GEMM and ReLU pair up.
        auto a = loadCompareSession(fixture("recorder/sessions/gemm_relu.wscope").toStdString());
        auto b = loadCompareSession(fixture("metrics/gemm_relu.wscope").toStdString());
        QVERIFY(!alignKeys(a, b).empty());
        const auto c = compareSessions(a, b);
        QVERIFY(c.matching.unmatchedA.empty());
        QVERIFY(c.matching.unmatchedB.empty());
        QCOMPARE(c.kernels.size(), size_t(3)); // fill, nvjet GEMM, relu
        const KernelRow* gemm = nullptr;
        for (const auto& r : c.kernels) {
            if (r.name.rfind("nvjet", 0) == 0)
                gemm = &r;
        }
        QVERIFY(gemm);
        QCOMPARE(gemm->countA, size_t(24)); // check + 3 warm-up + 20 timed
        QCOMPARE(gemm->countB, size_t(6));  // check + 1 warm-up + 4 timed
        QVERIFY(gemm->medianA > 150000 && gemm->medianA < 200000);
        // Metrics exist on B only: no metric rows, and a metric prediction says so.
        QVERIFY(compareMetrics(a, b, *gemm).empty());
        QVERIFY(!keyMetrics(b, static_cast<uint32_t>(gemm->keyB)).empty());
    }

    void realProfileAgainstItself()
    {
        const auto a = loadCompareSession(fixture("metrics/gemm_relu.wscope").toStdString());
        const auto b = loadCompareSession(fixture("metrics/gemm_relu.wscope").toStdString());
        const auto c = compareSessions(a, b, {}, {}, {parseHypothesis("dram__bytes_read.sum@relu:same")});
        QCOMPARE(c.overall, VerdictKind::NoChange);
        QCOMPARE(c.verdict.changePct, 0.0);
        for (const auto& r : c.kernels) {
            QVERIFY(r.matched());
            QCOMPARE(r.kind, MatchKind::Exact);
            QCOMPARE(r.diffNs, 0.0);
            const auto metrics = compareMetrics(a, b, r);
            QVERIFY(metrics.size() > 100);
            for (const auto& m : metrics) {
                QCOMPARE(m.diff, 0.0);
                QCOMPARE(m.better, 0);
            }
        }
        QVERIFY2(c.hypotheses[0].evaluated && c.hypotheses[0].held, c.hypotheses[0].text.c_str());
    }

    void metricPreferences()
    {
        QCOMPARE(metricPreference("gpu__time_duration.sum", "nsecond"), -1);
        QCOMPARE(metricPreference("dram__bytes_read.sum", "byte"), -1);
        QCOMPARE(metricPreference("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%"), 1);
        QCOMPARE(metricPreference("sm__warps_active.avg.pct_of_peak_sustained_active", "%"), 1);
        QCOMPARE(metricPreference("launch__grid_size", ""), 0);
        QCOMPARE(metricPreference("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active", "inst"), -1);
        QCOMPARE(metricPreference("smsp__issue_active.avg.pct_of_peak_sustained_active", "%"), 1);
    }

    void reportFormats()
    {
        const auto a = indexCompareSession(loop(10, "gemm_kernel", 1000, 300), "a.wscope");
        const auto b = indexCompareSession(loop(10, "gemm_relu_epilogue", 1010, 0, false), "b.wscope");
        const auto c = compareSessions(a, b, {}, {}, {parseHypothesis("latency:down")});
        std::ostringstream text, csv, json;
        writeComparison(text, c, CompareFormat::Text);
        writeComparison(csv, c, CompareFormat::Csv);
        writeComparison(json, c, CompareFormat::Json);
        QVERIFY(QString::fromStdString(text.str()).contains("Verdict: B is"));
        QVERIFY(QString::fromStdString(text.str()).contains("threshold 2.0%"));
        QVERIFY(QString::fromStdString(csv.str()).startsWith("Verdict,Source,Change (%)"));
        QVERIFY(QString::fromStdString(csv.str()).contains("relu_kernel,timed loop / relu,only A,10,0"));
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(json.str()));
        QVERIFY(doc.isObject());
        const auto o = doc.object();
        QCOMPARE(o.value("verdict").toString(), QStringLiteral("faster"));
        QCOMPARE(o.value("regression").toBool(), false);
        QCOMPARE(o.value("kernels").toArray().size(), 3);
        QCOMPARE(o.value("hypotheses").toArray().at(0).toObject().value("held").toBool(), true);
        QVERIFY(o.value("latency").toObject().value("p_value").toDouble() < 0.05);
        // Unmatched kernels have no B median: null, not NaN.
        bool sawNull = false;
        for (const auto& k : o.value("kernels").toArray())
            sawNull |= k.toObject().value("median_b_ns").isNull();
        QVERIFY(sawNull);
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"

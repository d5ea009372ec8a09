// SPDX-License-Identifier: MIT
// "Run again" in the compare window (issue 17): a chain of attempts C ← B ← A (each session
// names its predecessor in meta) shown in the header and stepped through pair by pair, with a
// missing, unreadable or looping predecessor said rather than crashed on; and two multi-run
// sessions (trace + profile + PC sampling) compared by their traced launches, with the metric
// deltas of the profiled launches linked to them and the roofline arrows.
#include "core/compare/comparison.h"
#include "core/metrics/metricnames.h"
#include "core/metrics/sessionmeta.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "ui/compare/attemptchain.h"
#include "ui/compare/comparedocument.h"
#include "ui/compare/comparekernelmodel.h"
#include "ui/compare/comparemetricmodel.h"
#include "ui/compare/compareplots.h"
#include "ui/compare/comparewindow.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace ws;

namespace {

QString fixture(const char* rel)
{
    return QStringLiteral(WS_FIXTURES_DIR "/") + QLatin1String(rel);
}

// A copy of `source` with meta predecessor = `predecessor` (none when empty).
void writeAttempt(const QString& source, const QString& path, const QString& predecessor)
{
    SessionData data = SessionReader(source.toStdString()).readAll();
    if (!predecessor.isEmpty())
        data.meta[metakey::kPredecessor] = predecessor.toStdString();
    SessionWriter w(path.toStdString());
    w.write(data);
    w.commit();
}

bool waitLoaded(CompareWindow& w)
{
    return QTest::qWaitFor([&] { return !w.document()->isLoading(); }, 60000) && w.document()->hasComparison()
        && w.document()->lastError().isEmpty();
}

} // namespace

class TestCompareChain : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_a, m_b, m_c;

    // WS_SCREENSHOT_DIR keeps the picture (docs/screenshots/loop-compare-chain.png).
    void shoot(QWidget* w, const QString& name)
    {
        QVERIFY(QTest::qWaitForWindowExposed(w));
        // Pending layout and resize events, delivered now (grab() paints synchronously).
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR", m_dir.path());
        QVERIFY(w->grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png")));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_a = m_dir.filePath(QStringLiteral("A.wscope"));
        m_b = m_dir.filePath(QStringLiteral("B.wscope"));
        m_c = m_dir.filePath(QStringLiteral("C.wscope"));
        // Three attempts at one program: the ReLU at 256 threads, then 1024, then 256 again.
        writeAttempt(fixture("compare/rec-relu256.wscope"), m_a, {});
        writeAttempt(fixture("compare/rec-relu1024.wscope"), m_b, m_a);
        writeAttempt(fixture("compare/rec-relu256.wscope"), m_c, m_b);
    }

    void chainFollowsThePredecessors()
    {
        const AttemptChain chain = AttemptChain::resolve(m_c);
        QCOMPARE(chain.size(), 3);
        QCOMPARE(chain.attempts[0].path, m_c);
        QCOMPARE(chain.attempts[1].path, m_b);
        QCOMPARE(chain.attempts[2].path, m_a);
        QVERIFY(chain.hasPair(0) && chain.hasPair(1) && !chain.hasPair(2));
        QCOMPARE(chain.describe(0), QStringLiteral("attempt 3 of 3: C.wscope ← B.wscope ← A.wscope"));
        QCOMPARE(chain.describe(1), QStringLiteral("attempt 2 of 3: C.wscope ← B.wscope ← A.wscope"));
        QCOMPARE(AttemptChain::resolve(m_a).size(), 1);
        QVERIFY(AttemptChain::resolve(m_a).describe(0).isEmpty());
    }

    void windowStepsThroughThePairs()
    {
        CompareWindow w;
        w.resize(1500, 950);
        w.show();
        w.open(m_b, m_c);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.chainLabel()->text(), QStringLiteral("attempt 3 of 3: C.wscope ← B.wscope ← A.wscope"));
        shoot(&w, QStringLiteral("loop-compare-chain"));
        QVERIFY(!w.chainLabel()->isHidden());
        QVERIFY(w.previousPairButton()->isEnabled());
        QVERIFY(!w.nextPairButton()->isEnabled());
        const auto bVersusC = w.document()->comparison().verdict.changePct;

        // ◀ previous pair: A vs B.
        QTest::mouseClick(w.previousPairButton(), Qt::LeftButton);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.document()->pathA(), m_a);
        QCOMPARE(w.document()->pathB(), m_b);
        QCOMPARE(w.chainIndex(), 1);
        QCOMPARE(w.chainLabel()->text(), QStringLiteral("attempt 2 of 3: C.wscope ← B.wscope ← A.wscope"));
        QVERIFY(!w.previousPairButton()->isEnabled()); // A is the first attempt
        QVERIFY(w.nextPairButton()->isEnabled());
        // 1024 threads per block made the ReLU slower, going back to 256 made it faster.
        QCOMPARE(w.document()->comparison().overall, compare::VerdictKind::Slower);
        QVERIFY(w.document()->comparison().verdict.changePct * bVersusC < 0);
        QVERIFY(w.verdictLabel()->text().contains("SLOWER"));

        // next pair ▶: back to B vs C, the chain still the whole one.
        QTest::mouseClick(w.nextPairButton(), Qt::LeftButton);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.document()->pathA(), m_b);
        QCOMPARE(w.document()->pathB(), m_c);
        QCOMPARE(w.chainIndex(), 0);
        QCOMPARE(w.chain().size(), 3);
        QVERIFY(!w.nextPairButton()->isEnabled());

        // Two sessions picked by hand that are not a step of the chain: said so.
        w.open(m_a, m_c);
        QVERIFY(waitLoaded(w));
        QVERIFY2(w.chainLabel()->text().contains("A is not B's predecessor"), qPrintable(w.chainLabel()->text()));
    }

    void missingOrBrokenPredecessorsAreSaid()
    {
        QTemporaryDir dir;
        const QString b = dir.filePath(QStringLiteral("B.wscope"));
        const QString c = dir.filePath(QStringLiteral("C.wscope"));
        const QString gone = dir.filePath(QStringLiteral("gone.wscope"));
        writeAttempt(fixture("compare/rec-relu1024.wscope"), b, gone);
        writeAttempt(fixture("compare/rec-relu256.wscope"), c, b);
        CompareWindow w;
        w.open(b, c);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.chain().size(), 3);
        QVERIFY(!w.chain().attempts[2].ok());
        QVERIFY2(w.chainLabel()->text().contains(QStringLiteral("gone.wscope (missing: %1)").arg(gone)),
            qPrintable(w.chainLabel()->text()));
        QVERIFY(!w.previousPairButton()->isEnabled());
        QVERIFY(w.previousPairButton()->toolTip().contains("missing"));
        w.previousPair(); // does nothing
        QCOMPARE(w.document()->pathA(), b);

        // A predecessor that is not a session: the reason, no crash.
        {
            QFile f(gone);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("definitely not SQLite");
        }
        const AttemptChain broken = AttemptChain::resolve(c);
        QCOMPARE(broken.size(), 3);
        QVERIFY2(broken.attempts[2].error.startsWith("cannot be read"), qPrintable(broken.attempts[2].error));

        // A loop (B names C, C names B) ends where it started.
        writeAttempt(fixture("compare/rec-relu1024.wscope"), b, c);
        const AttemptChain loop = AttemptChain::resolve(c);
        QCOMPARE(loop.size(), 2);
        QVERIFY(loop.hasPair(0));
    }

    void multiRunSessionsCompareTheirTracedLaunches()
    {
        // Two copies of the H200 trace + profile + PC-sampling session: "Run again" of it.
        QTemporaryDir dir;
        const QString oldPath = dir.filePath(QStringLiteral("old.wscope"));
        const QString newPath = dir.filePath(QStringLiteral("new.wscope"));
        QVERIFY(QFile::copy(fixture("multirun/h200-gemm-relu-3runs.wscope"), oldPath));
        writeAttempt(fixture("multirun/h200-gemm-relu-3runs.wscope"), newPath, oldPath);
        CompareWindow w;
        w.resize(1500, 950);
        w.show();
        w.open(oldPath, newPath);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.chainLabel()->text(), QStringLiteral("attempt 2 of 2: new.wscope ← old.wscope"));

        const compare::Comparison& c = w.document()->comparison();
        // The verdict and its confidence interval, on the traced launches.
        QVERIFY(!c.overallText.empty());
        QVERIFY(w.verdictLabel()->text().contains(QString::fromStdString(c.overallText).toHtmlEscaped().left(20)));
        QVERIFY(c.verdict.ratio.valid);
        QVERIFY(c.verdict.ratio.low <= c.verdict.ratio.ratio && c.verdict.ratio.ratio <= c.verdict.ratio.high);
        // Matched kernels count the trace's launches only: 24 GEMMs, not 24 + 6 replayed + 1 sampled
        // (rows are per NVTX path: setup, warmup, iterations, check).
        const auto& s = w.document()->sessions();
        size_t gemmsA = 0, gemmsB = 0;
        int gemmRow = -1;
        for (size_t i = 0; i < c.kernels.size(); ++i) {
            const auto& row = c.kernels[i];
            QVERIFY(row.matched());
            if (row.name.find("nvjet_sm90") == std::string::npos)
                continue;
            gemmsA += row.countA;
            gemmsB += row.countB;
            const auto launches = s.a.launchesOf(static_cast<uint32_t>(row.keyA));
            const bool profiled = std::any_of(launches.begin(), launches.end(),
                [&](size_t l) { return s.a.metrics.find(s.a.launches[l].id) != nullptr; });
            if (profiled && (gemmRow < 0 || row.countA > c.kernels[static_cast<size_t>(gemmRow)].countA))
                gemmRow = static_cast<int>(i);
        }
        QCOMPARE(gemmsA, size_t(24));
        QCOMPARE(gemmsB, size_t(24));
        QVERIFY(gemmRow >= 0);
        QCOMPARE(w.kernelModel()->rowCount(), static_cast<int>(c.kernels.size()));

        // Metric deltas of the GEMM: the profiled launches' metrics, shown on the traced ones.
        for (const auto& k : s.a.metrics.kernels()) {
            QVERIFY(k.measuredKernelId != k.launch.id); // measured on a profiled launch, shown on a traced one
            QVERIFY(k.launch.runId == 1 && k.launch.id <= 50);
            QVERIFY(k.metricsRunId == 2 || k.metricsRunId == 3);
        }
        w.selectKernelRow(gemmRow);
        const auto& rows = w.metricModel()->rows();
        QVERIFY(!rows.empty());
        const auto sm = std::find_if(
            rows.begin(), rows.end(), [](const compare::MetricRow& r) { return r.name == metric::kSmThroughput; });
        QVERIFY(sm != rows.end());
        std::vector<double> expected;
        for (size_t l : s.a.launchesOf(static_cast<uint32_t>(c.kernels[static_cast<size_t>(gemmRow)].keyA))) {
            if (const auto* k = s.a.metrics.find(s.a.launches[l].id))
                expected.push_back(*k->metrics.get(metric::kSmThroughput));
        }
        QVERIFY(!expected.empty());
        std::sort(expected.begin(), expected.end());
        const size_t n = expected.size();
        QCOMPARE(sm->valueA, n % 2 ? expected[n / 2] : (expected[n / 2 - 1] + expected[n / 2]) / 2);
        QCOMPARE(sm->valueB, sm->valueA);
        QCOMPARE(sm->diff, 0.0);
        // And the roofline: one arrow per matched profiled kernel.
        QVERIFY(w.rooflinePlot()->arrowCount() >= 1);
    }

    // The real thing, recorded on the H200 by scripts/device/jobs/loop.sh: a trace with
    // "collect metrics" and "sample stall reasons" of GEMM launch #9 (loop.wscope), then
    // `rerun` of it (loop-2.wscope, what "Run again" runs; its predecessor is the H200's path,
    // absent here). The unchanged program compares as no significant change, the GEMM's metric
    // deltas come from the two collected launches, and the roofline has its arrow.
    void runAgainPairFromTheH200()
    {
        QTemporaryDir dir;
        const QString oldPath = dir.filePath(QStringLiteral("loop.wscope"));
        const QString newPath = dir.filePath(QStringLiteral("loop-2.wscope"));
        QVERIFY(QFile::copy(fixture("loop/loop.wscope"), oldPath));
        QVERIFY(QFile::copy(fixture("loop/loop-2.wscope"), newPath));
        QVERIFY(SessionReader(newPath.toStdString()).meta().count(metakey::kPredecessor));
        CompareWindow w;
        w.resize(1600, 1000);
        w.show();
        w.open(oldPath, newPath);
        QVERIFY(waitLoaded(w));
        const compare::Comparison& c = w.document()->comparison();
        QVERIFY2(w.verdictLabel()->text().contains(QStringLiteral("no significant change")),
            qPrintable(w.verdictLabel()->text()));
        QVERIFY(c.verdict.ratio.low <= 1.0 && 1.0 <= c.verdict.ratio.high);
        // Rows are per NVTX path; launch #9 is the third GEMM of the 3-launch warm-up.
        const auto& s = w.document()->sessions();
        int gemmRow = -1;
        for (size_t i = 0; i < c.kernels.size() && gemmRow < 0; ++i) {
            for (size_t l : s.a.launchesOf(static_cast<uint32_t>(c.kernels[i].keyA))) {
                if (s.a.launches[l].id == 9)
                    gemmRow = static_cast<int>(i);
            }
        }
        QVERIFY(gemmRow >= 0);
        QVERIFY(c.kernels[static_cast<size_t>(gemmRow)].name.find("nvjet_sm90") != std::string::npos);
        QCOMPARE(c.kernels[static_cast<size_t>(gemmRow)].countA, size_t(3));
        w.selectKernelRow(gemmRow);
        const auto& rows = w.metricModel()->rows();
        const auto sm = std::find_if(
            rows.begin(), rows.end(), [](const compare::MetricRow& r) { return r.name == metric::kSmThroughput; });
        QVERIFY(sm != rows.end());
        QVERIFY(sm->valueA > 50 && sm->valueB > 50); // the GEMM is tensor-bound on both sides
        QVERIFY(std::abs(sm->valueB - sm->valueA) < 5);
        QVERIFY(w.rooflinePlot()->arrowCount() >= 1);
        shoot(&w, QStringLiteral("loop-run-again-compare"));
    }
};

QTEST_MAIN(TestCompareChain)
#include "tst_comparechain.moc"

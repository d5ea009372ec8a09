// SPDX-License-Identifier: MIT
// Statistics of `warpscope-cli compare` against reference values computed once with SciPy
// 1.10.1 / NumPy 1.24.2 by tests/fixtures/compare/reference.py (its output is
// tests/fixtures/compare/reference.json; the numbers below are copied from it):
// - u1, p: scipy.stats.mannwhitneyu(a, b), defaults (two-sided, continuity correction, exact
//   when a sample has <= 8 values and there are no ties).
// - ci: the same seeded bootstrap re-implemented in Python (mt19937_64, numpy medians and
//   percentiles): must agree to rounding.
// - scipy ci: scipy.stats.bootstrap(method='percentile', 20000 resamples, its own generator): an
//   independent estimate of the same interval, agreeing within Monte Carlo error (1%, 5% for
//   five-value samples).
// The last case is real: per-call samples of the H200 bench fixture, serialized (A) vs PDL (B).
#include "core/bench/benchresult.h"
#include "core/compare/comparestats.h"
#include "core/store/sessionreader.h"

#include <QtTest>

#include <cmath>

using namespace ws;
using namespace ws::compare;

using Samples = std::vector<double>;
Q_DECLARE_METATYPE(Samples)

namespace {

bool closeRel(double got, double want, double rel)
{
    if (want == 0)
        return std::fabs(got) <= rel;
    return std::fabs(got - want) <= rel * std::fabs(want);
}

#define VERIFY_REL(got, want, rel)                                                                                     \
    QVERIFY2(closeRel((got), (want), (rel)),                                                                           \
        qPrintable(QStringLiteral("%1 = %2, expected %3").arg(#got).arg((got), 0, 'g', 17).arg((want), 0, 'g', 17)))

// The serialized (A) and PDL (B) per-call samples of the bench fixture, in round/call order.
std::pair<Samples, Samples> pdlFixture()
{
    const std::string path = WS_FIXTURES_DIR "/bench/h200-pdl-1M.wscope";
    const SessionReader reader(path);
    const auto result = bench::benchResultFromSession(reader.readAll(), path);
    Samples a, b;
    for (const auto& run : result.runs) {
        Samples& into = run.implementation == "serialized" ? a : b;
        for (const auto& round : run.calls)
            into.insert(into.end(), round.begin(), round.end());
    }
    return {a, b};
}

} // namespace

class TestCompareStats : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void reference_data()
    {
        QTest::addColumn<Samples>("a");
        QTest::addColumn<Samples>("b");
        QTest::addColumn<double>("u1");
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("ratio");
        QTest::addColumn<double>("ciLow");
        QTest::addColumn<double>("ciHigh");
        QTest::addColumn<double>("scipyLow");
        QTest::addColumn<double>("scipyHigh");
        const auto cases = namedCases();
        QTest::newRow("exact_5_6") << cases.at("exact_5_6").first << cases.at("exact_5_6").second << 3.0
                                   << 0.030303030303030304 << 2.3142857142857145 << 1.2850931677018644
                                   << 7.454545454545453 << 1.2608695652173914 << 7.363636363636364;
        QTest::newRow("exact_8_30") << cases.at("exact_8_30").first << cases.at("exact_8_30").second << 44.0
                                    << 0.005117589557817262 << 1.0347352666418892 << 1.0093099617086283
                                    << 1.059363585556855 << 1.0092859350233767 << 1.0588899148455937;
        QTest::newRow("ties_small") << cases.at("ties_small").first << cases.at("ties_small").second << 4.5
                                    << 0.06414661873440437 << 2.75 << 1.0 << 5.5 << 1.0 << 5.5;
        QTest::newRow("asymptotic_40_50") << cases.at("asymptotic_40_50").first << cases.at("asymptotic_40_50").second
                                          << 352.0 << 1.458444648282851e-07 << 1.0261179960282547 << 1.014248436577851
                                          << 1.0399117053481333 << 1.014133040351578 << 1.0397833679202308;
        QTest::newRow("same_distribution_60_60")
            << cases.at("same_distribution_60_60").first << cases.at("same_distribution_60_60").second << 1810.5
            << 0.9581410684913038 << 0.9996889767334531 << 0.9901144039804891 << 1.0071119731684648
            << 0.9902367901649807 << 1.0073184324183593;
        QTest::newRow("heavy_ties_30_30")
            << cases.at("heavy_ties_30_30").first << cases.at("heavy_ties_30_30").second << 344.5 << 0.1103321231530292
            << 1.0 << 0.9166666666666666 << 1.1363636363636365 << 0.9166666666666666 << 1.1363636363636365;
        const auto [a, b] = pdlFixture();
        QTest::newRow("h200_pdl_vs_serialized")
            << a << b << 984099.5 << 7.250452547997208e-308 << 0.907834134448703 << 0.9057471435091834
            << 0.9099307039826608 << 0.9057471435091834 << 0.9099307039826608;
    }

    void reference()
    {
        QFETCH(Samples, a);
        QFETCH(Samples, b);
        QFETCH(double, u1);
        QFETCH(double, p);
        QFETCH(double, ratio);
        QFETCH(double, ciLow);
        QFETCH(double, ciHigh);
        QFETCH(double, scipyLow);
        QFETCH(double, scipyHigh);

        const MannWhitney mw = mannWhitneyU(a, b);
        QVERIFY(mw.valid);
        QCOMPARE(mw.u1, u1);
        QCOMPARE(mw.u1 + mw.u2, double(a.size()) * double(b.size()));
        VERIFY_REL(mw.pValue, p, 1e-9);
        const bool hasTies = QByteArray(QTest::currentDataTag()).contains("ties");
        QCOMPARE(mw.exact, (a.size() <= 8 || b.size() <= 8) && !hasTies);

        const RatioInterval ci = bootstrapMedianRatio(a, b);
        QVERIFY(ci.valid);
        VERIFY_REL(ci.ratio, ratio, 1e-12);
        VERIFY_REL(ci.low, ciLow, 1e-12);
        VERIFY_REL(ci.high, ciHigh, 1e-12);
        // Two generators, one interval: Monte Carlo error, larger where five values make the
        // bootstrap distribution of the median a handful of discrete steps.
        const double mc = std::min(a.size(), b.size()) < 8 ? 0.05 : 0.01;
        VERIFY_REL(ci.low, scipyLow, mc);
        VERIFY_REL(ci.high, scipyHigh, mc);
        QVERIFY(ci.low <= ci.ratio && ci.ratio <= ci.high);
    }

    void symmetry()
    {
        // Swapping the samples swaps U1 and U2 and keeps the two-sided p.
        const auto [a, b] = pdlFixture();
        const auto ab = mannWhitneyU(a, b);
        const auto ba = mannWhitneyU(b, a);
        QCOMPARE(ab.u1, ba.u2);
        QCOMPARE(ab.pValue, ba.pValue);
    }

    void exactDistribution_data()
    {
        QTest::addColumn<int>("u");
        QTest::addColumn<int>("n1");
        QTest::addColumn<int>("n2");
        QTest::addColumn<double>("sf");
        // Counted by hand: for n1 = n2 = 2 the six orderings give U = 0,1,2,2,3,4.
        QTest::newRow("2x2 U>=0") << 0 << 2 << 2 << 1.0;
        QTest::newRow("2x2 U>=2") << 2 << 2 << 2 << 4.0 / 6;
        QTest::newRow("2x2 U>=4") << 4 << 2 << 2 << 1.0 / 6;
        QTest::newRow("2x2 U>=5") << 5 << 2 << 2 << 0.0;
        // n1 = 1: U is uniform on 0..n2.
        QTest::newRow("1x9 U>=7") << 7 << 1 << 9 << 3.0 / 10;
        // Largest U of 8 vs 30: one ordering in C(38, 8) = 48,903,492.
        QTest::newRow("8x30 U>=240") << 240 << 8 << 30 << 1.0 / 48903492.0;
    }

    void exactDistribution()
    {
        QFETCH(int, u);
        QFETCH(int, n1);
        QFETCH(int, n2);
        QFETCH(double, sf);
        VERIFY_REL(mannWhitneyExactSf(u, n1, n2), sf, 1e-12);
        VERIFY_REL(mannWhitneyExactSf(u, n2, n1), sf, 1e-12);
    }

    void degenerate()
    {
        QVERIFY(!mannWhitneyU({}, Samples {1.0}).valid);
        QVERIFY(!bootstrapMedianRatio(Samples {}, Samples {1.0}).valid);
        QVERIFY(!bootstrapMedianRatio(Samples {0.0, 0.0}, Samples {1.0}).valid); // median(A) = 0
        // All values equal: no evidence of a difference.
        const auto same = mannWhitneyU(Samples(20, 3.0), Samples(20, 3.0));
        QCOMPARE(same.pValue, 1.0);
        // The bootstrap is deterministic for a seed and moves with it.
        const Samples a {10, 11, 12, 13, 14, 15, 16, 17, 30};
        const Samples b {11, 12, 13, 14, 15, 16, 17, 18, 19};
        const auto r1 = bootstrapMedianRatio(a, b, 0.95, 500, 42);
        const auto r2 = bootstrapMedianRatio(a, b, 0.95, 500, 42);
        QCOMPARE(r1.low, r2.low);
        QCOMPARE(r1.high, r2.high);
    }

    void verdict_data()
    {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<double>("threshold");
        QTest::addColumn<bool>("swap");
        QTest::addColumn<int>("kind");
        // asymptotic_40_50: B +2.6% (CI [1.4%, 3.9%], p 1.5e-7).
        QTest::newRow("slower above 2%") << "asymptotic_40_50" << 2.0 << false << int(VerdictKind::Slower);
        QTest::newRow("not beyond 5%") << "asymptotic_40_50" << 5.0 << false << int(VerdictKind::NoChange);
        QTest::newRow("faster when swapped") << "asymptotic_40_50" << 2.0 << true << int(VerdictKind::Faster);
        QTest::newRow("null pair") << "same_distribution_60_60" << 0.0 << false << int(VerdictKind::NoChange);
        // Medians equal, p 0.11: not significant whatever the threshold.
        QTest::newRow("heavy ties") << "heavy_ties_30_30" << 0.0 << false << int(VerdictKind::NoChange);
        // PDL is 9.2% faster than serialized on the H200.
        QTest::newRow("h200 pdl faster") << "h200" << 2.0 << false << int(VerdictKind::Faster);
        QTest::newRow("h200 serialized slower") << "h200" << 2.0 << true << int(VerdictKind::Slower);
        QTest::newRow("h200 below a 10% bar") << "h200" << 10.0 << false << int(VerdictKind::NoChange);
        QTest::newRow("too few") << "one" << 2.0 << false << int(VerdictKind::TooFewSamples);
    }

    void verdict()
    {
        QFETCH(QString, caseName);
        QFETCH(double, threshold);
        QFETCH(bool, swap);
        QFETCH(int, kind);
        Samples a, b;
        if (caseName == "h200") {
            std::tie(a, b) = pdlFixture();
        } else if (caseName == "one") {
            a = {1.0, 2.0};
            b = {3.0};
        } else {
            const auto cases = namedCases();
            a = cases.at(caseName.toStdString()).first;
            b = cases.at(caseName.toStdString()).second;
        }
        if (swap)
            std::swap(a, b);
        VerdictRule rule;
        rule.thresholdPct = threshold;
        const Verdict v = decide(a, b, rule);
        QCOMPARE(int(v.kind), kind);
        // The verdict states the rule it applied.
        if (v.kind != VerdictKind::TooFewSamples) {
            QVERIFY2(
                v.text.find("threshold " + QString::number(threshold, 'f', 1).toStdString() + "%") != std::string::npos,
                v.text.c_str());
            QVERIFY(v.text.find("Mann-Whitney p") != std::string::npos);
        }
    }

private:
    static std::map<std::string, std::pair<Samples, Samples>> namedCases();
};

std::map<std::string, std::pair<Samples, Samples>> TestCompareStats::namedCases()
{
    return {
        {"exact_5_6", {Samples {1.1, 2.3, 3.5, 4.2, 5.0}, Samples {2.9, 6.1, 7.4, 8.8, 9.0, 10.2}}},
        {"exact_8_30",
            {Samples {98.278, 101.208, 100.806, 104.839, 97.47, 95.111, 98.793, 100.313},
                Samples {102.973, 101.725, 101.007, 108.758, 103.447, 99.942, 100.853, 103.049, 108.168, 99.027, 105.32,
                    104.962, 100.428, 103.601, 101.764, 102.907, 104.006, 107.48, 100.174, 108.456, 102.012, 103.46,
                    97.844, 100.463, 106.504, 101.636, 103.898, 108.197, 104.551, 100.497}}},
        {"ties_small", {Samples {1.0, 2.0, 2.0, 3.0, 4.0}, Samples {2.0, 3.0, 5.0, 6.0, 6.0, 7.0}}},
        {"asymptotic_40_50",
            {Samples {199.96, 197.52, 202.24, 203.18, 200.57, 202.87, 192.69, 193.87, 195.96, 197.43, 207.64, 201.22,
                 194.97, 197.83, 195.82, 191.34, 204.52, 199.42, 198.12, 197.57, 198.15, 200.78, 200.72, 196.96, 198.2,
                 206.69, 200.52, 199.3, 198.07, 190.35, 198.51, 202.3, 196.63, 209.87, 197.84, 205.93, 197.26, 201.32,
                 200.99, 204.23},
                Samples {206.59, 204.25, 206.82, 196.74, 201.66, 208.45, 212.24, 200.81, 208.55, 210.58, 202.09, 200.38,
                    203.2, 202.18, 209.03, 207.46, 199.84, 201.77, 209.45, 211.86, 196.74, 205.23, 201.83, 207.93,
                    203.59, 208.39, 202.0, 205.63, 209.9, 205.31, 203.58, 205.55, 202.88, 202.56, 207.0, 202.89, 205.67,
                    201.96, 214.94, 203.17, 209.16, 203.95, 206.84, 199.7, 203.94, 203.07, 201.66, 211.47, 208.18,
                    196.78}}},
        {"same_distribution_60_60",
            {Samples {49.001, 48.066, 50.874, 49.898, 49.784, 50.123, 49.82, 49.182, 49.492, 50.364, 48.894, 49.262,
                 49.723, 49.466, 48.791, 49.951, 49.846, 49.095, 49.825, 47.186, 48.443, 50.135, 48.968, 51.348, 51.085,
                 49.494, 49.59, 51.452, 48.959, 50.481, 48.973, 49.77, 47.778, 50.242, 50.208, 50.42, 50.268, 52.07,
                 50.241, 50.72, 51.513, 50.484, 50.218, 49.338, 49.743, 48.814, 47.571, 50.489, 52.165, 51.13, 50.124,
                 48.661, 49.238, 49.996, 48.471, 49.948, 50.689, 48.584, 51.413, 50.043},
                Samples {48.199, 50.042, 50.196, 49.846, 49.063, 47.398, 47.844, 48.797, 49.602, 48.521, 49.977, 51.383,
                    51.645, 49.966, 48.124, 51.562, 50.533, 49.563, 49.808, 49.538, 52.039, 49.33, 50.153, 50.185,
                    51.899, 50.828, 49.812, 51.073, 48.952, 48.244, 50.685, 50.041, 50.917, 49.323, 51.754, 48.741,
                    51.307, 49.811, 48.835, 49.209, 50.925, 49.559, 50.004, 50.175, 49.828, 50.804, 50.385, 48.084,
                    49.02, 49.124, 48.843, 50.537, 50.066, 49.419, 49.216, 48.837, 50.209, 51.082, 49.399, 48.351}}},
        {"heavy_ties_30_30",
            {Samples {11.0, 10.0, 12.0, 13.0, 12.0, 13.0, 12.0, 13.0, 11.0, 13.0, 12.0, 13.0, 10.0, 11.0, 10.0, 10.0,
                 12.0, 12.0, 13.0, 11.0, 10.0, 10.0, 13.0, 10.0, 12.0, 11.0, 10.0, 13.0, 10.0, 13.0},
                Samples {11.0, 14.0, 11.0, 14.0, 11.0, 12.0, 11.0, 13.0, 13.0, 11.0, 13.0, 11.0, 12.0, 12.0, 13.0, 12.0,
                    12.0, 12.0, 11.0, 13.0, 11.0, 11.0, 12.0, 14.0, 12.0, 14.0, 11.0, 11.0, 14.0, 11.0}}},
    };
}

QTEST_GUILESS_MAIN(TestCompareStats)
#include "tst_compare_stats.moc"

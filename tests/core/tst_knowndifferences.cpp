// SPDX-License-Identifier: MIT
// core/metrics/knowndifferences: the table the details panels take their "differs from ncu"
// notes from. Parsing (every malformed line named with file and line), lookup by cache control
// and metric, the note's text, and the committed resources/sections/known-differences.tsv against
// the fidelity tables it was written from (docs/evidence).
#include "core/metrics/knowndifferences.h"

#include <QtTest>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

using namespace ws;

class TestKnownDifferences : public QObject {
    Q_OBJECT
private slots:
    void parsesAndFinds()
    {
        const auto d = KnownDifferences::parse("# comment\n"
                                               "none\tdram__bytes_write.sum\t9\t13\t3.9\t947\tdirty lines\n"
                                               "all\tdram__bytes_write.sum\t5\t13\t3.56\t42.4\tnot established\r\n"
                                               "\n",
            "t.tsv");
        QCOMPARE(d.rows().size(), size_t(2));
        const KnownDifference* all = d.find("all", "dram__bytes_write.sum");
        QVERIFY(all);
        QCOMPARE(all->kernels, 5);
        QCOMPARE(all->of, 13);
        QCOMPARE(all->medianPercent, 3.56);
        QCOMPARE(all->maxPercent, 42.4);
        QCOMPARE(QString::fromStdString(all->cause), QStringLiteral("not established"));
        QCOMPARE(d.find("none", "dram__bytes_write.sum")->kernels, 9);
        QVERIFY(!d.find("none", "dram__bytes_read.sum"));
        QVERIFY(!d.find("any", "dram__bytes_write.sum"));
    }

    void rejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("fields") << "all\tm\t1\t2\t1\t2\n"
                                << "t.tsv:1: expected 7 tab-separated fields";
        QTest::newRow("cache") << "# x\nsome\tm\t1\t2\t1\t2\tc\n"
                               << "t.tsv:2: cache control 'some'";
        QTest::newRow("metric") << "all\t\t1\t2\t1\t2\tc\n"
                                << "t.tsv:1: empty metric name";
        QTest::newRow("count") << "all\tm\tx\t2\t1\t2\tc\n"
                               << "t.tsv:1: kernel counts 'x' of '2'";
        QTest::newRow("more than of") << "all\tm\t3\t2\t1\t2\tc\n"
                                      << "t.tsv:1: kernel counts '3' of '2'";
        QTest::newRow("zero kernels") << "all\tm\t0\t2\t1\t2\tc\n"
                                      << "t.tsv:1: kernel counts '0' of '2'";
        QTest::newRow("percent") << "all\tm\t1\t2\tabc\t2\tc\n"
                                 << "t.tsv:1: percentages 'abc'";
        QTest::newRow("median above max") << "all\tm\t1\t2\t5\t2\tc\n"
                                          << "t.tsv:1: percentages '5', '2'";
        QTest::newRow("cause") << "all\tm\t1\t2\t1\t2\t\n"
                               << "t.tsv:1: empty cause";
        QTest::newRow("twice") << "all\tm\t1\t2\t1\t2\tc\nall\tm\t1\t2\t1\t2\tc\n"
                               << "t.tsv: m is listed twice for cache control all";
    }
    void rejects()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        try {
            KnownDifferences::parse(text.toStdString(), "t.tsv");
            QFAIL("parsed");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(message), e.what());
        }
    }

    void missingFile()
    {
        try {
            KnownDifferences::readFile("/nonexistent/known-differences.tsv");
            QFAIL("read");
        } catch (const std::runtime_error& e) {
            QCOMPARE(QString::fromUtf8(e.what()), QStringLiteral("/nonexistent/known-differences.tsv: cannot be read"));
        }
    }

    void note_data()
    {
        QTest::addColumn<QString>("row");
        QTest::addColumn<QString>("note");
        QTest::newRow("several") << "all\tm\t5\t13\t3.56\t42.4\tnot established"
                                 << "Differs from ncu (--cache-control all): on 5 of 13 fidelity-suite kernels (H200), "
                                    "by 3.6 % (median), up to 42 %. Cause: not established.";
        QTest::newRow("one") << "none\tm\t1\t13\t1.25\t1.25\tthe clock"
                             << "Differs from ncu (--cache-control none): on 1 of 13 fidelity-suite kernels (H200), "
                                "by 1.2 %. Cause: the clock.";
    }
    void note()
    {
        QFETCH(QString, row);
        QFETCH(QString, note);
        const auto d = KnownDifferences::parse(row.toStdString(), "t.tsv");
        QCOMPARE(QString::fromStdString(KnownDifferences::note(d.rows().front())), note);
    }

    // The committed table holds exactly the metrics the committed fidelity tables list as
    // disagreeing (FAIL lines), per cache control, with their counts: regenerating it from the
    // evidence (scripts/device/known-differences.py) changes nothing. A kernel measured in more
    // than one table of a cache control counts once, from the last table (a re-run).
    void committedTableMatchesEvidence()
    {
        const std::string root = WS_FIXTURES_DIR "/../..";
        const auto table = KnownDifferences::readFile(KnownDifferences::fileIn(root + "/resources/sections"));
        QVERIFY(table.rows().size() > 20);
        // Per cache control, the tables it pools: the fidelity suite and the PyTorch/Triton suite
        // (re-measured under the corrected `all` replay on 2026-12-03).
        const std::pair<const char*, std::vector<const char*>> sources[] = {
            {"all",
                {"/docs/evidence/2026-12-02-invalidate-fidelity/table-all.md",
                    "/docs/evidence/2026-12-03-fidelity-ops-4/table-all.md",
                    "/docs/evidence/2026-12-03-fidelity-ops-5/table-all.md",
                    "/docs/evidence/2026-12-03-fidelity-ops-6/table-all.md"}},
            // `none` under its default replay (since the evening of 2026-12-04: the first pass with
            // ncu's dirty start), both suites measured on 2026-12-05.
            {"none",
                {"/docs/evidence/2026-12-05-fidelity/table-none.md",
                    "/docs/evidence/2026-12-05-fidelity-ops/table-none.md"}},
        };
        const std::regex fail(R"(^\s+FAIL: (\S+) (\S+) \[)");
        const std::regex longKernel(R"(^\| (\S+) \| yes \| \d+ \| \d+ \|)");
        size_t expected = 0;
        for (const auto& [cache, paths] : sources) {
            std::map<std::string, std::vector<std::string>> byKernel; // kernel -> its FAIL metrics
            for (const char* path : paths) {
                std::ifstream in(root + path);
                QVERIFY2(in, path);
                std::set<std::string> longKernels;
                std::map<std::string, std::vector<std::string>> fails;
                for (std::string line; std::getline(in, line);) {
                    std::smatch m;
                    if (std::regex_search(line, m, fail)) {
                        fails[m[1]].push_back(m[2]);
                    } else if (std::regex_search(line, m, longKernel)) {
                        const std::string name = m[1];
                        longKernels.insert(name.substr(name.find('/') + 1));
                    }
                }
                for (const auto& k : longKernels)
                    byKernel[k] = fails[k];
            }
            std::map<std::string, int> counts;
            for (const auto& [kernel, metrics] : byKernel)
                for (const auto& metric : metrics)
                    ++counts[metric];
            const int kernels = static_cast<int>(byKernel.size());
            QVERIFY(!counts.empty());
            QVERIFY(kernels > 13);
            for (const auto& [metric, n] : counts) {
                const KnownDifference* d = table.find(cache, metric);
                QVERIFY2(d, (std::string(cache) + " " + metric).c_str());
                QCOMPARE(d->kernels, n);
                QCOMPARE(d->of, kernels);
            }
            expected += counts.size();
        }
        QCOMPARE(table.rows().size(), expected);
        // The misc stall that our `all` replay's eviction from a context of its own adds: the cause
        // the evidence established (2026-12-02-fidelity-eviction), not the user replay itself.
        const KnownDifference* misc
            = table.find("all", "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio");
        QVERIFY(misc);
        QVERIFY(misc->cause.find("a CUDA context of its own") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestKnownDifferences)
#include "tst_knowndifferences.moc"

// SPDX-License-Identifier: MIT
// A fleet result (python/warpscope/fleet) read as the heatmap's rank x step grid: the committed
// results of step_time over 8 synthetic ranks (rank 5 planted 25 % slower) and over the real
// 2 x H200 DDP recording, checked cell by cell against the CSV the same run wrote beside them.
#include "core/store/fleetresult.h"

#include <QtTest>

#include <fstream>
#include <map>
#include <sstream>

using namespace ws;

namespace {

std::string fixture(const char* name)
{
    return std::string(WS_FIXTURES_DIR "/fleet/") + name;
}

// CSV rows of step_time: (session, pid, step) -> (step_ns, straggler). Paths have no commas.
std::map<std::tuple<std::string, int64_t, int64_t>, std::pair<double, int>> csvCells(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    std::stringstream hs(line);
    for (std::string h; std::getline(hs, h, ',');)
        header.push_back(h);
    const auto idx = [&](const char* name) { return std::find(header.begin(), header.end(), name) - header.begin(); };
    std::map<std::tuple<std::string, int64_t, int64_t>, std::pair<double, int>> out;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ls(line);
        for (std::string v; std::getline(ls, v, ',');)
            f.push_back(v);
        out[{f[idx("session")], std::stoll(f[idx("pid")]), std::stoll(f[idx("step")])}]
            = {std::stod(f[idx("step_ns")]), std::stoi(f[idx("straggler")])};
    }
    return out;
}

} // namespace

class TestFleetResult : public QObject {
    Q_OBJECT
private slots:
    void synthGridMatchesTheCsvAndMarksThePlantedRank()
    {
        const FleetStepGrid g = readFleetStepGrid(fixture("synth8-step_time.wsfleet"));
        QCOMPARE(g.recipe, std::string("step_time"));
        QCOMPARE(g.ranks.size(), size_t(8));
        QCOMPARE(g.steps.size(), size_t(13));
        QCOMPARE(g.steps.front(), int64_t(-3));
        QCOMPARE(g.steps.back(), int64_t(9));
        for (size_t r = 0; r < g.ranks.size(); ++r)
            QCOMPARE(g.ranks[r].rank, int64_t(r)); // rows in rank order
        const auto cells = csvCells(fixture("synth8-step_time.csv"));
        QCOMPARE(cells.size(), g.values.size());
        int flagged = 0;
        for (size_t r = 0; r < g.ranks.size(); ++r) {
            for (size_t c = 0; c < g.steps.size(); ++c) {
                const auto& [ns, straggler] = cells.at({g.ranks[r].session, g.ranks[r].pid, g.steps[c]});
                QCOMPARE(g.at(r, c), ns);
                QCOMPARE(g.flagged(r, c), straggler != 0);
                flagged += straggler;
                if (straggler)
                    QCOMPARE(g.ranks[r].rank, int64_t(5));
            }
            QCOMPARE(g.ranks[r].straggler, g.ranks[r].rank == 5);
        }
        QCOMPARE(flagged, 13); // every step of rank 5
    }

    void ddpGridHasBothRanksAndNoStraggler()
    {
        const FleetStepGrid g = readFleetStepGrid(fixture("ddp-step_time.wsfleet"));
        QCOMPARE(g.ranks.size(), size_t(2));
        QCOMPARE(g.ranks[0].pid, int64_t(1067));
        QCOMPARE(g.ranks[1].rank, int64_t(1));
        QCOMPARE(g.steps.size(), size_t(13));
        QVERIFY(std::none_of(g.straggler.begin(), g.straggler.end(), [](uint8_t f) { return f != 0; }));
        QVERIFY(std::all_of(g.values.begin(), g.values.end(), [](double v) { return v > 0; }));
    }

    void refusesSessionsAndMissingFiles()
    {
        QVERIFY(!isFleetResultFile(WS_FIXTURES_DIR "/multigpu/ddp-2gpu.wscope"));
        QVERIFY(isFleetResultFile(fixture("ddp-step_time.wsfleet")));
        try {
            readFleetStepGrid(WS_FIXTURES_DIR "/multigpu/ddp-2gpu.wscope");
            QFAIL("a session was read as a fleet result");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("not a Warpscope fleet result") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, readFleetStepGrid(fixture("missing.wsfleet")));
    }
};

QTEST_APPLESS_MAIN(TestFleetResult)
#include "tst_fleetresult.moc"

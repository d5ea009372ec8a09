// SPDX-License-Identifier: MIT
// A fleet result (python/warpscope/fleet) read as the heatmap's rank x step grid: the committed
// results of step_time over 8 synthetic ranks (rank 5 planted 25 % slower) and over the real
// 2 x H200 DDP recording, checked cell by cell against the CSV the same run wrote beside them.
// The other recipes' metrics (kernel_time, comm_overlap, gpu_idle over three rank sessions of
// the DDP recording, rank 2 its rank 0 with every step 25 % slower: tests/fixtures/fleet/README.md)
// against their CSVs, the straggler rule, and the median rank a cell is compared with.
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

// Every row of a CSV as column -> text (the fixtures' fields hold no commas or quotes).
std::vector<std::map<std::string, std::string>> csvRows(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    std::stringstream hs(line);
    for (std::string h; std::getline(hs, h, ',');)
        header.push_back(h);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        std::map<std::string, std::string> row;
        std::stringstream ls(line);
        size_t i = 0;
        for (std::string v; std::getline(ls, v, ',') && i < header.size(); ++i)
            row[header[i]] = v;
        rows.push_back(std::move(row));
    }
    return rows;
}

const FleetStepGrid& metric(const std::vector<FleetStepGrid>& grids, const std::string& key)
{
    for (const FleetStepGrid& g : grids)
        if (g.metric.key == key)
            return g;
    throw std::runtime_error("no metric " + key);
}

std::vector<std::string> keys(const std::vector<FleetStepGrid>& grids)
{
    std::vector<std::string> out;
    for (const FleetStepGrid& g : grids)
        out.push_back(g.metric.key);
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

    void stepTimeOffersKernelTimePerStepFlaggedByTheSameRule()
    {
        const auto grids = readFleetGrids(fixture("synth8-step_time.wsfleet"));
        QCOMPARE(keys(grids), (std::vector<std::string> {"step_time.step_ns", "step_time.kernel_ns"}));
        const FleetStepGrid& steps = grids[0];
        const FleetStepGrid& g = grids[1];
        QCOMPARE(g.metric.columns, FleetColumns::Steps);
        QCOMPARE(g.steps, steps.steps);
        QCOMPARE(g.stepStart, steps.stepStart); // a cell still opens its step
        std::map<std::tuple<std::string, int64_t, int64_t>, double> kernelNs;
        for (const auto& row : csvRows(fixture("synth8-step_time.csv")))
            kernelNs[{row.at("session"), std::stoll(row.at("pid")), std::stoll(row.at("step"))}]
                = std::stod(row.at("kernel_ns"));
        for (size_t r = 0; r < g.ranks.size(); ++r)
            for (size_t c = 0; c < g.steps.size(); ++c)
                QCOMPARE(g.at(r, c), kernelNs.at({g.ranks[r].session, g.ranks[r].pid, g.steps[c]}));
        // The planted rank's kernels ran 25 % longer: flagged in every step, and as a rank.
        for (size_t r = 0; r < g.ranks.size(); ++r) {
            int flagged = 0;
            for (size_t c = 0; c < g.steps.size(); ++c)
                flagged += g.flagged(r, c) ? 1 : 0;
            QCOMPARE(flagged, g.ranks[r].rank == 5 ? 13 : 0);
            QCOMPARE(g.ranks[r].straggler, g.ranks[r].rank == 5);
        }
    }

    void kernelTimeByNameSumsDevicesTopNamesFirst()
    {
        const auto grids = readFleetGrids(fixture("ranks3-kernel_time.wsfleet"));
        QCOMPARE(keys(grids), std::vector<std::string> {"kernel_time.total_ns"});
        const FleetStepGrid& g = grids[0];
        QCOMPARE(g.metric.columns, FleetColumns::Kernels);
        // From the CSV: per (session, pid, name) the sum over devices, and the fleet's top names.
        std::map<std::tuple<std::string, int64_t, std::string>, double> total;
        std::map<std::string, double> fleet;
        for (const auto& row : csvRows(fixture("ranks3-kernel_time.csv"))) {
            total[{row.at("session"), std::stoll(row.at("pid")), row.at("name")}] += std::stod(row.at("total_ns"));
            fleet[row.at("name")] += std::stod(row.at("total_ns"));
        }
        std::vector<std::pair<double, std::string>> order;
        for (const auto& [name, ns] : fleet)
            order.emplace_back(-ns, name);
        std::sort(order.begin(), order.end());
        QCOMPARE(g.columnNames.size(), std::min(kMaxKernelColumns, order.size()));
        for (size_t c = 0; c < g.columnNames.size(); ++c)
            QCOMPARE(g.columnNames[c], order[c].second);
        QCOMPARE(g.ranks.size(), size_t(3));
        for (size_t r = 0; r < g.ranks.size(); ++r) {
            QCOMPARE(g.ranks[r].rank, int64_t(r));
            double sum = 0;
            for (size_t c = 0; c < g.steps.size(); ++c) {
                const auto it = total.find({g.ranks[r].session, g.ranks[r].pid, g.columnNames[c]});
                QCOMPARE(g.at(r, c), it == total.end() ? 0.0 : it->second); // a kernel it never ran: 0
                sum += g.at(r, c);
            }
            QCOMPARE(g.ranks[r].summary, sum); // the rank's total over the shown names
        }
        // Rank 2's kernels are 25 % longer: its two big GEMMs are outliers, on no other rank.
        // As ranks nobody is: rank 1's NCCL all-reduce waited longest (38 ms against 20 and 25),
        // which spreads the three totals too far for one to stand out.
        for (const char* gemm :
            {"nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NTN", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"}) {
            const auto c = static_cast<size_t>(
                std::find(g.columnNames.begin(), g.columnNames.end(), gemm) - g.columnNames.begin());
            QVERIFY(c < g.columnNames.size());
            QVERIFY(g.flagged(2, c) && !g.flagged(0, c) && !g.flagged(1, c));
        }
        QVERIFY(!g.ranks[0].straggler && !g.ranks[1].straggler && !g.ranks[2].straggler);
    }

    void commOverlapAndGpuIdleOneValuePerRank()
    {
        const auto comm = readFleetGrids(fixture("ranks3-comm_overlap.wsfleet"));
        QCOMPARE(keys(comm),
            (std::vector<std::string> {
                "comm_overlap.exposed_comm_ns", "comm_overlap.overlap_pct", "comm_overlap.comm_ns"}));
        const auto idle = readFleetGrids(fixture("ranks3-gpu_idle.wsfleet"));
        QCOMPARE(keys(idle),
            (std::vector<std::string> {
                "gpu_idle.idle_pct", "gpu_idle.idle_ns", "gpu_idle.largest_gap_ns", "gpu_idle.launches_per_s"}));
        // One device per rank in these sessions: each value is the CSV's.
        const auto check = [](const std::vector<FleetStepGrid>& grids, const char* csv) {
            const auto rows = csvRows(fixture(csv));
            for (const FleetStepGrid& g : grids) {
                QCOMPARE(g.metric.columns, FleetColumns::Value);
                QCOMPARE(g.steps.size(), size_t(1));
                const std::string column = g.metric.key.substr(g.metric.key.find('.') + 1);
                QCOMPARE(g.ranks.size(), rows.size());
                for (size_t r = 0; r < rows.size(); ++r) {
                    QCOMPARE(g.ranks[r].session, rows[r].at("session"));
                    QCOMPARE(g.ranks[r].deviceId, std::stoll(rows[r].at("device_id")));
                    const double want = std::stod(rows[r].at(column));
                    QVERIFY2(std::abs(g.at(r, 0) - want) <= 1e-9 * std::abs(want), g.metric.key.c_str());
                    QCOMPARE(g.ranks[r].summary, g.at(r, 0));
                }
            }
        };
        check(comm, "ranks3-comm_overlap.csv");
        check(idle, "ranks3-gpu_idle.csv");
        // Rank 1 overlapped 26 % of its communication, ranks 0 and 2 61 % and 62 %: an outlier
        // where lower is worse, and in exposed communication where higher is.
        const FleetStepGrid& overlap = metric(comm, "comm_overlap.overlap_pct");
        QVERIFY(!overlap.metric.higherIsWorse);
        QCOMPARE(overlap.median[0], overlap.at(0, 0));
        for (const auto* g : {&overlap, &metric(comm, "comm_overlap.exposed_comm_ns")})
            for (size_t r = 0; r < 3; ++r) {
                QCOMPARE(g->flagged(r, 0), r == 1);
                QCOMPARE(g->ranks[r].straggler, r == 1);
            }
    }

    void resultsWithoutPerRankMetricsSaySo()
    {
        try {
            readFleetGrids(fixture("ranks3-top_kernels.wsfleet"));
            QFAIL("top_kernels read as a per-rank metric");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("no per-rank metric") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, readFleetStepGrid(fixture("ranks3-gpu_idle.wsfleet")));
    }

    void robustFlagsFollowTheRecipesRule()
    {
        // numpy.median of an even count is the mean of the middle two; MAD unscaled.
        const RobustFlags even = robustFlags({4, 1, 3, 2}, 5, 0.01, true);
        QCOMPARE(even.median, 2.5);
        QCOMPARE(even.mad, 1.0);
        const RobustFlags f = robustFlags({10, 11, 12, 13, 30, -1}, 5, 0.01, true);
        QCOMPARE(f.median, 12.0);
        QCOMPARE(f.mad, 1.0);
        QCOMPARE(f.flags, (std::vector<uint8_t> {0, 0, 0, 0, 1, 0})); // -1: missing, never flagged
        const RobustFlags low = robustFlags({100, 100, 101, 99, 60}, 5, 0.01, false);
        QCOMPARE(low.flags, (std::vector<uint8_t> {0, 0, 0, 0, 1}));
        QCOMPARE(robustFlags({100, 100, 101, 99, 60}, 5, 0.01, true).flags, (std::vector<uint8_t>(5, 0)));
        // MAD 0: min_rel keeps the 1-unit-slower rank from being flagged.
        QCOMPARE(robustFlags({1000, 1000, 1000, 1001}, 5, 0.01, true).flags, (std::vector<uint8_t>(4, 0)));
    }

    void medianRankIsTheClosestToTheMedianInAnotherFile()
    {
        FleetStepGrid g;
        g.ranks = {{"a.wscope", 1, 0, 0, 0, false}, {"b.wscope", 2, 1, 1, 0, false}, {"b.wscope", 3, 2, 2, 0, false},
            {"c.wscope", 4, 3, 3, 0, false}, {"d.wscope", 5, 4, 4, 0, false}};
        g.steps = {7};
        g.values = {10, 12, 11, 50, -1};
        g.median = {11.5};
        QCOMPARE(fleetMedianRow(g, 3, 0), 1); // 12 and 11 tie at 0.5 from 11.5: the first row
        QCOMPARE(fleetMedianRow(g, 1, 0), 0); // rank 2 (11) shares b.wscope with rank 1: a.wscope's 10
        QCOMPARE(fleetMedianRow(g, 0, 0), 1);
        g.ranks[0].session = g.ranks[3].session = "b.wscope";
        QCOMPARE(fleetMedianRow(g, 1, 0), -1); // every other rank with a value is in b.wscope
    }
};

QTEST_APPLESS_MAIN(TestFleetResult)
#include "tst_fleetresult.moc"

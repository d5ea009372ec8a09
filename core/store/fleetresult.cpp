// SPDX-License-Identifier: MIT
#include "core/store/fleetresult.h"

#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>
#include <tuple>

namespace ws {

bool isFleetResultFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 100> header {};
    if (!in.read(reinterpret_cast<char*>(header.data()), header.size()))
        return false;
    static constexpr char kMagic[] = "SQLite format 3";
    if (!std::equal(kMagic, kMagic + sizeof(kMagic), header.begin()))
        return false;
    const uint32_t id = (uint32_t(header[68]) << 24) | (uint32_t(header[69]) << 16) | (uint32_t(header[70]) << 8)
        | uint32_t(header[71]);
    return static_cast<int32_t>(id) == kFleetApplicationId;
}

std::string resolveFleetSession(const std::string& resultPath, const std::string& session)
{
    std::error_code ec;
    if (std::filesystem::exists(session, ec))
        return session;
    const auto beside = std::filesystem::path(resultPath).parent_path() / std::filesystem::path(session).filename();
    return std::filesystem::exists(beside, ec) ? beside.string() : session;
}

namespace {

// A per-rank metric: where its values come from. `value` is an aggregate over the rank's rows
// (several when it used several devices); `weight` picks the row whose device_id names the rank's
// device (the bare column of SQLite's MAX()).
struct MetricSpec {
    const char* table;
    const char* column;
    const char* title;
    const char* unit;
    bool higherIsWorse;
    FleetColumns columns;
    const char* value;
    const char* weight;
};

constexpr MetricSpec kMetrics[] = {
    {"step_time", "step_ns", "Step time", "ns", true, FleetColumns::Steps, "step_ns", "kernels"},
    {"step_time", "kernel_ns", "Kernel time per step", "ns", true, FleetColumns::Steps, "kernel_ns", "kernels"},
    {"kernel_time", "total_ns", "Kernel time by name", "ns", true, FleetColumns::Kernels, "SUM(total_ns)", "calls"},
    {"comm_overlap", "exposed_comm_ns", "Exposed communication", "ns", true, FleetColumns::Value,
        "SUM(exposed_comm_ns)", "compute_kernels + comm_ops"},
    {"comm_overlap", "overlap_pct", "Communication overlap", "%", false, FleetColumns::Value,
        "100.0 * SUM(overlap_ns) / NULLIF(SUM(comm_ns), 0)", "compute_kernels + comm_ops"},
    {"comm_overlap", "comm_ns", "Communication time", "ns", true, FleetColumns::Value, "SUM(comm_ns)",
        "compute_kernels + comm_ops"},
    {"gpu_idle", "idle_pct", "GPU idle", "%", true, FleetColumns::Value,
        "100.0 * SUM(idle_ns) / NULLIF(SUM(span_ns), 0)", "busy_ns"},
    {"gpu_idle", "idle_ns", "GPU idle time", "ns", true, FleetColumns::Value, "SUM(idle_ns)", "busy_ns"},
    {"gpu_idle", "largest_gap_ns", "Largest idle gap", "ns", true, FleetColumns::Value, "MAX(largest_gap_ns)",
        "busy_ns"},
    {"gpu_idle", "launches_per_s", "Launch rate", "/s", false, FleetColumns::Value, "SUM(launches_per_s)", "busy_ns"},
};

using RowKey = std::pair<std::string, int64_t>; // (session, pid)

bool hasColumn(const sqlite::Database& db, const std::string& table, const char* column)
{
    return db.queryInt64("SELECT count(*) FROM pragma_table_info('" + table + "') WHERE name = '" + column + "'") > 0;
}

// A number from the meta params JSON ({"k": 5.0, ...}); `fallback` when absent.
double param(const std::string& json, const std::string& key, double fallback)
{
    const std::regex rx("\"" + key + "\"\\s*:\\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)");
    std::smatch m;
    return std::regex_search(json, m, rx) ? std::stod(m[1].str()) : fallback;
}

// The ranks of a table, in the recipe's order (rank, then session and pid), each with its device.
std::vector<FleetRank> readRanks(const sqlite::Database& db, const MetricSpec& spec, std::map<RowKey, size_t>& index)
{
    std::vector<FleetRank> ranks;
    auto st = db.prepare(std::string("SELECT session, pid, rank, device_id, MAX(") + spec.weight + ") FROM "
        + spec.table + " GROUP BY session, pid ORDER BY rank, session, pid");
    while (st.step()) {
        FleetRank r;
        r.session = std::string(st.columnText(0));
        r.pid = st.columnInt64(1);
        r.rank = st.columnInt64(2);
        r.deviceId = st.columnInt64(3);
        index.emplace(RowKey {r.session, r.pid}, ranks.size());
        ranks.push_back(std::move(r));
    }
    return ranks;
}

FleetStepGrid readSteps(const sqlite::Database& db, const MetricSpec& spec)
{
    FleetStepGrid grid;
    std::map<RowKey, size_t> row;
    grid.ranks = readRanks(db, spec, row);
    std::map<int64_t, size_t> col;
    struct Cell {
        size_t row;
        int64_t step;
        double value, median;
        bool flagged;
        int64_t start;
        std::string range;
    };
    std::vector<Cell> cells;
    const bool recipeFlags = std::string(spec.column) == "step_ns";
    const bool named = hasColumn(db, spec.table, "range");
    auto st = db.prepare(std::string("SELECT session, pid, step, ") + spec.column + ", median_ns, straggler, start, "
        + (named ? "range" : "''") + " FROM step_time");
    while (st.step()) {
        const auto it = row.find({std::string(st.columnText(0)), st.columnInt64(1)});
        col.try_emplace(st.columnInt64(2), 0);
        cells.push_back({it->second, st.columnInt64(2), st.columnDouble(3), st.columnDouble(4), st.columnInt64(5) != 0,
            st.columnInt64(6), std::string(st.columnText(7))});
    }
    for (auto& [step, index] : col) {
        index = grid.steps.size();
        grid.steps.push_back(step);
        grid.columnNames.push_back(std::to_string(step));
    }
    const size_t n = grid.ranks.size() * grid.steps.size();
    grid.values.assign(n, -1.0);
    grid.straggler.assign(n, 0);
    grid.stepStart.assign(n, 0);
    grid.rangeName.assign(n, std::string());
    grid.median.assign(grid.steps.size(), 0.0);
    for (const Cell& c : cells) {
        const size_t i = grid.cell(c.row, col[c.step]);
        grid.values[i] = c.value;
        grid.straggler[i] = c.flagged ? 1 : 0;
        grid.stepStart[i] = c.start;
        grid.rangeName[i] = c.range;
        grid.median[col[c.step]] = c.median;
    }
    if (recipeFlags && db.hasTable("step_ranks")) {
        auto r = db.prepare("SELECT session, pid, median_step_ns, straggler FROM step_ranks");
        while (r.step()) {
            const auto it = row.find({std::string(r.columnText(0)), r.columnInt64(1)});
            if (it == row.end())
                continue;
            grid.ranks[it->second].summary = r.columnDouble(2);
            grid.ranks[it->second].straggler = r.columnInt64(3) != 0;
        }
    }
    return grid;
}

FleetStepGrid readKernels(const sqlite::Database& db, const MetricSpec& spec)
{
    FleetStepGrid grid;
    std::map<RowKey, size_t> row;
    grid.ranks = readRanks(db, spec, row);
    std::map<std::string, size_t> col;
    auto names = db.prepare("SELECT name FROM kernel_time GROUP BY name ORDER BY SUM(total_ns) DESC, name LIMIT "
        + std::to_string(kMaxKernelColumns));
    while (names.step()) {
        std::string name(names.columnText(0));
        col.emplace(name, grid.steps.size());
        grid.steps.push_back(static_cast<int64_t>(grid.steps.size()));
        grid.columnNames.push_back(std::move(name));
    }
    // A rank that never ran a kernel counts 0 ns for it (as the recipe's kernel_diff).
    grid.values.assign(grid.ranks.size() * grid.steps.size(), 0.0);
    auto st = db.prepare(
        std::string("SELECT session, pid, name, ") + spec.value + " FROM kernel_time GROUP BY session, pid, name");
    while (st.step()) {
        const auto c = col.find(std::string(st.columnText(2)));
        if (c == col.end())
            continue;
        const auto r = row.find({std::string(st.columnText(0)), st.columnInt64(1)});
        grid.values[grid.cell(r->second, c->second)] = st.columnDouble(3);
    }
    return grid;
}

FleetStepGrid readValue(const sqlite::Database& db, const MetricSpec& spec)
{
    FleetStepGrid grid;
    std::map<RowKey, size_t> row;
    grid.ranks = readRanks(db, spec, row);
    grid.steps = {0};
    grid.columnNames = {spec.title};
    grid.values.assign(grid.ranks.size(), -1.0);
    auto st = db.prepare(
        std::string("SELECT session, pid, ") + spec.value + " FROM " + spec.table + " GROUP BY session, pid");
    while (st.step()) {
        const auto r = row.find({std::string(st.columnText(0)), st.columnInt64(1)});
        if (!st.isNull(2))
            grid.values[r->second] = st.columnDouble(2);
    }
    return grid;
}

std::vector<FleetStepGrid> readGrids(const std::string& path, bool stepTimeOnly)
{
    if (!isFleetResultFile(path))
        throw std::runtime_error(path + ": not a Warpscope fleet result (application_id is not 0x5753464C)");
    std::vector<FleetStepGrid> grids;
    try {
        sqlite::Database db(sqlite::fileUri(path, "mode=ro"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
        if (stepTimeOnly && !db.hasTable("step_time"))
            throw std::runtime_error(path + ": the fleet result has no step_time table (it holds another recipe)");
        std::string recipe, params;
        {
            auto st = db.prepare("SELECT key, value FROM meta WHERE key IN ('recipe', 'params')");
            while (st.step())
                (st.columnText(0) == "recipe" ? recipe : params) = std::string(st.columnText(1));
        }
        const double k = param(params, "k", 5.0);
        const double minRel = param(params, "min_rel", 0.01);
        const int64_t skipped = db.queryInt64("SELECT count(*) FROM skipped");
        for (const MetricSpec& spec : kMetrics) {
            if (!db.hasTable(spec.table) || !hasColumn(db, spec.table, spec.column))
                continue;
            if (stepTimeOnly && std::string(spec.column) != "step_ns")
                continue;
            FleetStepGrid g;
            switch (spec.columns) {
            case FleetColumns::Steps:
                g = readSteps(db, spec);
                break;
            case FleetColumns::Kernels:
                g = readKernels(db, spec);
                break;
            case FleetColumns::Value:
                g = readValue(db, spec);
                break;
            }
            g.metric = {
                std::string(spec.table) + "." + spec.column, spec.title, spec.unit, spec.higherIsWorse, spec.columns};
            g.recipe = recipe;
            g.skipped = skipped;
            if (g.stepStart.empty()) {
                g.stepStart.assign(g.values.size(), 0);
                g.rangeName.assign(g.values.size(), std::string());
            }
            // step_time's step_ns carries the recipe's own medians and flags; the rest get the same rule here.
            if (std::string(spec.column) != "step_ns")
                flagFleetGrid(g, k, minRel);
            grids.push_back(std::move(g));
        }
    } catch (const sqlite::Error& e) {
        throw std::runtime_error(path + ": cannot read the fleet result: " + e.what());
    }
    if (grids.empty())
        throw std::runtime_error(
            path + ": the fleet result holds no per-rank metric (its recipe's tables are fleet-wide)");
    return grids;
}

} // namespace

std::vector<FleetStepGrid> readFleetGrids(const std::string& path)
{
    return readGrids(path, false);
}

FleetStepGrid readFleetStepGrid(const std::string& path)
{
    return std::move(readGrids(path, true).front());
}

} // namespace ws

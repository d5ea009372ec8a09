// SPDX-License-Identifier: MIT
#include "core/store/fleetresult.h"

#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
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

FleetStepGrid readFleetStepGrid(const std::string& path)
{
    if (!isFleetResultFile(path))
        throw std::runtime_error(path + ": not a Warpscope fleet result (application_id is not 0x5753464C)");
    FleetStepGrid grid;
    try {
        sqlite::Database db(sqlite::fileUri(path, "mode=ro"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
        if (!db.hasTable("step_time"))
            throw std::runtime_error(path + ": the fleet result has no step_time table (it holds another recipe)");
        {
            auto st = db.prepare("SELECT value FROM meta WHERE key = 'recipe'");
            if (st.step())
                grid.recipe = std::string(st.columnText(0));
        }
        grid.skipped = db.queryInt64("SELECT count(*) FROM skipped");
        // Rows: (session, pid) in the order the recipe sorted them (by rank).
        std::map<std::pair<std::string, int64_t>, size_t> row;
        std::map<int64_t, size_t> col;
        struct Cell {
            size_t row;
            int64_t step;
            double ns, median;
            bool flagged;
            int64_t start;
        };
        std::vector<Cell> cells;
        auto st = db.prepare(
            "SELECT session, pid, rank, device_id, step, step_ns, median_ns, straggler, start FROM step_time");
        while (st.step()) {
            const auto key = std::make_pair(std::string(st.columnText(0)), st.columnInt64(1));
            auto [it, inserted] = row.try_emplace(key, grid.ranks.size());
            if (inserted)
                grid.ranks.push_back({key.first, key.second, st.columnInt64(2), st.columnInt64(3), 0, false});
            col.try_emplace(st.columnInt64(4), 0);
            cells.push_back({it->second, st.columnInt64(4), st.columnDouble(5), st.columnDouble(6),
                st.columnInt64(7) != 0, st.columnInt64(8)});
        }
        for (auto& [step, index] : col) {
            index = grid.steps.size();
            grid.steps.push_back(step);
        }
        grid.stepNs.assign(grid.ranks.size() * grid.steps.size(), -1.0);
        grid.straggler.assign(grid.stepNs.size(), 0);
        grid.stepStart.assign(grid.stepNs.size(), 0);
        grid.medianNs.assign(grid.steps.size(), 0.0);
        for (const Cell& c : cells) {
            const size_t i = c.row * grid.steps.size() + col[c.step];
            grid.stepNs[i] = c.ns;
            grid.straggler[i] = c.flagged ? 1 : 0;
            grid.stepStart[i] = c.start;
            grid.medianNs[col[c.step]] = c.median;
        }
        if (db.hasTable("step_ranks")) {
            auto r = db.prepare("SELECT session, pid, median_step_ns, straggler FROM step_ranks");
            while (r.step()) {
                const auto it = row.find({std::string(r.columnText(0)), r.columnInt64(1)});
                if (it == row.end())
                    continue;
                grid.ranks[it->second].medianStepNs = r.columnDouble(2);
                grid.ranks[it->second].straggler = r.columnInt64(3) != 0;
            }
        }
    } catch (const sqlite::Error& e) {
        throw std::runtime_error(path + ": cannot read the fleet result: " + e.what());
    }
    return grid;
}

} // namespace ws

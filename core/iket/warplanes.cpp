// SPDX-License-Identifier: MIT
#include "core/iket/warplanes.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace ws::iket {

namespace {

// Each line of a per-launch meta list that `line` finds, its match handed to `use`.
template <typename Use>
void eachMatch(const std::map<std::string, std::string>& meta, const char* key, const std::regex& line, Use use)
{
    const auto it = meta.find(key);
    if (it == meta.end())
        return;
    std::istringstream in(it->second);
    std::string text;
    while (std::getline(in, text)) {
        std::smatch m;
        if (std::regex_search(text, m, line))
            use(m);
    }
}

} // namespace

std::map<WarpKey, int64_t> droppedEventsByWarp(const std::map<std::string, std::string>& meta)
{
    std::map<WarpKey, int64_t> out;
    static const std::regex line(R"(\(kernel #(\d+)\): block (\d+) warp (\d+) \((\d+)\)$)");
    eachMatch(meta, "iket_dropped_warps", line, [&](const std::smatch& m) {
        out[{std::stoll(m[1]), std::stoi(m[2]), std::stoi(m[3])}] += std::stoll(m[4]);
    });
    return out;
}

std::map<int64_t, int64_t> unrecordedWarpsByKernel(const std::map<std::string, std::string>& meta)
{
    std::map<int64_t, int64_t> out;
    static const std::regex line(R"(\(kernel #(\d+)\): (\d+) warps$)");
    eachMatch(
        meta, "iket_out_of_range", line, [&](const std::smatch& m) { out[std::stoll(m[1])] += std::stoll(m[2]); });
    return out;
}

void appendWarpLanes(TimelineModel& model, std::span<const WarpEvent> events, const std::map<WarpKey, int64_t>& lost,
    const std::map<int64_t, int64_t>& unrecorded)
{
    // (kernel, block, warp) -> (row kind, index) -> events; row kind 0 ranges, 1 async, 2 marks.
    std::map<WarpKey, std::map<std::pair<int, int32_t>, std::vector<const WarpEvent*>>> warps;
    std::map<WarpKey, StringId> roles;
    for (const WarpEvent& e : events) {
        const WarpKey key {e.kernelId, e.block, e.warp};
        const int row = e.kind == WarpEventKind::Range ? 0 : e.kind == WarpEventKind::AsyncRange ? 1 : 2;
        warps[key][{row, row == 2 ? 0 : e.depth}].push_back(&e);
        roles.try_emplace(key, e.role);
    }
    int64_t previousKernel = -1;
    for (auto& [key, rows] : warps) {
        const auto& [kernelId, block, warp] = key;
        const bool kernelsFirst = kernelId != previousKernel;
        previousKernel = kernelId;
        const StringId role = roles[key];
        const std::string& roleName = role < model.strings.size() ? model.strings.at(role) : std::string();
        const std::string base
            = (roleName.empty() ? std::string("warp") : roleName) + " · warp " + std::to_string(warp);
        int32_t index = 0;
        for (auto& [row, list] : rows) {
            std::stable_sort(list.begin(), list.end(), [](const WarpEvent* a, const WarpEvent* b) {
                return std::tie(a->begin, a->end) < std::tie(b->begin, b->end);
            });
            TimelineLane lane;
            lane.kind = LaneKind::WarpRole;
            lane.kernelId = kernelId;
            lane.block = block;
            lane.warp = warp;
            lane.role = role;
            lane.depth = index++;
            lane.label = base;
            if (const auto l = lost.find(key); l != lost.end() && index == 1)
                lane.label += " · " + std::to_string(l->second) + " events lost";
            if (const auto u = unrecorded.find(kernelId); u != unrecorded.end() && kernelsFirst && index == 1)
                lane.label += " · " + std::to_string(u->second) + " warps of this launch not recorded";
            if (row.first == 0 && row.second > 0)
                lane.label += " · depth " + std::to_string(row.second);
            else if (row.first == 1)
                lane.label += row.second == 0 ? " · async" : " · async " + std::to_string(row.second + 1);
            else if (row.first == 2)
                lane.label += " · marks";
            lane.start.reserve(list.size());
            lane.durations.reserve(list.size());
            lane.name.reserve(list.size());
            lane.ref.reserve(list.size());
            for (const WarpEvent* e : list) {
                lane.start.push_back(e->begin);
                lane.appendEnd(e->end);
                lane.name.push_back(e->name);
                lane.ref.push_back(EventRef::make(EventTable::WarpEvent, e->id));
            }
            model.lanes.push_back(std::move(lane));
        }
    }
}

} // namespace ws::iket

// SPDX-License-Identifier: MIT
#include "core/iket/iketlaunch.h"

#include <cstring>

namespace ws::iket {

uint64_t LaunchBuffer::dropped() const
{
    uint64_t n = 0;
    for (const uint32_t c : counts)
        n += c > eventsPerWarp ? c - eventsPerWarp : 0;
    return n;
}

std::vector<std::string> splitNames(std::string_view list)
{
    std::vector<std::string> names;
    size_t pos = 0;
    while (pos <= list.size()) {
        size_t comma = list.find(',', pos);
        if (comma == std::string_view::npos)
            comma = list.size();
        std::string_view item = list.substr(pos, comma - pos);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t' || item.front() == '\n'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t' || item.back() == '\n'))
            item.remove_suffix(1);
        names.emplace_back(item);
        pos = comma + 1;
    }
    if (names.size() == 1 && names.front().empty())
        names.clear();
    return names;
}

std::string parseLaunchHead(std::string_view payload, std::string label, std::string_view names, LaunchBuffer& out)
{
    if (payload.size() < sizeof(raw::IketLaunchRecord))
        return "in-kernel trace record too short (" + std::to_string(payload.size()) + " bytes)";
    const auto rec = raw::readPayload<raw::IketLaunchRecord>(payload);
    const std::string_view tail = payload.substr(sizeof(raw::IketLaunchRecord));
    const uint64_t countBytes = uint64_t {rec.totalWarps} * sizeof(uint32_t);
    if (countBytes > tail.size())
        return "in-kernel trace record announces " + std::to_string(rec.totalWarps) + " warps but holds "
            + std::to_string(tail.size()) + " bytes";
    if (uint64_t {rec.warpsPerBlock} * rec.grid[0] * rec.grid[1] * rec.grid[2] != rec.totalWarps)
        return "in-kernel trace record: " + std::to_string(rec.totalWarps) + " warps do not match a grid of "
            + std::to_string(uint64_t {rec.grid[0]} * rec.grid[1] * rec.grid[2]) + " blocks of "
            + std::to_string(rec.warpsPerBlock) + " warps";
    out = LaunchBuffer();
    out.tid = rec.tid;
    out.armedNs = rec.armedNs;
    out.collectedNs = rec.collectedNs;
    out.label = std::move(label);
    out.names = splitNames(names);
    std::memcpy(out.grid, rec.grid, sizeof(out.grid));
    std::memcpy(out.block, rec.block, sizeof(out.block));
    out.device = rec.device;
    out.warpsPerBlock = rec.warpsPerBlock;
    out.eventsPerWarp = rec.eventsPerWarp;
    out.outOfRangeWarps = rec.outOfRangeWarps;
    out.truncatedEvents = rec.truncatedEvents;
    out.counts.resize(rec.totalWarps);
    if (countBytes > 0)
        std::memcpy(out.counts.data(), tail.data(), countBytes);
    out.firstEvent.resize(rec.totalWarps);
    uint64_t total = 0;
    for (uint32_t w = 0; w < rec.totalWarps; ++w) {
        out.firstEvent[w] = total;
        total += out.stored(w);
    }
    return {};
}

std::string eventBytesMismatch(uint64_t expectedEvents, uint64_t bytes)
{
    if (bytes == expectedEvents * sizeof(raw::IketEvent))
        return {};
    return "in-kernel trace record: the warps' counts add up to " + std::to_string(expectedEvents) + " events but "
        + std::to_string(bytes) + " bytes follow (" + std::to_string(expectedEvents * sizeof(raw::IketEvent))
        + " expected)";
}

std::string parseLaunch(std::string_view payload, std::string label, std::string_view names, LaunchBuffer& out)
{
    std::string error = parseLaunchHead(payload, std::move(label), names, out);
    if (!error.empty())
        return error;
    const uint64_t total = out.firstEvent.empty() ? 0 : out.firstEvent.back() + out.stored(out.totalWarps() - 1);
    const std::string_view eventBytes
        = payload.substr(sizeof(raw::IketLaunchRecord) + uint64_t {out.totalWarps()} * sizeof(uint32_t));
    error = eventBytesMismatch(total, eventBytes.size());
    if (!error.empty())
        return error;
    out.events.resize(total);
    if (total > 0)
        std::memcpy(out.events.data(), eventBytes.data(), eventBytes.size());
    return {};
}

std::string encodeLaunchPayload(const LaunchBuffer& launch, uint32_t labelId, uint32_t namesId)
{
    raw::IketLaunchRecord rec {};
    rec.armedNs = launch.armedNs;
    rec.collectedNs = launch.collectedNs;
    rec.tid = launch.tid;
    rec.label = labelId;
    rec.names = namesId;
    std::memcpy(rec.grid, launch.grid, sizeof(rec.grid));
    std::memcpy(rec.block, launch.block, sizeof(rec.block));
    rec.device = launch.device;
    rec.warpsPerBlock = launch.warpsPerBlock;
    rec.eventsPerWarp = launch.eventsPerWarp;
    rec.totalWarps = launch.totalWarps();
    rec.outOfRangeWarps = launch.outOfRangeWarps;
    rec.truncatedEvents = launch.truncatedEvents;
    std::string out(reinterpret_cast<const char*>(&rec), sizeof(rec));
    out.append(reinterpret_cast<const char*>(launch.counts.data()), launch.counts.size() * sizeof(uint32_t));
    out.append(reinterpret_cast<const char*>(launch.events.data()), launch.events.size() * sizeof(raw::IketEvent));
    return out;
}

} // namespace ws::iket

// SPDX-License-Identifier: MIT
#include "core/iket/iketsplit.h"

#include <algorithm>
#include <cstring>

namespace ws::iket {

namespace {

constexpr uint64_t kEventBytes = sizeof(raw::IketEvent);

uint32_t storedOf(const raw::IketLaunchRecord& launch, const uint32_t* attempted, uint64_t warp)
{
    return std::min(attempted[warp], launch.eventsPerWarp);
}

} // namespace

uint64_t singleFrameBytes(const raw::IketLaunchRecord& launch, const uint32_t* attempted)
{
    uint64_t bytes = sizeof(raw::IketLaunchRecord) + uint64_t {launch.totalWarps} * sizeof(uint32_t);
    for (uint64_t w = 0; w < launch.totalWarps; ++w)
        bytes += storedOf(launch, attempted, w) * kEventBytes;
    return bytes;
}

std::vector<LaunchPart> splitLaunch(const raw::IketLaunchRecord& launch, const uint32_t* attempted, const char* events,
    uint64_t serial, uint64_t maxPayload, std::string& error)
{
    std::vector<LaunchPart> parts;
    const uint64_t header = sizeof(raw::IketLaunchPartRecord);
    const uint64_t countsBytes = uint64_t {launch.totalWarps} * sizeof(uint32_t);
    // Part 0 carries every warp's count; any part needs room for one warp's stored count and
    // one event besides its header.
    if (header + countsBytes + sizeof(uint32_t) + kEventBytes > maxPayload) {
        error = std::to_string(launch.totalWarps) + " warps' counts do not fit one raw frame";
        return parts;
    }
    uint64_t warp = 0;
    uint64_t doneInWarp = 0; // events of `warp` already in earlier parts
    const uint64_t warps = launch.totalWarps;
    while (warp < warps || parts.empty()) {
        LaunchPart part {};
        part.record.launch = launch;
        part.record.launch.truncatedEvents = 0;
        part.record.serial = serial;
        part.record.part = static_cast<uint32_t>(parts.size());
        part.record.firstWarp = static_cast<uint32_t>(std::min(warp, warps));
        uint64_t room = maxPayload - header;
        if (parts.empty()) {
            part.trailing.append(reinterpret_cast<const char*>(attempted), countsBytes);
            room -= countsBytes;
        }
        std::vector<uint32_t> stored;
        std::string eventBytes;
        // Whole warps while they fit, then as many of the next warp's events as fit.
        while (warp < warps && room >= sizeof(uint32_t) + kEventBytes) {
            const uint64_t left = storedOf(launch, attempted, warp) - doneInWarp;
            const uint64_t take = std::min(left, (room - sizeof(uint32_t)) / kEventBytes);
            stored.push_back(static_cast<uint32_t>(take));
            eventBytes.append(events + (warp * launch.eventsPerWarp + doneInWarp) * kEventBytes, take * kEventBytes);
            room -= sizeof(uint32_t) + take * kEventBytes;
            if (take == left) {
                ++warp;
                doneInWarp = 0;
            } else {
                doneInWarp += take;
                break; // the frame is full; this warp continues in the next part
            }
        }
        part.record.warpCount = static_cast<uint32_t>(stored.size());
        part.trailing.append(reinterpret_cast<const char*>(stored.data()), stored.size() * sizeof(uint32_t));
        part.trailing += eventBytes;
        parts.push_back(std::move(part));
    }
    for (auto& p : parts)
        p.record.parts = static_cast<uint32_t>(parts.size());
    return parts;
}

} // namespace ws::iket

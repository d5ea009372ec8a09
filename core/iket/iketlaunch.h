// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/raw/iketformat.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ws::iket {

// One in-kernel traced launch as the recorder stored it (raw record 50), parsed and checked.
struct LaunchBuffer {
    int64_t pid = 0;
    int64_t tid = 0;
    TimeNs armedNs = 0; // CLOCK_MONOTONIC before the launch call
    TimeNs collectedNs = 0;
    int64_t realtimeMinusMonotonicNs = 0; // the process's clock anchor (globaltimer ~ CLOCK_REALTIME)
    std::string label;
    std::vector<std::string> names; // name id -> name
    uint32_t grid[3] = {0, 0, 0};
    uint32_t block[3] = {0, 0, 0};
    int32_t device = 0;
    uint32_t warpsPerBlock = 0;
    uint32_t eventsPerWarp = 0;
    uint64_t outOfRangeWarps = 0;
    uint64_t truncatedEvents = 0;
    std::vector<uint32_t> counts;       // per warp slot: events attempted
    std::vector<uint64_t> firstEvent;   // per warp slot: index of its first event in `events`
    std::vector<raw::IketEvent> events; // stored events, warp slot by warp slot

    uint32_t totalWarps() const { return static_cast<uint32_t>(counts.size()); }
    uint32_t stored(uint32_t warp) const { return counts[warp] < eventsPerWarp ? counts[warp] : eventsPerWarp; }
    uint64_t dropped() const;
};

// "a, b,c" -> {"a", "b", "c"}: the list WS_IKET_NAMES stringifies.
std::vector<std::string> splitNames(std::string_view list);

// Parses the payload of one raw IketLaunch frame. `label` and `names` are the already resolved
// strings. Returns an empty string on success, else what is wrong (the caller names the file).
std::string parseLaunch(std::string_view payload, std::string label, std::string_view names, LaunchBuffer& out);

// parseLaunch in two steps, for a launch whose events come from elsewhere (split launches,
// LaunchAssembler): everything but the events (counts, firstEvent; `events` left empty), and the
// check that `bytes` of events are what the counts announce ("" when they are).
std::string parseLaunchHead(std::string_view payload, std::string label, std::string_view names, LaunchBuffer& out);
std::string eventBytesMismatch(uint64_t expectedEvents, uint64_t bytes);

// The inverse, for tests and tools that make raw files: the frame payload of `launch`.
std::string encodeLaunchPayload(const LaunchBuffer& launch, uint32_t labelId, uint32_t namesId);

} // namespace ws::iket

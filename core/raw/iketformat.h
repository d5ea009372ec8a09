// SPDX-License-Identifier: MIT
#pragma once

// The raw record of one in-kernel traced launch (warpscope/iket.cuh), written by
// libwarpscope-inject.so and decoded by ingest (core/iket). Kept apart from rawformat.h so the
// record type number is reserved here: 50.
//
// Payload: IketLaunchRecord, then trailing bytes:
//   uint32_t count[totalWarps]      events each warp attempted (the device buffer's counts)
//   WsIketEvent-layout events       min(count[w], eventsPerWarp) events of warp 0, then warp 1, ...
// i.e. the device buffer with the unused slots squeezed out.

#include "core/raw/rawformat.h"

#include <cstdint>

namespace ws::raw {

inline constexpr RecordType kIketLaunchType = static_cast<RecordType>(50);

// The device event, as written by the kernel (same layout as WsIketEvent of iket_abi.h).
struct IketEvent {
    uint64_t globaltimer;
    uint64_t clock;
    uint32_t block;
    uint16_t sm;
    uint16_t warp;
    uint16_t name;
    uint8_t kind;
    uint8_t reserved;
    uint32_t token;
};
static_assert(sizeof(IketEvent) == 32);

enum class IketKind : uint8_t { Push = 0, Pop = 1, Start = 2, End = 3, Mark = 4, Role = 5, Anchor = 6 };

struct IketLaunchRecord {
    int64_t armedNs;     // CLOCK_MONOTONIC just before the launch call
    int64_t collectedNs; // after the copy back
    int64_t tid;         // thread that launched
    uint32_t label;      // string id: the user's name for the launch
    uint32_t names;      // string id: comma-separated name list (id i = i-th entry)
    uint32_t grid[3];
    uint32_t block[3];
    int32_t device;
    uint32_t warpsPerBlock;
    uint32_t eventsPerWarp;
    uint32_t totalWarps;
    uint64_t outOfRangeWarps;
    uint64_t truncatedEvents; // left out because the frame would have exceeded kMaxFramePayload
};

// A launch whose events do not fit one frame (kMaxFramePayload) is written as several frames of
// type 51, none lost. Payload: IketLaunchPartRecord, then trailing bytes:
//   uint32_t count[totalWarps]      part 0 only: events each warp attempted
//   uint32_t stored[warpCount]      events of warps firstWarp .. firstWarp+warpCount-1 in this part
//   WsIketEvent-layout events       those events, warp by warp
// A warp's events continue from one part to the next (the next part's firstWarp is the warp it
// stopped in), so a single warp may hold more events than one frame.
inline constexpr RecordType kIketLaunchPartType = static_cast<RecordType>(51);

struct IketLaunchPartRecord {
    IketLaunchRecord launch; // truncatedEvents is 0: nothing is left out
    uint64_t serial;         // the launch, among this process's split launches
    uint32_t part;           // 0 .. parts-1
    uint32_t parts;
    uint32_t firstWarp;
    uint32_t warpCount;
};

} // namespace ws::raw

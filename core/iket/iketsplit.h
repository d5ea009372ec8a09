// SPDX-License-Identifier: MIT
#pragma once

// Splitting one in-kernel traced launch over several raw frames (raw/iketformat.h, type 51).
// Header-light on purpose: libwarpscope-inject compiles iketsplit.cpp alone, without the rest
// of core.

#include "core/raw/iketformat.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ws::iket {

// One frame of a split launch: the record and its trailing bytes (raw/iketformat.h, type 51).
struct LaunchPart {
    raw::IketLaunchPartRecord record;
    std::string trailing;
};

// Bytes one kIketLaunchType frame needs for the launch: record, counts and every stored event.
uint64_t singleFrameBytes(const raw::IketLaunchRecord& launch, const uint32_t* attempted);

// Splits a launch's device buffer into frames of at most `maxPayload` bytes, losing nothing:
// `attempted[w]` is warp w's count, `events` the buffer's event slots (warp w's at
// events + w * eventsPerWarp * sizeof(IketEvent)); min(attempted, eventsPerWarp) events of each
// warp are stored, in warp order. Empty, with `error` set, only when part 0's counts alone do
// not fit a frame (over 4M warps).
std::vector<LaunchPart> splitLaunch(const raw::IketLaunchRecord& launch, const uint32_t* attempted, const char* events,
    uint64_t serial, uint64_t maxPayload, std::string& error);

} // namespace ws::iket

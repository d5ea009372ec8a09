// SPDX-License-Identifier: MIT
#pragma once

// The compact (version 2) event buffer of warpscope/iket.cuh, turned into the events a raw
// record holds (raw::IketEvent, the version 1 layout), so ingest, old raw files and new ones
// share one decoder. Header-light: libwarpscope-inject compiles compactevents.cpp alone.
//
// A compact event is four words (WsIketCompactEvent of iket_abi.h): clock64's low word,
// %globaltimer's low word (when kGlobaltimerFlag), name | kind << 16 | flags << 24, token; a
// warp's anchors (kind Anchor, first and last) carry %globaltimer's high word in `token` and the
// SM in `name`. The expansion unwraps both low words in the warp's order from its anchors, and
// splits a push/pop pair (kPushPopKind) into its two events, the pop in its own slot's place.

#include "core/raw/iketformat.h"

#include <cstdint>
#include <vector>

namespace ws::iket {

struct CompactEvent {
    uint32_t clockLo;
    uint32_t globaltimerLo;
    uint32_t nameKind;
    uint32_t token;
};
static_assert(sizeof(CompactEvent) == 16);

inline constexpr uint32_t kGlobaltimerFlag = 0x01000000u; // nameKind: globaltimerLo is valid
// nameKind's kind of a push and the pop right after it, stored in the push's slot (version 3
// buffers, WsIketPushPop): token holds the pop's clock low word; the pop's slot is not written.
inline constexpr uint32_t kPushPopKind = 7;
// raw::IketEvent::reserved of an event expanded from a compact one: its clock is exact within
// the warp (unwrapped from 32 bits) and its globaltimer, when nonzero, was read with it.
inline constexpr uint8_t kFromCompact = 2;

// Expands warp by warp: `stored[w]` events of warp w from `events + w * slotsPerWarp`, written
// to `out + w * outStride` (out must hold totalWarps * outStride events; outStride >= every
// stored[w]). Block and warp come from the slot (warpsPerBlock per block).
void expandCompact(const CompactEvent* events, uint64_t slotsPerWarp, const uint32_t* stored, uint32_t totalWarps,
    uint32_t warpsPerBlock, raw::IketEvent* out, uint64_t outStride);

// One warp's compact events, expanded (what expandCompact does per warp).
void expandCompactWarp(const CompactEvent* events, uint32_t count, uint32_t block, uint32_t warp, raw::IketEvent* out);

} // namespace ws::iket

// SPDX-License-Identifier: MIT
#pragma once

#include "core/iket/iketlaunch.h"
#include "core/model/sessiondata.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ws::iket {

// A warp whose ranges do not balance: pops without a push, pushes never popped, ends without a
// start, starts never ended. Open ranges are kept, ending at the warp's last event. When the
// warp ran out of slots (truncated) the imbalance is the drop's doing, not the kernel's.
struct UnbalancedWarp {
    uint32_t block = 0;
    uint32_t warp = 0;
    std::string role;
    int unmatchedPops = 0;
    int unclosedPushes = 0;
    int unmatchedEnds = 0;
    int unclosedStarts = 0;
    bool truncated = false;
    std::string text() const; // "block 3 warp 1 (consumer): 1 range_push never popped"
};

// How device times became session times.
struct ClockMapping {
    // globaltimer counts ns of (roughly) CLOCK_REALTIME; the session's clock is the recording
    // process's CLOCK_MONOTONIC: minus (realtime - monotonic) of the process's anchor.
    int64_t anchorShiftNs = 0;
    // Then, when the kernel's CUPTI record is known, the shift that puts every event inside
    // [kernel start, kernel end] (0 when they already were): what the anchor got wrong. The
    // events' raw positions (the anchor alone) are their stored times minus this shift.
    int64_t kernelShiftNs = 0;
    bool kernelAligned = false;
    // What the alignment did, counted over the decoded events (ranges and marks): how many lay
    // outside [kernel start, kernel end] at their raw positions and were moved by the shift, and
    // how many still lie outside after it (the trace spans longer than its kernel: the timers
    // disagree, and no single shift can fix that). Both 0 without a kernel.
    uint64_t eventsMovedIntoKernel = 0;
    uint64_t eventsOutsideKernel = 0;
    // Latest raw end minus earliest raw begin of the decoded events (0 without events).
    int64_t rawSpanNs = 0;
    // globaltimer's tick (gcd of a warp's consecutive steps). When globaltimer advances
    // coarsely (>= kCoarseGlobaltimerNs), times come from clock64 fitted per SM to globaltimer.
    uint64_t globaltimerStepNs = 0;
    // Also true for WARPSCOPE_IKET_CLOCK64_ONLY buffers: events timed by clock64 between each
    // warp's globaltimer anchors.
    bool clockInterpolated = false;
    // Compact (version 2) buffers: the launch's SM clock rate against globaltimer, and the warps
    // whose globaltimer readings strayed from their clock64 line (kept on globaltimer).
    double nsPerCycle = 0;
    uint32_t warpsOnGlobaltimer = 0;
    uint32_t warpsWithOwnRate = 0; // compact: warps timed by their own clock rate (kOwnRateSpanNs)
};

// A compact warp whose globaltimer readings span at least this long (ns) is timed by its own
// clock rate: the readings' 32 ns ticks then err by at most 0.32 % of it.
inline constexpr uint64_t kOwnRateSpanNs = 20000;

// How far (ns) a compact warp's globaltimer readings may stray from its clock64 line before
// the warp keeps globaltimer: a few 32 ns ticks.
inline constexpr double kStrayNs = 200;

inline constexpr uint64_t kCoarseGlobaltimerNs = 256;

struct DecodedLaunch {
    int64_t kernelId = 0;
    std::vector<WarpEvent> events; // ids 0; by (block, warp, begin), longer first on equal begins
    std::vector<UnbalancedWarp> unbalanced;
    uint64_t stored = 0;
    uint64_t dropped = 0;
    uint32_t warpsWithEvents = 0;
    ClockMapping clock;
};

// Turns a launch's buffer into warp events: ranges paired per warp (push/pop by nesting,
// start/end by token), marks, each event with its warp's role at the time (role(name); "warp N"
// for a warp that never set one), times mapped onto the session's clock and, with `kernel`,
// aligned to the kernel's own start and end. Names are interned into `strings`.
DecodedLaunch decodeLaunch(const LaunchBuffer& launch, const KernelRecord* kernel, StringTable& strings);

// The same, appending the events to `events` (the returned DecodedLaunch holds none): a session's
// millions of warp events are written once, into their final vector.
DecodedLaunch decodeLaunchInto(
    const LaunchBuffer& launch, const KernelRecord* kernel, StringTable& strings, std::vector<WarpEvent>& events);

// The string ids a launch's events take, interned in the order decodeLaunch interns them: launches
// decoded on several threads then number the session's strings as one thread would.
struct LaunchStrings {
    std::vector<StringId> names;                     // name id -> string
    std::unordered_map<uint16_t, StringId> unlisted; // name ids past the list: "name #id"
    std::vector<StringId> firstRole;                 // per warp: its role before any role() call
    StringId nameOf(uint16_t id) const { return id < names.size() ? names[id] : unlisted.at(id); }
};
LaunchStrings internStrings(const LaunchBuffer& launch, StringTable& strings);

// Decoding with the strings already interned: interns nothing, so launches may be decoded on
// threads of their own (`strings` is only read).
DecodedLaunch decodeLaunchInto(const LaunchBuffer& launch, const KernelRecord* kernel, const LaunchStrings& names,
    const StringTable& strings, std::vector<WarpEvent>& events);

// How many events decoding `launch` gives at most (a push, a start or a mark each), to reserve.
size_t rowsAtMost(const LaunchBuffer& launch);

// The kernel a launch belongs to: the first kernel-launch API call (cudaLaunch*, cuLaunch*) of
// the launching thread after the buffer was armed, joined by correlation id; without API
// records, the process's first kernel that started after it was armed. nullptr when none.
const KernelRecord* findKernel(const SessionData& session, const LaunchBuffer& launch);

} // namespace ws::iket

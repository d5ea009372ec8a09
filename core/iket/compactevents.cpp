// SPDX-License-Identifier: MIT
#include "core/iket/compactevents.h"

namespace ws::iket {

void expandCompactWarp(const CompactEvent* events, uint32_t count, uint32_t block, uint32_t warp, raw::IketEvent* out)
{
    const auto anchorKind = static_cast<uint32_t>(raw::IketKind::Anchor);
    const auto startKind = static_cast<uint32_t>(raw::IketKind::Start);
    const auto endKind = static_cast<uint32_t>(raw::IketKind::End);
    const auto pushKind = static_cast<uint32_t>(raw::IketKind::Push);
    const auto popKind = static_cast<uint32_t>(raw::IketKind::Pop);
    // The SM is the first anchor's; the high words start from the first anchor too (a warp's
    // first event is its anchor; without one the clock starts at its low word).
    uint16_t sm = 0;
    uint64_t gt = 0;
    bool haveGt = false;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t kind = (events[i].nameKind >> 16) & 0xffu;
        if (kind == anchorKind) {
            sm = static_cast<uint16_t>(events[i].nameKind & 0xffffu);
            break;
        }
    }
    uint64_t clock = count ? events[0].clockLo : 0;
    for (uint32_t i = 0; i < count; ++i) {
        const CompactEvent& c = events[i];
        const uint32_t kind = (c.nameKind >> 16) & 0xffu;
        // Forward in time within a warp: each low word continues from the previous full value.
        clock += static_cast<uint32_t>(c.clockLo - static_cast<uint32_t>(clock));
        raw::IketEvent& e = out[i];
        e = {};
        if (kind == anchorKind) {
            gt = (static_cast<uint64_t>(c.token) << 32) | c.globaltimerLo;
            haveGt = true;
            e.globaltimer = gt;
            e.token = i;
            e.name = 0;
        } else {
            if ((c.nameKind & kGlobaltimerFlag) && haveGt) {
                gt += static_cast<uint32_t>(c.globaltimerLo - static_cast<uint32_t>(gt));
                e.globaltimer = gt;
            }
            // Only start/end carry a token; the others' is their own index (older buffers
            // stored it, newer ones store 0).
            e.token = (kind == startKind || kind == endKind) ? c.token : i;
            e.name = static_cast<uint16_t>(c.nameKind & 0xffffu);
        }
        e.clock = clock;
        e.block = block;
        e.sm = sm;
        e.warp = static_cast<uint16_t>(warp);
        e.kind = static_cast<uint8_t>(kind == kPushPopKind ? pushKind : kind);
        e.reserved = kFromCompact;
        // A push and the pop right after it, in the push's slot: the pop's own slot (the next)
        // was not written. Past the warp's stored events the pop was dropped (the counts say so).
        if (kind == kPushPopKind && i + 1 < count) {
            ++i;
            raw::IketEvent& pop = out[i];
            pop = e;
            clock += static_cast<uint32_t>(c.token - static_cast<uint32_t>(clock));
            pop.clock = clock;
            pop.globaltimer = 0; // read only by the push; the pop is placed by its clock
            pop.token = i;
            pop.name = 0;
            pop.kind = static_cast<uint8_t>(popKind);
        }
    }
}

void expandCompact(const CompactEvent* events, uint64_t slotsPerWarp, const uint32_t* stored, uint32_t totalWarps,
    uint32_t warpsPerBlock, raw::IketEvent* out, uint64_t outStride)
{
    for (uint32_t w = 0; w < totalWarps; ++w)
        expandCompactWarp(events + w * slotsPerWarp, stored[w], warpsPerBlock ? w / warpsPerBlock : 0,
            warpsPerBlock ? w % warpsPerBlock : w, out + w * outStride);
}

} // namespace ws::iket

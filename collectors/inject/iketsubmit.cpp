// SPDX-License-Identifier: MIT
// warpscope_iket_submit: the entry point warpscope/iket.cuh calls after an instrumented kernel
// finished, with a host copy of its event buffer. The buffer goes into the raw file as one
// IketLaunch record (unused slots squeezed out), or, when it does not fit one frame, as many
// IketLaunchPart records as it needs; ingest decodes it into warp_event rows.
#include "iketsubmit.h"
#include "recorder.h"

#include "core/iket/compactevents.h"
#include "core/iket/iketsplit.h"
#include "core/raw/iketformat.h"
#include "warpscope/iket_abi.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace {

static_assert(sizeof(ws::iket::CompactEvent) == sizeof(WsIketCompactEvent));
static_assert(ws::iket::kGlobaltimerFlag == WS_IKET_EVENT_GLOBALTIMER);

// Launches handed over while the recorder was not capturing (outside the capture range, after
// --duration): not recorded, but counted, the first one named at once, the totals at exit.
std::atomic<uint64_t> g_uncapturedLaunches {0};
std::atomic<uint64_t> g_uncapturedEvents {0};

std::string launchName(const WsIketSubmission* s)
{
    return "in-kernel trace " + std::string(s->label && *s->label ? s->label : "(unnamed launch)");
}

// Events the buffer's warps attempted (stored and dropped), from its counts; 0 when the buffer
// is not one to read.
uint64_t attemptedEvents(const WsIketSubmission* s)
{
    if (!s->data || s->bytes < sizeof(WsIketBufferHeader))
        return 0;
    WsIketBufferHeader h;
    std::memcpy(&h, s->data, sizeof(h));
    const uint64_t warps = uint64_t {h.blocks} * h.warpsPerBlock;
    if (sizeof(WsIketBufferHeader) + warps * sizeof(uint32_t) > s->bytes)
        return 0;
    uint64_t n = 0;
    for (uint64_t w = 0; w < warps; ++w) {
        uint32_t c = 0;
        std::memcpy(
            &c, static_cast<const char*>(s->data) + sizeof(WsIketBufferHeader) + w * sizeof(uint32_t), sizeof c);
        n += c;
    }
    return n;
}

// What a caller of this ABI's size says about launches that ran without arm().
void reportUnarmed(ws::inject::Recorder& r, const WsIketSubmission* s)
{
    constexpr size_t kLossFieldsEnd = offsetof(WsIketSubmission, unarmedEvents) + sizeof(uint64_t);
    if (s->structBytes < kLossFieldsEnd || s->unarmedWarps == 0)
        return;
    r.message(ws::raw::MessageLevel::Warning,
        launchName(s) + ": " + std::to_string(s->unarmedWarps) + " warp(s) wrote " + std::to_string(s->unarmedEvents)
            + " events that were never handed over (launched without arm(), or armed again before "
              "collect(); of several such launches only the last one's counts remain): not recorded");
}

int submit(const WsIketSubmission* s)
{
    using namespace ws;
    inject::Recorder* r = inject::Recorder::instance();
    if (!r || r->closed())
        return -1;
    if (!s || s->abiVersion != WS_IKET_ABI_VERSION || s->structBytes < offsetof(WsIketSubmission, unarmedWarps))
        return -2;
    if (!s->data) {
        // A loss report: launches of a buffer that was never armed again before it went away.
        reportUnarmed(*r, s);
        return 0;
    }
    if (s->bytes < sizeof(WsIketBufferHeader))
        return -2;
    if (!r->capturing()) {
        const uint64_t events = attemptedEvents(s);
        if (g_uncapturedLaunches.fetch_add(1) == 0)
            r->message(raw::MessageLevel::Warning,
                launchName(s) + ": a launch of " + std::to_string(events)
                    + " events ended while the recorder was not capturing (outside the capture range): not "
                      "recorded; the process's total is reported at its exit");
        g_uncapturedEvents += events;
        return 1;
    }
    reportUnarmed(*r, s);
    WsIketBufferHeader h;
    std::memcpy(&h, s->data, sizeof(h));
    const uint64_t warps = uint64_t {h.blocks} * h.warpsPerBlock;
    const uint64_t countsEnd = sizeof(WsIketBufferHeader) + warps * sizeof(uint32_t);
    const uint64_t eventsOffset = (countsEnd + 15u) & ~uint64_t {15u};
    // Version 2 and 3 buffers hold 16-byte events, slotsPerWarp per warp (scratch slots past
    // eventsPerWarp); version 3 adds push/pop pairs, which the expansion splits.
    const bool compact = h.magic == WS_IKET_MAGIC_V2 || h.magic == WS_IKET_MAGIC_V3;
    const uint64_t slots = compact ? h.slotsPerWarp : h.eventsPerWarp;
    const uint64_t eventBytes = compact ? sizeof(WsIketCompactEvent) : sizeof(WsIketEvent);
    if ((h.magic != WS_IKET_MAGIC && !compact) || h.headerBytes != sizeof(WsIketBufferHeader)
        || (compact && (h.eventBytes != sizeof(WsIketCompactEvent) || slots < h.eventsPerWarp))
        || eventsOffset + warps * slots * eventBytes > s->bytes) {
        r->message(
            raw::MessageLevel::Warning, "warpscope_iket_submit: a buffer that does not match its header was ignored");
        return -3;
    }
    const auto* bytes = static_cast<const char*>(s->data);
    std::vector<uint32_t> attempted(warps);
    std::memcpy(attempted.data(), bytes + sizeof(WsIketBufferHeader), warps * sizeof(uint32_t));
    raw::IketLaunchRecord rec {};
    rec.armedNs = s->armedMonotonicNs;
    rec.collectedNs = s->collectedMonotonicNs;
    rec.tid = s->tid;
    rec.label = r->writer().intern(s->label ? s->label : "");
    rec.names = r->writer().intern(s->names ? s->names : "");
    std::copy(std::begin(s->grid), std::end(s->grid), rec.grid);
    std::copy(std::begin(s->block), std::end(s->block), rec.block);
    rec.device = s->device;
    rec.warpsPerBlock = h.warpsPerBlock;
    rec.eventsPerWarp = h.eventsPerWarp;
    rec.totalWarps = static_cast<uint32_t>(warps);
    rec.outOfRangeWarps = h.outOfRangeWarps;
    const char* events = bytes + eventsOffset;
    // A compact buffer becomes the 32-byte events the raw record holds (one decoder for all).
    std::vector<raw::IketEvent> expanded;
    if (compact) {
        std::vector<uint32_t> stored(warps);
        for (uint64_t w = 0; w < warps; ++w)
            stored[w] = std::min<uint32_t>(attempted[w], h.eventsPerWarp);
        expanded.resize(warps * h.eventsPerWarp);
        iket::expandCompact(reinterpret_cast<const iket::CompactEvent*>(events), slots, stored.data(),
            static_cast<uint32_t>(warps), h.warpsPerBlock, expanded.data(), h.eventsPerWarp);
        events = reinterpret_cast<const char*>(expanded.data());
    }
    if (iket::singleFrameBytes(rec, attempted.data()) > raw::kMaxFramePayload) {
        // Too large for one frame: as many frames as it takes, every event kept (ingest joins them).
        static std::atomic<uint64_t> serial {0};
        std::string error;
        const auto parts = iket::splitLaunch(rec, attempted.data(), events, serial++, raw::kMaxFramePayload, error);
        if (parts.empty()) {
            r->message(raw::MessageLevel::Warning, "warpscope_iket_submit: a launch was not recorded: " + error);
            return -4;
        }
        for (const auto& part : parts)
            r->writer().add(raw::kIketLaunchPartType, part.record, part.trailing);
        return 0;
    }
    // One frame: the counts, then each warp's stored events (the unused slots squeezed out).
    std::string trailing(reinterpret_cast<const char*>(attempted.data()), warps * sizeof(uint32_t));
    for (uint64_t w = 0; w < warps; ++w) {
        const uint64_t stored = std::min<uint64_t>(attempted[w], h.eventsPerWarp);
        trailing.append(events + w * h.eventsPerWarp * sizeof(WsIketEvent), stored * sizeof(WsIketEvent));
    }
    r->writer().add(raw::kIketLaunchType, rec, trailing);
    return 0;
}

} // namespace

namespace ws::inject::iketsubmit {

void shutdown()
{
    Recorder* r = Recorder::instance();
    const uint64_t launches = g_uncapturedLaunches.load();
    if (!r || r->closed() || launches == 0)
        return;
    r->message(raw::MessageLevel::Warning,
        "in-kernel trace: " + std::to_string(launches) + " launch(es) with " + std::to_string(g_uncapturedEvents.load())
            + " events ended while the recorder was not capturing (outside the capture range): not recorded");
}

} // namespace ws::inject::iketsubmit

extern "C" __attribute__((visibility("default"))) int warpscope_iket_submit(const WsIketSubmission* s)
{
    return submit(s);
}

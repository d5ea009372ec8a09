// SPDX-License-Identifier: MIT
// warpscope_iket_submit: the entry point warpscope/iket.cuh calls after an instrumented kernel
// finished, with a host copy of its event buffer. The buffer goes into the raw file as one
// IketLaunch record (unused slots squeezed out); ingest decodes it into warp_event rows.
#include "recorder.h"

#include "core/raw/iketformat.h"
#include "warpscope/iket_abi.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace {

int submit(const WsIketSubmission* s)
{
    using namespace ws;
    inject::Recorder* r = inject::Recorder::instance();
    if (!r || r->closed())
        return -1;
    if (!s || s->abiVersion != WS_IKET_ABI_VERSION || s->structBytes < sizeof(WsIketSubmission) || !s->data
        || s->bytes < sizeof(WsIketBufferHeader))
        return -2;
    if (!r->capturing())
        return 1;
    WsIketBufferHeader h;
    std::memcpy(&h, s->data, sizeof(h));
    const uint64_t warps = uint64_t {h.blocks} * h.warpsPerBlock;
    const uint64_t countsEnd = sizeof(WsIketBufferHeader) + warps * sizeof(uint32_t);
    const uint64_t eventsOffset = (countsEnd + 15u) & ~uint64_t {15u};
    if (h.magic != WS_IKET_MAGIC || h.headerBytes != sizeof(WsIketBufferHeader)
        || eventsOffset + warps * h.eventsPerWarp * sizeof(WsIketEvent) > s->bytes) {
        r->message(
            raw::MessageLevel::Warning, "warpscope_iket_submit: a buffer that does not match its header was ignored");
        return -3;
    }
    const auto* bytes = static_cast<const char*>(s->data);
    std::string trailing(bytes + sizeof(WsIketBufferHeader), warps * sizeof(uint32_t));
    raw::IketLaunchRecord rec {};
    const uint64_t room = raw::kMaxFramePayload - sizeof(rec);
    for (uint64_t w = 0; w < warps; ++w) {
        uint32_t n = 0;
        std::memcpy(&n, bytes + sizeof(WsIketBufferHeader) + w * sizeof(uint32_t), sizeof(n));
        uint64_t stored = std::min<uint64_t>(n, h.eventsPerWarp);
        const uint64_t fits = (room - std::min<uint64_t>(room, trailing.size())) / sizeof(WsIketEvent);
        if (stored > fits) {
            // A frame has a size limit: the rest is left out and counted, and this warp's count
            // says what it holds, so the decoder reads what is there.
            rec.truncatedEvents += stored - fits;
            stored = fits;
            const auto shown = static_cast<uint32_t>(stored);
            std::memcpy(trailing.data() + w * sizeof(uint32_t), &shown, sizeof(shown));
        }
        trailing.append(bytes + eventsOffset + w * h.eventsPerWarp * sizeof(WsIketEvent), stored * sizeof(WsIketEvent));
    }
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
    r->writer().add(raw::kIketLaunchType, rec, trailing);
    return 0;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int warpscope_iket_submit(const WsIketSubmission* s)
{
    return submit(s);
}

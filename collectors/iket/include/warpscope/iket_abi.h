// SPDX-License-Identifier: MIT
#pragma once

/* The binary contract between warpscope/iket.cuh (compiled into the user's program) and
 * libwarpscope-inject.so, and the layout of the per-launch event buffer that the kernel writes.
 * Plain C layout with fixed-size fields: the injection library and the decoder read it without
 * CUDA headers, and a program built against an older header must still be understood.
 *
 * Buffer layout in device memory (and in the host copy handed to the recorder):
 *   WsIketBufferHeader                                   64 bytes
 *   uint32_t count[totalWarps]                           events each warp attempted
 *   (padding to 16 bytes)
 *   events[totalWarps * slotsPerWarp]                    warp w's slots start at w * slotsPerWarp
 * Two event layouts, told apart by the header's magic:
 *   WS_IKET_MAGIC     (version 1): WsIketEvent, 32 bytes, slotsPerWarp = eventsPerWarp.
 *   WS_IKET_MAGIC_V2  (version 2): WsIketCompactEvent, 16 bytes; slotsPerWarp >= eventsPerWarp,
 *                     the slots past eventsPerWarp are scratch a full warp writes into instead of
 *                     branching (never read). Each warp's first event is an anchor.
 *   WS_IKET_MAGIC_V3  (version 3): version 2 plus WsIketPushPop events (a push and the pop that
 *                     came right after it in one slot; the pop's slot left unwritten). A recorder
 *                     that knows only version 2 rejects it rather than misreading it.
 * A warp stores at most eventsPerWarp events; count - eventsPerWarp (when positive) were dropped.
 * Warps beyond totalWarps (a grid larger than registered) store nothing and are counted in
 * header.outOfRangeWarps. Nothing is ever written outside the buffer. */

#include <stdint.h>

#define WS_IKET_MAGIC 0x54454b49u    /* "IKET" little-endian */
#define WS_IKET_MAGIC_V2 0x3254454bu /* "KET2": compact 16-byte events (an older recorder rejects it) */
#define WS_IKET_MAGIC_V3 0x3354454bu /* "KET3": compact events with push/pop pairs */
/* The submission's version (WsIketSubmission); the buffer's own layout is told by its magic. */
#define WS_IKET_ABI_VERSION 1u
#define WS_IKET_BUFFER_VERSION_COMPACT 2u
#define WS_IKET_BUFFER_VERSION_PAIRS 3u

enum WsIketKind {
    WsIketPush = 0,   /* range_push(name) */
    WsIketPop = 1,    /* range_pop() */
    WsIketStart = 2,  /* range_start(name): token = this event's index in the warp */
    WsIketEnd = 3,    /* range_end(token) */
    WsIketMark = 4,   /* mark(name) */
    WsIketRole = 5,   /* role(name): the warp's role from here on */
    WsIketAnchor = 6, /* WARPSCOPE_IKET_CLOCK64_ONLY: globaltimer + clock64 when the profiler starts and ends */
    WsIketPushPop = 7 /* version 3 buffers only: a range_push whose range_pop was the warp's next call, in
                         the push's slot (clockLo, globaltimerLo: the push's; token: the pop's clockLo).
                         The pop's own slot, the next one, is not written. */
};

typedef struct WsIketEvent {
    uint64_t globaltimer; /* %globaltimer, ns; 0 under WARPSCOPE_IKET_CLOCK64_ONLY except anchors */
    uint64_t clock;       /* clock64() of the SM */
    uint32_t block;       /* linear block index in the grid */
    uint16_t sm;          /* %smid */
    uint16_t warp;        /* warp index within the block */
    uint16_t name;        /* index into the launch's name list */
    uint8_t kind;         /* WsIketKind */
    uint8_t reserved;
    uint32_t token; /* WsIketStart: own index; WsIketEnd: the start's index; else own index */
} WsIketEvent;

/* Version 2 event, 16 bytes, one vector store. Block and warp are the slot's; the SM, the
 * globaltimer's high word and the clock's full value live in the warp's anchors:
 *   clockLo      low 32 bits of clock64 (the decoder unwraps them in the warp's order)
 *   globaltimerLo low 32 bits of %globaltimer when nameKind has WS_IKET_EVENT_GLOBALTIMER
 *                (always in anchors); else 0 (events timed by clock64 alone)
 *   nameKind     name (bits 0-15; an anchor's: the SM) | kind (16-23) | flags (24-31):
 *                WS_IKET_EVENT_GLOBALTIMER when globaltimerLo was read for this event
 *   token        WsIketStart: own index; WsIketEnd: the start's index; an anchor's: the high
 *                32 bits of %globaltimer; WsIketPushPop: the pop's clockLo; else 0 (the decoder
 *                gives the event its own index) */
typedef struct WsIketCompactEvent {
    uint32_t clockLo;
    uint32_t globaltimerLo;
    uint32_t nameKind;
    uint32_t token;
} WsIketCompactEvent;

#define WS_IKET_EVENT_GLOBALTIMER 0x01000000u /* nameKind flag: globaltimerLo is valid */

typedef struct WsIketBufferHeader {
    uint32_t magic;   /* WS_IKET_MAGIC, WS_IKET_MAGIC_V2 or WS_IKET_MAGIC_V3 */
    uint32_t version; /* 1, WS_IKET_BUFFER_VERSION_COMPACT or WS_IKET_BUFFER_VERSION_PAIRS */
    uint32_t warpsPerBlock;
    uint32_t eventsPerWarp;
    uint32_t blocks;
    uint32_t headerBytes;               /* sizeof(WsIketBufferHeader) */
    unsigned long long outOfRangeWarps; /* warps that found no slot (grid larger than registered) */
    uint32_t slotsPerWarp;              /* version 2 (0 in version 1: eventsPerWarp) */
    uint32_t eventBytes;                /* version 2: sizeof(WsIketCompactEvent) */
    unsigned long long reserved[3];
} WsIketBufferHeader;

/* One finished launch, handed to the recorder after the kernel completed. */
typedef struct WsIketSubmission {
    uint32_t abiVersion;          /* WS_IKET_ABI_VERSION */
    uint32_t structBytes;         /* sizeof(WsIketSubmission) of the caller */
    int64_t armedMonotonicNs;     /* CLOCK_MONOTONIC just before the launch call */
    int64_t collectedMonotonicNs; /* after the copy back */
    int64_t tid;                  /* OS thread that launched */
    const char* label;            /* the user's name for the launch (may be empty) */
    const char* names;            /* comma-separated name list; id i = i-th entry */
    uint32_t grid[3];
    uint32_t block[3];
    int32_t device;
    uint32_t reserved;
    const void* data; /* host copy of the whole buffer (layout above); NULL in a loss report */
    uint64_t bytes;
    /* Since structBytes covers them (older callers stop above): launches of this buffer that ran
     * without arm() since the previous hand-over, found by their counts (the recorder cannot see
     * them otherwise; each such launch overwrites the counts, so of several only the last one's
     * remain). A loss report (data NULL) carries only these. */
    uint64_t unarmedWarps;  /* warps that wrote events no collect() handed over (not armed) */
    uint64_t unarmedEvents; /* the events they attempted */
} WsIketSubmission;

/* Exported by libwarpscope-inject.so. 0: recorded (or the loss reported); 1: not capturing now
 * (counted and reported as lost); < 0: rejected. */
typedef int (*WsIketSubmitFn)(const WsIketSubmission*);
#define WS_IKET_SUBMIT_SYMBOL "warpscope_iket_submit"

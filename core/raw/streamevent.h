// SPDX-License-Identifier: MIT
#pragma once

// Cross-stream dependencies: the raw record of one cudaEventRecord / cuEventRecord,
// cudaStreamWaitEvent / cuStreamWaitEvent or cudaEventSynchronize / cuEventSynchronize call,
// with the event and stream handles the program passed. Header-only like raw/rawformat.h
// (compiled into libwarpscope-inject.so). Type RecordType::StreamEvent (60).
//
// The recorder takes these from CUPTI's callback API (the activity API's records carry no
// handles): one record per call the program made, whether through the runtime or the driver
// (a driver call the runtime makes on the program's behalf is not recorded twice).

#include <cstdint>

namespace ws::raw {

enum class StreamEventOp : uint8_t {
    Record = 0,      // the event is recorded on `stream`
    Wait = 1,        // `stream` waits for the event's latest record
    Synchronize = 2, // the calling thread waits for the event's latest record (no stream)
};

struct StreamEventRecord {
    int64_t start; // CLOCK_MONOTONIC at API entry and exit, on the calling thread
    int64_t end;
    int64_t tid;
    uint64_t event;         // CUevent / cudaEvent_t as the process sees it
    uint64_t stream;        // CUstream / cudaStream_t as passed (0: the default stream); 0 for Synchronize
    uint32_t correlationId; // CUPTI's: orders the call among the program's launches
    uint32_t contextId;
    uint32_t deviceId;
    uint32_t streamId; // the program's id of `stream` (cuStreamGetId; the session's GPU rows carry it); 0 unknown
    uint32_t cbid;
    uint32_t flags; // the call's flags argument
    int32_t returnValue;
    uint8_t op;              // StreamEventOp
    uint8_t domain;          // ApiDomain (raw/rawformat.h)
    uint8_t perThreadStream; // a _ptsz entry point: stream 0 is the per-thread default stream
    uint8_t reserved;
};

} // namespace ws::raw

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ws {

// Sees every event row a SessionWriter stores, with its final id, and at commit hands back
// derived rows the writer stores with them (today: the lane cache, table lane_blob). The store
// defines it so that it never depends on what derives the rows: core/timeline implements it
// (attachLaneCache in core/timeline/lanebuilder.h) and the writer's caller attaches it.
class SessionRowObserver {
public:
    virtual ~SessionRowObserver() = default;

    virtual void stored(const KernelRecord&) { }
    virtual void stored(const MemcpyRecord&) { }
    virtual void stored(const MemsetRecord&) { }
    virtual void stored(const ApiCallRecord&) { }
    virtual void stored(const NvtxRangeRecord&) { }
    virtual void stored(const SyncRecord&) { }

    // One lane_blob row: key, format and the encoded chunk.
    struct LaneChunkRow {
        std::string key;
        int64_t format = 0;
        std::vector<std::byte> data;
    };
    // At commit, once the string table is final (`stringCount` strings): emit the lane cache.
    virtual void finish(StringId stringCount, const std::function<void(LaneChunkRow&&)>& emit) = 0;
};

} // namespace ws

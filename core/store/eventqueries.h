// SPDX-License-Identifier: MIT
#pragma once

// Typed point reads the viewer needs beyond SessionReader's whole-table reads: one row by id,
// which of a few rows carry a correlation id, and the counter tracks with their samples. The
// SQL stays here, in core/store; callers pass a reader (one per thread, as SessionReader asks).

#include "core/model/records.h"
#include "core/util/cancellation.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace ws {

class SessionReader;

// The row of table Codec<R>::table whose id is `id`, or nullopt. Defined for KernelRecord,
// MemcpyRecord, MemsetRecord, ApiCallRecord, NvtxRangeRecord, SyncRecord and WarpEvent.
// Throws SessionError naming the file when the read fails.
template <class R> std::optional<R> readRowById(const SessionReader& reader, int64_t id);

// Of `ids` (rows of Codec<R>::table), those whose correlation_id is `correlationId`, in
// ascending id order. Defined for KernelRecord, MemcpyRecord, MemsetRecord and ApiCallRecord.
template <class R>
std::vector<int64_t> idsWithCorrelation(
    const SessionReader& reader, uint32_t correlationId, std::span<const int64_t> ids);

// The counter tracks in id order.
std::vector<CounterTrack> readCounterTracks(const SessionReader& reader);
// Every counter sample in file order, handed to `sink`. Stops (returns false) when `cancel`
// is set; it is checked every 64k rows.
bool forEachCounterSample(const SessionReader& reader, const std::function<void(const CounterSample&)>& sink,
    const CancellationToken& cancel = {});

} // namespace ws

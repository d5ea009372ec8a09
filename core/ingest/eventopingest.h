// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/raw/streamevent.h"

#include <cstdint>

namespace ws {

// One raw stream-event record (raw/streamevent.h) of process `pid` as an event_op row. The
// record's times are the recorder's own CLOCK_MONOTONIC readings, so no CUPTI clock shift.
EventOpRecord eventOpOf(const raw::StreamEventRecord& r, int64_t pid);

} // namespace ws

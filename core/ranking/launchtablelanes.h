// SPDX-License-Identifier: MIT
#pragma once

#include "core/ranking/kernellaunchtable.h"
#include "core/util/cancellation.h"

#include <cstdint>
#include <optional>
#include <set>

namespace ws {

class SessionReader;
struct TimelineModel;

// The kernel launch table from what opening the timeline already read: the lanes hold every
// kernel's start, end, process, device, stream and row id, and the lane cache's launch rows
// (format 2, core/timeline/launchblob.h) each kernel's names, run and launch configuration. Equal
// to KernelLaunchTable::build over the file's kernel rows of `runIds` (all of them when empty,
// as SessionFileSource::timingRunIds says), without decoding a kernel row: SQLite's decode of 2.9M
// rows was most of what the kernel panels waited for on a 10M-event session.
// nullopt when `lanes` did not come from the lane cache, the file has no launch rows (written
// before format 2) or they do not describe exactly the lanes' kernels: the caller reads the rows
// then. Throws SessionError naming the file for a launch row that fails its checksum, and
// SessionError(Cancelled) once `cancel` fires.
std::optional<KernelLaunchTable> launchTableFromLanes(const SessionReader& reader, const TimelineModel& lanes,
    const std::set<uint32_t>& runIds, const CancellationToken& cancel = {});

} // namespace ws

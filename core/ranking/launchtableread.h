// SPDX-License-Identifier: MIT
#pragma once

#include "core/ranking/kernellaunchtable.h"

namespace ws {

class SessionFileSource;

// The kernel launch table of a session file, its kernel rows read in `parts` slices by id, each
// on a connection and a thread of its own, then merged (KernelLaunchTable::merge): equal to
// KernelLaunchTable::build(source). SQLite decodes about a million kernel rows a second on one
// core, and this read is what the kernel panels wait for on a 10M-event session. Read errors
// and cancellation propagate as from build (every slice is finished or stopped first).
// parts = 0: launchTableParts of the table's size.
KernelLaunchTable readKernelLaunchTable(
    const SessionFileSource& source, const CancellationToken& cancel = {}, unsigned parts = 0);

// How many slices to read `rows` kernel rows in: one per core up to four, and one for small
// tables (a slice costs a connection, its header reads and a thread).
unsigned launchTableParts(int64_t rows);

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

namespace ws {

// A half-open interval [begin, end) of session time that panels filter by (the timeline's
// range selection). An event belongs to the window when it overlaps it: a kernel that starts
// before the window and ends inside counts, with its whole duration (nothing is clipped, so
// a kernel's figures never depend on where the user dragged).
struct TimeWindow {
    TimeNs begin = 0;
    TimeNs end = 0;

    bool isEmpty() const { return end <= begin; }
    // Zero-length events (marks, zero-duration records) overlap when they lie inside.
    bool overlaps(TimeNs start, TimeNs stop) const
    {
        return start < end && (stop > begin || (stop == start && start >= begin));
    }
    bool operator==(const TimeWindow&) const = default;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/selectionmodel.h"
#include "ui/timeline/timelinepaintcontext.h"

class QPainter;

namespace ws {

// The time ruler above the rows: ticks with times relative to the session start (or to the
// first tick deep into a long session), the range selection's extent and duration, and the
// visible span left of it.
class RulerPainter {
public:
    void paint(QPainter& p, const TimelinePaintContext& c, TimeRange selection) const;
};

} // namespace ws

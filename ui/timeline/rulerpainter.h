// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/selectionmodel.h"
#include "ui/timeline/rulerlabels.h"
#include "ui/timeline/timelinepaintcontext.h"

class QPainter;

namespace ws {

// The time ruler above the rows: ticks with times relative to the session start (or to the
// first tick deep into a long session), the range selection's extent and duration, and the
// visible span left of it.
class RulerPainter {
public:
    void paint(QPainter& p, const TimelinePaintContext& c, TimeRange selection);
    // Off: every tick's text drawn with drawText (what the cached images must equal; tests).
    void setCachesText(bool on) { m_cachesText = on; }
    const RulerLabels& labels() const { return m_labels; }

private:
    RulerLabels m_labels;
    bool m_cachesText = true;
};

} // namespace ws

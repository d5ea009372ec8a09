// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/streamdependencies.h"
#include "ui/session/selectionmodel.h"
#include "ui/timeline/timelinepaintcontext.h"

#include <QColor>
#include <QPoint>
#include <QRect>

#include <functional>
#include <map>
#include <utility>
#include <vector>

class QPainter;

namespace ws {

// The dependencies between streams (SessionSnapshot::dependencies), drawn over the rows: per
// dependency a marker where the event was recorded (on the recording stream's row, at the
// record call's time), one where the other stream waited for it (on the waiting stream's row,
// at the wait call's time), and an arrow record -> wait -> the first GPU op after the wait.
// When a GPU op that waited is selected, what it waited for is highlighted: the producer op
// on the other stream is outlined and a bold arrow runs from its end to the selected op.
// Host waits (cudaEventSynchronize) have no stream row to point at and are not drawn.
class DependencyPainter {
public:
    // Widget rectangle of a lane's row (event area part), empty when not shown.
    using LaneRect = std::function<QRect(int lane)>;

    // Orange, apart from the launch arrow's colour and the selection's.
    static QColor color() { return QColor(0xff, 0x7f, 0x0e); }

    // Where one dependency is drawn, in widget coordinates (the markers' centres).
    struct Arrow {
        const StreamDependency* dependency = nullptr;
        QPoint record;
        QPoint wait;
        QPoint consumer; // the consumer's start; only when hasConsumer
        bool hasConsumer = false;
        QRect producer;           // the producer op; empty when it has none or its row is not shown
        bool highlighted = false; // the selected op is this dependency's consumer
    };

    // The arrows of the dependencies whose two rows are shown (`selected`: the selected event).
    std::vector<Arrow> arrows(
        const TimelinePaintContext& c, const LaneRect& laneRect, const EventSelection& selected) const;
    void paint(
        QPainter& p, const TimelinePaintContext& c, const LaneRect& laneRect, const EventSelection& selected) const;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

// The timeline's rows as the user sees them with every group expanded: depth, kind, label and
// path of each row in order, and for a lane row its laneLine() (lanedump.h). Used by the v1
// goldens (tests/fixtures/v1golden/*.rows.txt, written by this function compiled against the
// code before the schema-v2 redesign).

#include "lanedump.h"
#include "ui/session/sessionsnapshot.h"
#include "ui/timeline/timelinerowmodel.h"

#include <sstream>
#include <string>

namespace ws {

inline std::string dumpRows(TimelineRowModel& rows)
{
    rows.expandAll(true);
    const auto snapshot = rows.snapshot();
    const TimelineModel& model = *snapshot->model;
    std::ostringstream out;
    for (const TimelineRowModel::Row& row : rows.rows()) {
        out << std::string(static_cast<size_t>(row.depth) * 2, ' ') << static_cast<int>(row.kind) << " \""
            << row.label.toStdString() << "\" path=\"" << row.path.toStdString() << "\" note=\""
            << row.note.toStdString() << '"';
        if (row.lane >= 0)
            out << ' ' << laneLine(model, model.lanes[static_cast<size_t>(row.lane)]);
        if (row.counter >= 0)
            out << " counter=" << row.counter;
        out << '\n';
    }
    return out.str();
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

// A text digest of a TimelineModel's lanes: one line per lane with its kind, owner, label, event
// count and a 64-bit FNV-1a hash over every event's start, end, name text, table and row id. The v1 golden files
// in tests/fixtures/v1golden were written by this same function compiled against the code
// before the issue-16 redesign (schema v1 writer, lanes from core/timeline without TrackKind),
// so tst_v1golden compares today's lanes with what users saw then, event by event.

#include "core/timeline/timelinemodel.h"

#include <cstdint>
#include <sstream>
#include <string>

namespace ws {

inline std::string dumpLanes(const TimelineModel& model)
{
    std::ostringstream out;
    out << "begin " << model.begin << " end " << model.end << " events " << model.eventCount << " lanes "
        << model.lanes.size() << '\n';
    for (const TimelineLane& lane : model.lanes) {
        uint64_t hash = 1469598103934665603ull;
        TimeNs firstStart = 0;
        for (size_t i = 0; i < lane.size(); ++i) {
            std::ostringstream event;
            event << lane.start[i] << ' ' << lane.end[i] << ' ' << model.strings.at(lane.name[i]) << ' '
                  << static_cast<int>(lane.ref[i].table()) << ' ' << lane.ref[i].rowid() << '\n';
            for (const char c : event.str())
                hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
            if (i == 0)
                firstStart = lane.start[i];
        }
        out << "lane kind=" << static_cast<int>(lane.kind) << " pid=" << lane.pid << " tid=" << lane.tid
            << " device=" << lane.deviceId << " stream=" << lane.streamId << " depth=" << lane.depth
            << " kernel=" << lane.kernelId << " block=" << lane.block << " warp=" << lane.warp << " label=\""
            << lane.label << "\" n=" << lane.size() << " first=" << firstStart << " events=" << std::hex << hash
            << std::dec << '\n';
    }
    return out.str();
}

} // namespace ws

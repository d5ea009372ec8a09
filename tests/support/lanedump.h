// SPDX-License-Identifier: MIT
#pragma once

// Text digests of what a session shows, for the v1 goldens in tests/fixtures/v1golden (written
// by these same functions compiled against the code before the schema-v2 redesign, see the
// README there): laneLine() describes one lane — kind, owner, label, event count and a 64-bit
// FNV-1a hash over every event's start, end, name text, table and row id; dumpLanes() lists
// every lane of a model sorted by that line (the model's internal lane order is not what users
// see: rowdump.h dumps the rows in the order the timeline shows them).

#include "core/timeline/timelinemodel.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace ws {

inline std::string laneLine(const TimelineModel& model, const TimelineLane& lane)
{
    uint64_t hash = 1469598103934665603ull;
    for (size_t i = 0; i < lane.size(); ++i) {
        std::ostringstream event;
        event << lane.start[i] << ' ' << lane.endAt(i) << ' ' << model.strings.at(lane.name[i]) << ' '
              << static_cast<int>(lane.ref[i].table()) << ' ' << lane.ref[i].rowid() << '\n';
        for (const char c : event.str())
            hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    std::ostringstream out;
    out << "lane kind=" << static_cast<int>(lane.kind) << " pid=" << lane.pid << " tid=" << lane.tid
        << " device=" << lane.deviceId << " stream=" << lane.streamId << " depth=" << lane.depth
        << " kernel=" << lane.kernelId << " block=" << lane.block << " warp=" << lane.warp << " label=\"" << lane.label
        << "\" n=" << lane.size() << " first=" << (lane.size() ? lane.start[0] : 0) << " events=" << std::hex << hash;
    return out.str();
}

inline std::string dumpLanes(const TimelineModel& model)
{
    std::vector<std::string> lines;
    for (const TimelineLane& lane : model.lanes)
        lines.push_back(laneLine(model, lane));
    std::sort(lines.begin(), lines.end());
    std::ostringstream out;
    out << "begin " << model.begin << " end " << model.end << " events " << model.eventCount << " lanes "
        << model.lanes.size() << '\n';
    for (const std::string& line : lines)
        out << line << '\n';
    return out.str();
}

} // namespace ws

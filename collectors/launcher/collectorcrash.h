// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ws {

// A crash report an injection library wrote (collectors/crash: $WS_CRASH_DIR/crash-<pid>.txt)
// when the program crashed while it was loaded, read back by the launcher after the exit: the
// user learns whether the crash happened inside one of the collector's callbacks (our bug, a
// failed collection) or in the program's own code.
struct CollectorCrash {
    int pid = 0;
    int signal = 0;
    std::string signalName;
    // What the collector was doing ("replaying launch 2 (NAME) ..."); empty when the program
    // crashed in its own code, or the collector does not note its activity (the recorder).
    std::string activity;
    std::string report; // the whole report, stack included
    bool insideCollector() const { return !activity.empty(); }
};

// Parses one report; pid from the file name when read from a directory. signal 0 when the text
// is not a report.
CollectorCrash parseCollectorCrash(const std::string& text);
// Every crash-<pid>.txt in `dir`, by pid.
std::vector<CollectorCrash> readCollectorCrashes(const std::filesystem::path& dir);

} // namespace ws

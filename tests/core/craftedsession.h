// SPDX-License-Identifier: MIT
#pragma once

// Sessions built in code for the recipe, link and append tests: one run of a program, with the
// kernels it launched (names in launch order) in one process.
#include "core/model/sessiondata.h"
#include "core/store/runinference.h"
#include "core/store/runrecipe.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <map>
#include <string>
#include <vector>

namespace ws::test {

struct CraftedRun {
    std::string kind = "trace";
    std::string commandLine = "/bin/prog --iters 5";
    std::string cwd = "/tmp";
    std::string host = "elsewhere";
    std::string user = "mallory";
    std::string collectorArguments; // "" : none stored
    std::map<std::string, std::string> options;
    std::map<std::string, std::string> environment;
    std::vector<std::string> kernels; // launch order
    std::string process = "prog";
    int64_t pid = 100;
};

inline SessionData craftedSession(const CraftedRun& c)
{
    SessionData d;
    RunInfo run;
    run.id = 1;
    run.kind = c.kind;
    run.commandLine = c.commandLine;
    run.cwd = c.cwd;
    run.host = c.host;
    run.user = c.user;
    run.startRealtimeNs = 1'700'000'000'000'000'000;
    run.endRealtimeNs = run.startRealtimeNs + 1'000'000;
    std::map<std::string, std::string> options = c.options;
    if (!c.collectorArguments.empty())
        options[kCollectorArgumentsOption] = c.collectorArguments;
    run.optionsJson = store::toJsonObject(options);
    run.environmentJson = store::toJsonObject(c.environment);
    d.runs = {run};
    ProcessInfo p;
    p.pid = c.pid;
    p.name = c.process;
    p.commandLine = c.commandLine;
    p.exitCode = 0;
    d.processes = {p};
    for (size_t i = 0; i < c.kernels.size(); ++i) {
        KernelRecord k;
        k.id = static_cast<int64_t>(i) + 1;
        k.pid = c.pid;
        k.start = 1000 * (static_cast<int64_t>(i) + 1);
        k.end = k.start + 500;
        k.mangledName = k.demangledName = k.shortName = d.strings.intern(c.kernels[i]);
        k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
        d.kernels.push_back(k);
    }
    return d;
}

inline void writeSession(const std::string& path, const SessionData& data)
{
    SessionWriter writer(path);
    attachLaneCache(writer);
    writer.write(data);
    writer.commit();
}

} // namespace ws::test

// SPDX-License-Identifier: MIT
// warpscope-cli merge A.wscope B.wscope... -o OUT: one multi-run session from several sessions
// of one program (a trace and its profile...), with profiled launches linked to traced ones.
#include "command.h"

#include "core/store/sessionmerge.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct MergeCommandOptions {
    std::vector<std::string> inputs;
    std::string output;
};

void runMerge(const MergeCommandOptions& o)
{
    if (o.inputs.size() < 2)
        throw std::runtime_error("merge needs at least two sessions (got " + std::to_string(o.inputs.size()) + ")");
    for (const std::string& input : o.inputs) {
        if (input == o.output)
            throw std::runtime_error(o.output + ": the output must not be one of the inputs");
    }
    ws::SessionData merged = ws::SessionReader(o.inputs.front()).readAll(); // throws SessionError naming the file
    std::vector<std::string> warnings;
    for (size_t i = 1; i < o.inputs.size(); ++i) {
        warnings.clear(); // the links of the last merge are the ones kept
        merged = ws::mergeSessions(std::move(merged), ws::SessionReader(o.inputs[i]).readAll(), &warnings);
    }
    for (const std::string& w : warnings)
        std::fprintf(stderr, "warpscope-cli merge: warning: %s\n", w.c_str());
    ws::SessionWriter writer(o.output);
    ws::attachLaneCache(writer);
    writer.write(merged);
    writer.commit();
    std::fprintf(stderr, "wrote %s: %zu runs, %zu kernels, %zu profiled launches linked to traced ones\n",
        o.output.c_str(), merged.runs.size(), merged.kernels.size(), merged.kernelLinks.size());
}

ws::cli::CommandRegistrar registrar(
    {"85-merge", [](CLI::App& app, int&) {
         auto* cmd = app.add_subcommand("merge", "Combine sessions of one program into one multi-run session");
         cmd->footer("The runs of each further session are appended to the first one's (ids, strings and clashing "
                     "pids renumbered). A profiled launch is linked to the traced launch of the same process, kernel "
                     "and per-kernel launch ordinal, so the traced kernels show the profile's metrics. See "
                     "docs/session-format.md (schema v2).");
         auto o = std::make_shared<MergeCommandOptions>();
         cmd->add_option("sessions", o->inputs, "Sessions to combine (.wscope), the trace first")->required();
         cmd->add_option("-o,--output", o->output, "Session file to write (.wscope)")->required();
         cmd->callback([o] { runMerge(*o); });
     }});

} // namespace

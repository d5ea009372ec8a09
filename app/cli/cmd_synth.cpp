// SPDX-License-Identifier: MIT
// warpscope-cli synth --events N --seed S -o FILE: deterministic synthetic sessions.
#include "command.h"

#include "core/report/reportformat.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

struct SynthCommandOptions {
    int64_t events = 100000;
    uint64_t seed = 1;
    std::string output;
};

void runSynth(const SynthCommandOptions& o)
{
    if (o.events <= 0)
        throw std::runtime_error(o.output + ": --events must be positive (got " + std::to_string(o.events) + ")");
    ws::SynthOptions options;
    options.events = o.events;
    options.seed = o.seed;
    const auto begin = std::chrono::steady_clock::now();
    ws::SessionWriter writer(o.output); // throws SessionError naming the file
    ws::attachLaneCache(writer);
    ws::writeSyntheticSession(options, writer);
    writer.commit();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    std::fprintf(stderr, "wrote %s: %s events (seed %llu) in %.2f s\n", o.output.c_str(),
        ws::formatCell(ws::ReportCell(writer.rowsWritten()), true).c_str(), static_cast<unsigned long long>(o.seed),
        seconds);
}

ws::cli::CommandRegistrar registrar(
    {"90-synth", [](CLI::App& app, int&) {
         auto* cmd = app.add_subcommand("synth", "Write a deterministic synthetic session (for tests and benchmarks)");
         cmd->footer("The session imitates a training loop: nested NVTX ranges, CUDA runtime and driver calls, "
                     "kernels, copies, memsets and syncs over several processes, threads, devices and streams. The "
                     "same --events and --seed always give the same tables; meta.synthetic = 1 marks it.");
         auto o = std::make_shared<SynthCommandOptions>();
         cmd->add_option("-n,--events", o->events, "Number of events over all event tables (default 100000)");
         cmd->add_option("-s,--seed", o->seed, "Random seed (default 1)");
         cmd->add_option("-o,--output", o->output, "Session file to write (.wscope)")->required();
         cmd->callback([o] { runSynth(*o); });
     }});

} // namespace

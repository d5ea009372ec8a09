// SPDX-License-Identifier: MIT
// warpscope-cli collect SESSION --kernel-id ID [--stalls] [--count N] [--dry-run] [--yes]: what
// the kernel views' "Collect metrics for this kernel" and "Sample stall reasons for this kernel"
// run. Re-runs the session's own program under `profile --append SESSION` with the kernel's
// exact name, its launch ordinal as --launch-skip and --launch-count N, so the profiled launch
// lands in the session linked to the traced one. Prints what it will run first; a session
// recorded by another user or on another host needs --yes.
//
// Exit status: 0 done (or --dry-run), 2 refused (foreign session without --yes) or bad input,
// 3 the kernel or the session cannot be re-run, 4 the program is not on this machine, 5 the
// profile step failed (it says why; a failed run is recorded in the session as failed).
#include "command.h"

#include "core/store/runrecipe.h"
#include "core/store/sessionreader.h"
#include "launcher/reciperunner.h"
#include "recipeplan.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

namespace fs = std::filesystem;

struct CollectArgs {
    std::string session;
    int64_t kernelId = 0;
    bool stalls = false;
    int64_t count = 1;
    bool dryRun = false;
    bool yes = false;
};

using ws::cli::Refusal;

std::string kernelName(const ws::StringTable& strings, const ws::KernelRecord& k)
{
    for (const ws::StringId id : {k.mangledName, k.demangledName, k.shortName}) {
        if (id != 0 && id < strings.size())
            return strings.at(id);
    }
    return {};
}

std::string joined(const std::vector<std::string>& lines)
{
    std::string out;
    for (const auto& l : lines)
        out += (out.empty() ? "" : "; ") + l;
    return out;
}

int runCollect(const CollectArgs& a)
{
    const std::string session = fs::absolute(a.session).lexically_normal().string();
    const ws::SessionReader reader(session); // throws SessionError naming the file
    const std::vector<ws::RunInfo> runs = reader.readRuns();
    const std::optional<ws::KernelRecord> kernel = reader.readKernel(a.kernelId);
    if (!kernel)
        throw Refusal(3, session + ": no kernel launch with id " + std::to_string(a.kernelId));
    const auto run
        = std::find_if(runs.begin(), runs.end(), [&](const ws::RunInfo& r) { return r.id == kernel->runId; });
    const std::string runKind = run == runs.end() ? std::string("?") : run->kind;
    if (runKind == "import")
        throw Refusal(3,
            session + ": kernel " + std::to_string(a.kernelId) + " belongs to run " + std::to_string(kernel->runId)
                + ", imported from another tool's file: there is no program to re-run (record the program with "
                  "warpscope-cli record first)");
    if (runKind != "trace")
        throw Refusal(3,
            session + ": kernel " + std::to_string(a.kernelId) + " belongs to run " + std::to_string(kernel->runId)
                + " (" + runKind + "), not to a trace run: pick the launch on the traced timeline");

    const ws::RunRecipe recipe = ws::recipeOf(runs);
    if (!recipe.runnable() || std::none_of(recipe.steps.begin(), recipe.steps.end(), [&](const ws::CollectorStep& s) {
            return s.runId == kernel->runId;
        })) {
        std::string why = joined(recipe.skipped);
        for (const std::string& s : recipe.skipped) {
            if (s.find("run " + std::to_string(kernel->runId) + " ") == 0)
                why = s;
        }
        throw Refusal(3,
            session + ": cannot re-run the program of kernel " + std::to_string(a.kernelId) + ": "
                + (why.empty() ? std::string("the session records no program") : why));
    }
    const std::optional<int64_t> ordinal = reader.launchOrdinal(a.kernelId);
    const std::string name = kernelName(reader.readStrings(), *kernel);
    if (!ordinal || name.empty())
        throw Refusal(3, session + ": kernel " + std::to_string(a.kernelId) + " has no name to select it by");

    std::string whyNot;
    const std::optional<ws::CollectorStep> planned
        = ws::kernelStep(a.stalls ? ws::KernelCollection::StallSampling : ws::KernelCollection::Metrics, name, *ordinal,
            a.count, *run, &whyNot);
    if (!planned)
        throw Refusal(3, session + ": cannot select kernel " + std::to_string(a.kernelId) + " again: " + whyNot);
    const ws::CollectorStep& step = *planned;
    const ws::RecipeRunner runner(recipe, "collect");
    if (!ws::cli::presentPlan(runner, {step}, {session}, {true}, a.dryRun, a.yes))
        return 0;
    const ws::ExitStatus status = runner.run(step, session, true, 0, 1);
    if (status.exitCode != 0)
        throw Refusal(5, "the profile step " + status.describe() + " (see its message above)");
    return 0;
}

ws::cli::CommandRegistrar registrar(
    {"17-collect", [](CLI::App& app, int& exitCode) {
         auto* cmd = app.add_subcommand("collect",
             "Profile one traced kernel launch (or N launches from it) by re-running the session's program, and append "
             "the run to the session: what the GUI's \"Collect metrics for this kernel\" runs");
         cmd->footer(
             "Prints the program, arguments, working directory and environment it will run first. A session "
             "recorded by another user or on another host is not run without --yes (exit 2). Exit status: 3 "
             "when the kernel or the session cannot be re-run (an import, a launch of a profile run), 4 when the "
             "program is not on this machine, 5 when the profile run failed.");
         auto a = std::make_shared<CollectArgs>();
         cmd->add_option("SESSION", a->session, "Session file (.wscope) with a trace run")->required();
         cmd->add_option("--kernel-id", a->kernelId, "Id of the traced kernel launch (kernel.id)")->required();
         cmd->add_flag("--stalls", a->stalls, "Sample stall reasons (PC sampling) instead of collecting --set full");
         cmd->add_option("--count", a->count, "Launches of that kernel to profile, from this one on (default 1)")
             ->check(CLI::PositiveNumber);
         cmd->add_flag("--dry-run", a->dryRun, "Print what would run, run nothing");
         cmd->add_flag("--yes", a->yes, "Run a session recorded by another user or on another host");
         cmd->callback([a, &exitCode] {
             try {
                 exitCode = runCollect(*a);
             } catch (const Refusal& r) {
                 exitCode = r.exitCode;
                 throw;
             }
         });
     }});

} // namespace

// SPDX-License-Identifier: MIT
// warpscope-cli rerun SESSION -o NEW [--dry-run] [--yes] [--force]: "Run again". Repeats every
// step of the session's recipe (the trace, the profiles, the benchmark) into NEW, the first step
// with -o NEW and the rest with --append NEW, and records SESSION as NEW's predecessor, so the
// compare window can take it as the baseline. Prints what it will run first; a session recorded
// by another user or on another host needs --yes.
//
// Exit status: 0 done (or --dry-run), 2 refused (foreign session without --yes) or bad input,
// 3 the session cannot be re-run, 4 the program is not on this machine, 5 a step failed.
#include "command.h"

#include "core/metrics/sessionmeta.h"
#include "core/store/metaupdate.h"
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

struct RerunArgs {
    std::string session;
    std::string output;
    bool dryRun = false;
    bool yes = false;
    bool force = false;
};

using ws::cli::Refusal;

std::string joined(const std::vector<std::string>& lines)
{
    std::string out;
    for (const auto& l : lines)
        out += (out.empty() ? "" : "; ") + l;
    return out;
}

int runRerun(const RerunArgs& a)
{
    const std::string session = fs::absolute(a.session).lexically_normal().string();
    const std::string output = fs::absolute(a.output).lexically_normal().string();
    std::error_code ec;
    if (output == session || (fs::exists(output, ec) && fs::equivalent(output, session, ec)))
        throw Refusal(2, output + ": the new session must not be the one re-run (" + a.session + ")");
    if (fs::exists(output, ec) && !a.force)
        throw Refusal(2, output + ": already exists; pass --force to replace it");
    if (!fs::is_directory(fs::path(output).parent_path(), ec))
        throw Refusal(2, output + ": the directory " + fs::path(output).parent_path().string() + " does not exist");

    const ws::SessionReader reader(session); // throws SessionError naming the file
    const ws::RunRecipe recipe = ws::recipeOf(reader.readRuns());
    if (recipe.steps.empty())
        throw Refusal(3,
            session + ": nothing to re-run: "
                + (recipe.skipped.empty() ? std::string("the session records no run") : joined(recipe.skipped)));

    const ws::RecipeRunner runner(recipe, "rerun");
    const size_t total = recipe.steps.size();
    std::vector<std::string> sessions(total, output);
    std::vector<bool> append(total, true);
    append.front() = false;
    if (!ws::cli::presentPlan(runner, recipe.steps, sessions, append, a.dryRun, a.yes))
        return 0;

    std::vector<std::string> failed;
    for (size_t i = 0; i < total; ++i) {
        const ws::ExitStatus status = runner.run(recipe.steps[i], output, append[i], i, total);
        if (status.exitCode == 0)
            continue;
        failed.push_back("step " + std::to_string(i + 1) + " (" + recipe.steps[i].kind + ") " + status.describe());
        // Without the first step's session the others have nothing to append to.
        if (i == 0 || !fs::exists(output, ec))
            throw Refusal(5,
                "step 1/" + std::to_string(total) + " (" + recipe.steps[i].kind + ") " + status.describe()
                    + ": no session was written to " + output);
    }
    ws::store::updateSessionMeta(output, ws::metakey::kPredecessor, session, "recording the predecessor");
    const size_t runs = ws::SessionReader(output).readRuns().size();
    std::fprintf(
        stderr, "warpscope-cli rerun: wrote %s: %zu run(s); predecessor %s\n", output.c_str(), runs, session.c_str());
    if (!failed.empty())
        throw Refusal(5, joined(failed) + " (recorded as failed in " + output + ")");
    return 0;
}

ws::cli::CommandRegistrar registrar(
    {"18-rerun", [](CLI::App& app, int& exitCode) {
         auto* cmd = app.add_subcommand("rerun",
             "Run a session's recipe again (every trace, profile and benchmark run of it) into a new session whose "
             "predecessor is the old one: the GUI's \"Run again\"");
         cmd->footer("Prints the program, arguments, working directory and environment it will run first. A session "
                     "recorded by another user or on another host is not run without --yes (exit 2). Exit status: 3 "
                     "when the session cannot be re-run (imports only), 4 when the program is not on this machine, 5 "
                     "when a step failed.");
         auto a = std::make_shared<RerunArgs>();
         cmd->add_option("SESSION", a->session, "Session file (.wscope) to repeat")->required();
         cmd->add_option("-o,--output", a->output, "New session file to write (.wscope)")->required();
         cmd->add_flag("--dry-run", a->dryRun, "Print what would run, run nothing");
         cmd->add_flag("--yes", a->yes, "Run a session recorded by another user or on another host");
         cmd->add_flag("--force", a->force, "Replace NEW if it exists");
         cmd->callback([a, &exitCode] {
             try {
                 exitCode = runRerun(*a);
             } catch (const Refusal& r) {
                 exitCode = r.exitCode;
                 throw;
             }
         });
     }});

} // namespace

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ws {

// Run option (run.options) in which every collector stores its own warpscope-cli arguments,
// shell-quoted (joinCommand): the subcommand and its options, without the output (-o/--append)
// and without the program. A recipe replays exactly these.
inline constexpr const char kCollectorArgumentsOption[] = "collector_arguments";
// Run options that say how a run ended: the target's exit ("exited with code 2", "killed by
// signal 9 (SIGKILL)") and, for a run whose collection failed, "failed: <reason>".
inline constexpr const char kRunStatusOption[] = "run_status";

// One collector invocation of a recipe.
struct CollectorStep {
    uint32_t runId = 0;                 // the run it repeats
    std::string kind;                   // trace | profile | pc-sampling | bench
    std::vector<std::string> arguments; // {"profile", "--set", "full", ...}
    bool operator==(const CollectorStep&) const = default;
};

// How a session's program was started and what collected it: what "Run again" and "profile
// this kernel" execute. Built from the run rows only; a session file is data, so nothing here
// runs anything and every field is shown to the user before it is used.
struct RunRecipe {
    std::vector<std::string> command; // program and arguments (run.command_line, split)
    std::string cwd;                  // run.cwd
    std::map<std::string, std::string>
        environment;  // recorded variables the program needs (collector-owned ones dropped)
    std::string host; // who recorded it, where
    std::string user;
    std::vector<CollectorStep> steps; // in run order; runs that cannot be repeated are left out
    std::vector<std::string> skipped; // one line per left-out run: "run 3 (import): nothing to run"

    bool runnable() const { return !command.empty() && !steps.empty(); }
};

// The recipe of a session's runs: the program of its first runnable run, and one step per run
// that used that program and a collector (runs of another program are skipped, with the reason).
RunRecipe recipeOf(const std::vector<RunInfo>& runs);

// The step that repeats `run`; nullopt with the reason in `whyNot` for imports, runs without a
// command line and runs whose collector arguments cannot be reconstructed.
std::optional<CollectorStep> stepOf(const RunInfo& run, std::string* whyNot = nullptr);

// Variables a collector sets for its target (injection paths, WS_* settings): recorded in run
// rows, never replayed.
bool isCollectorVariable(const std::string& name);

// warpscope-cli's argument list for `step` writing a new session (append = false: -o SESSION)
// or appending a run to one (--append SESSION), followed by "--" and the program.
std::vector<std::string> cliArguments(
    const CollectorStep& step, const std::string& session, bool append, const std::vector<std::string>& command);

// What the kernel views' "Collect metrics for this kernel" and "Sample stall reasons for this
// kernel" run.
enum class KernelCollection { Metrics, StallSampling };

// ncu's --kernel-name value that matches exactly the kernel with this mangled name (and no other
// instantiation of the same template): "regex:^<escaped>$".
std::string exactKernelFilter(const std::string& mangledName);

// The profile step for `count` launches of one kernel from the launch with index `ordinal` among
// its process's launches of it (SessionReader::launchOrdinal): --kernel-name exactKernelFilter(),
// --launch-skip ordinal, --launch-count count; metrics with --set full, stall reasons with
// --pc-sampling. `trace` is the run the launch was traced in, since the ordinal counts its
// launches only: a trace recorded inside cudaProfilerStart..Stop counts from there, so the step
// does too (--capture-range cudaProfilerApi); one recorded inside an NVTX range has no profile
// equivalent, and then there is no step and `whyNot` says why.
std::optional<CollectorStep> kernelStep(KernelCollection what, const std::string& mangledName, int64_t ordinal,
    int64_t count, const RunInfo& trace, std::string* whyNot = nullptr);

// The recipe's variables whose value differs from `current` (the environment the steps would
// inherit; nullopt = unset): what re-running changes, so that is what the user is shown. The
// steps still set every recorded variable.
std::map<std::string, std::string> environmentChanges(
    const RunRecipe& recipe, const std::function<std::optional<std::string>(const std::string&)>& current);

// True when the recipe was recorded by another user or on another host than (host, user): it
// must be confirmed before anything runs.
bool isForeign(const RunRecipe& recipe, const std::string& host, const std::string& user);

} // namespace ws

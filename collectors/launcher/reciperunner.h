// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/runrecipe.h"
#include "launcher/targetprocess.h"

#include <string>
#include <vector>

namespace ws {

// Runs the steps of a session's recipe (`warpscope-cli collect` and `rerun`): each step is this
// same executable started with the step's arguments (cliArguments) in the recipe's working
// directory with its recorded environment, exactly as the GUI starts it. A session file is
// data: nothing runs before plan() has been shown and the caller has checked foreign().
class RecipeRunner {
public:
    // `command`: "collect" or "rerun", for the lines it prints.
    RecipeRunner(RunRecipe recipe, std::string command);

    const RunRecipe& recipe() const { return m_recipe; }

    // What will run, for the user to read before it does: "will run: <program> <args>",
    // "in: <cwd>", "environment: NAME=value ..." (or "environment: no changes"), "recorded by:
    // user@host (...)", then one "step K/N: <kind>: <warpscope-cli> <args>" per step.
    std::vector<std::string> plan(const std::vector<CollectorStep>& steps, const std::vector<std::string>& session,
        const std::vector<bool>& append) const;

    // True when the recipe was recorded by another user or on another host than this one.
    bool foreign() const;
    // Why the recipe is foreign, for the refusal message.
    std::string foreignReason() const;

    // Throws std::runtime_error "program not found: <path>" (or the working directory missing)
    // when the recipe's program cannot be started here; nothing when no step starts it.
    void checkProgram(const std::vector<CollectorStep>& steps) const;

    // The argv of warpscope-cli for one step (without the executable).
    std::vector<std::string> arguments(const CollectorStep& step, const std::string& session, bool append) const;

    // Runs one step, printing "warpscope-cli <command>: step K/N: <kind>: <args>" before and a
    // progress line "warpscope-cli: progress: <command> K/N steps" after it, on stderr.
    ExitStatus run(
        const CollectorStep& step, const std::string& session, bool append, size_t index, size_t total) const;

private:
    RunRecipe m_recipe;
    std::string m_command;
    std::string m_executable;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once
// What `collect` and `rerun` do before they run anything: print the plan (program, arguments,
// directory, environment changes, every step), check that the program is on this machine, and
// refuse a foreign session without --yes. One place, so both commands treat a stored command
// line as data the same way.

#include "launcher/reciperunner.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws::cli {

// An error with the exit status it ends the command with.
struct Refusal : std::runtime_error {
    Refusal(int code, const std::string& why)
        : std::runtime_error(why)
        , exitCode(code)
    {
    }
    int exitCode;
};

// Prints the plan to stdout; throws Refusal(4) when the program is missing and Refusal(2) for a
// foreign session without `yes`. Returns false for a dry run (nothing is to run).
inline bool presentPlan(const RecipeRunner& runner, const std::vector<CollectorStep>& steps,
    const std::vector<std::string>& sessions, const std::vector<bool>& append, bool dryRun, bool yes)
{
    for (const std::string& line : runner.plan(steps, sessions, append))
        std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    try {
        runner.checkProgram(steps);
    } catch (const std::runtime_error& e) {
        throw Refusal(4, e.what());
    }
    if (dryRun)
        return false;
    if (runner.foreign() && !yes)
        throw Refusal(2, "not running: " + runner.foreignReason());
    return true;
}

} // namespace ws::cli

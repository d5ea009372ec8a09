// SPDX-License-Identifier: MIT
#include "launcher/reciperunner.h"

#include "core/util/shellwords.h"
#include "launcher/rundescription.h"
#include "launcher/targetlauncher.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace ws {

namespace fs = std::filesystem;

namespace {

bool startsProgram(const CollectorStep& step)
{
    return step.kind == "trace" || step.kind == "profile" || step.kind == "pc-sampling";
}

// The program as the recipe's working directory sees it (a relative path is relative to it).
std::string programPath(const RunRecipe& recipe)
{
    const std::string& program = recipe.command.front();
    if (program.find('/') == std::string::npos || program.front() == '/')
        return program;
    return (fs::path(recipe.cwd) / program).lexically_normal().string();
}

} // namespace

RecipeRunner::RecipeRunner(RunRecipe recipe, std::string command)
    : m_recipe(std::move(recipe))
    , m_command(std::move(command))
    , m_executable(executablePath())
{
    if (m_executable.empty())
        throw std::runtime_error("cannot find this executable (/proc/self/exe) to run the steps with");
}

std::vector<std::string> RecipeRunner::arguments(
    const CollectorStep& step, const std::string& session, bool append) const
{
    return cliArguments(step, session, append, m_recipe.command);
}

std::vector<std::string> RecipeRunner::plan(const std::vector<CollectorStep>& steps,
    const std::vector<std::string>& session, const std::vector<bool>& append) const
{
    std::vector<std::string> lines;
    lines.push_back("will run: "
        + (m_recipe.command.empty() ? std::string("(no program: the steps start none)")
                                    : joinCommand(m_recipe.command)));
    lines.push_back("in: " + (m_recipe.cwd.empty() ? std::string("(the current directory)") : m_recipe.cwd));
    std::string env;
    const auto current = [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        return v ? std::optional<std::string>(v) : std::nullopt;
    };
    for (const auto& [name, value] : environmentChanges(m_recipe, current))
        env.append(" ").append(shellQuote(std::string(name).append("=").append(value)));
    lines.push_back("environment changes:" + (env.empty() ? std::string(" none") : env));
    lines.push_back("recorded by: " + (m_recipe.user.empty() ? std::string("?") : m_recipe.user) + "@"
        + (m_recipe.host.empty() ? std::string("?") : m_recipe.host)
        + (foreign() ? " (not this user on this machine: " + currentUser() + "@" + currentHost() + ")"
                     : " (this user on this machine)"));
    for (size_t i = 0; i < steps.size(); ++i) {
        std::vector<std::string> argv = arguments(steps[i], session[i], append[i]);
        argv.insert(argv.begin(), m_executable);
        lines.push_back("step " + std::to_string(i + 1) + "/" + std::to_string(steps.size()) + ": " + steps[i].kind
            + ": " + joinCommand(argv));
    }
    for (const std::string& skipped : m_recipe.skipped)
        lines.push_back("not repeated: " + skipped);
    return lines;
}

bool RecipeRunner::foreign() const
{
    return isForeign(m_recipe, currentHost(), currentUser());
}

std::string RecipeRunner::foreignReason() const
{
    return "the session was recorded by " + (m_recipe.user.empty() ? std::string("an unknown user") : m_recipe.user)
        + " on " + (m_recipe.host.empty() ? std::string("an unknown host") : m_recipe.host) + ", not by "
        + currentUser() + " on " + currentHost()
        + ": its stored command line is data from elsewhere; read what it will run above and pass --yes to run it";
}

void RecipeRunner::checkProgram(const std::vector<CollectorStep>& steps) const
{
    bool needed = false;
    for (const CollectorStep& s : steps)
        needed = needed || startsProgram(s);
    if (!needed)
        return;
    std::error_code ec;
    if (!m_recipe.cwd.empty() && !fs::is_directory(m_recipe.cwd, ec))
        throw std::runtime_error("working directory not found: " + m_recipe.cwd);
    const std::string program = programPath(m_recipe);
    if (program.find('/') != std::string::npos) {
        if (!fs::is_regular_file(program, ec))
            throw std::runtime_error("program not found: " + program);
        if (::access(program.c_str(), X_OK) != 0)
            throw std::runtime_error("program not executable: " + program + " (" + std::strerror(errno) + ")");
        return;
    }
    try {
        TargetProcess::resolve(program);
    } catch (const std::runtime_error&) {
        throw std::runtime_error("program not found: " + program + " (not in PATH)");
    }
}

ExitStatus RecipeRunner::run(
    const CollectorStep& step, const std::string& session, bool append, size_t index, size_t total) const
{
    const std::vector<std::string> args = arguments(step, session, append);
    std::fprintf(stderr, "warpscope-cli %s: step %zu/%zu: %s: %s\n", m_command.c_str(), index + 1, total,
        step.kind.c_str(), joinCommand(args).c_str());
    std::fflush(stderr);
    std::vector<std::string> argv = args;
    argv.insert(argv.begin(), m_executable);
    TargetLauncher launcher(argv);
    for (const auto& [name, value] : m_recipe.environment)
        launcher.setVariable(name, value);
    // The steps run where the program was recorded; the session paths are absolute.
    std::error_code ec;
    const fs::path here = fs::current_path(ec);
    if (!m_recipe.cwd.empty() && ::chdir(m_recipe.cwd.c_str()) != 0)
        throw std::runtime_error(
            "cannot change to the working directory " + m_recipe.cwd + ": " + std::strerror(errno));
    ExitStatus status;
    try {
        launcher.start();
        status = launcher.wait();
    } catch (...) {
        fs::current_path(here, ec);
        throw;
    }
    fs::current_path(here, ec);
    std::fprintf(stderr, "warpscope-cli: progress: %s %zu/%zu steps\n", m_command.c_str(), index + 1, total);
    std::fflush(stderr);
    return status;
}

} // namespace ws

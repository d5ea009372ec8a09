// SPDX-License-Identifier: MIT
#include "core/store/runrecipe.h"

#include "core/store/runinference.h"
#include "core/util/shellwords.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace ws {

namespace {

// Collectors that start the program (bench measures built-in workloads and starts none).
bool startsProgram(const std::string& kind)
{
    return kind == "trace" || kind == "profile" || kind == "pc-sampling";
}

// Runs written before collectors stored their arguments: the subcommand their kind implies,
// with the profile filter kept in the options.
std::optional<std::vector<std::string>> inferredArguments(
    const RunInfo& run, const std::map<std::string, std::string>& options)
{
    const auto option = [&](const char* key) {
        const auto it = options.find(key);
        return it == options.end() ? std::string() : it->second;
    };
    if (run.kind == "trace")
        return std::vector<std::string> {"record"};
    if (run.kind != "profile" && run.kind != "pc-sampling")
        return std::nullopt;
    std::vector<std::string> args {"profile"};
    if (run.kind == "pc-sampling")
        args.emplace_back("--pc-sampling");
    if (const std::string sections = option("profile_sections"); !sections.empty() && run.kind == "profile") {
        std::string_view rest = sections;
        while (!rest.empty()) {
            const size_t comma = rest.find(',');
            args.emplace_back("--section");
            args.emplace_back(rest.substr(0, comma));
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
    if (const std::string cache = option("profile_cache_control"); !cache.empty() && run.kind == "profile")
        args.insert(args.end(), {"--cache-control", cache});
    return args;
}

} // namespace

bool isCollectorVariable(const std::string& name)
{
    return name.starts_with("WS_") || name == "CUDA_INJECTION64_PATH" || name == "NVTX_INJECTION64_PATH"
        || name == "LD_PRELOAD";
}

std::optional<CollectorStep> stepOf(const RunInfo& run, std::string* whyNot)
{
    const auto fail = [&](std::string why) {
        if (whyNot)
            *whyNot = "run " + std::to_string(run.id) + " (" + run.kind + "): " + std::move(why);
        return std::nullopt;
    };
    if (run.kind == "import")
        return fail("imported from another tool's file; nothing to run");
    if (startsProgram(run.kind) && run.commandLine.empty())
        return fail("no command line was recorded");
    const auto options = store::fromJsonObject(run.optionsJson.empty() ? "{}" : run.optionsJson);
    if (!options)
        return fail("its options are not a JSON object of strings");
    CollectorStep step {.runId = run.id, .kind = run.kind, .arguments = {}};
    if (const auto it = options->find(kCollectorArgumentsOption); it != options->end()) {
        auto args = splitCommand(it->second);
        if (!args || args->empty())
            return fail("its collector arguments cannot be read: " + it->second);
        step.arguments = std::move(*args);
    } else if (auto args = inferredArguments(run, *options)) {
        step.arguments = std::move(*args);
    } else {
        return fail("recorded without its collector arguments (written by an older warpscope-cli)");
    }
    return step;
}

RunRecipe recipeOf(const std::vector<RunInfo>& runs)
{
    RunRecipe recipe;
    const RunInfo* program = nullptr;
    for (const RunInfo& run : runs) {
        std::string why;
        auto step = stepOf(run, &why);
        if (!step) {
            recipe.skipped.push_back(why);
            continue;
        }
        if (startsProgram(run.kind)) {
            if (!program) {
                program = &run;
            } else if (run.commandLine != program->commandLine || run.cwd != program->cwd) {
                recipe.skipped.push_back("run " + std::to_string(run.id) + " (" + run.kind
                    + "): another program or directory than run " + std::to_string(program->id));
                continue;
            }
        }
        recipe.steps.push_back(std::move(*step));
    }
    if (program) {
        if (auto command = splitCommand(program->commandLine))
            recipe.command = std::move(*command);
        else
            recipe.skipped.push_back("run " + std::to_string(program->id) + ": its command line cannot be split");
        recipe.cwd = program->cwd;
        recipe.host = program->host;
        recipe.user = program->user;
        if (auto env = store::fromJsonObject(program->environmentJson.empty() ? "{}" : program->environmentJson)) {
            for (auto& [name, value] : *env) {
                if (!isCollectorVariable(name))
                    recipe.environment.emplace(name, std::move(value));
            }
        }
    } else if (!runs.empty()) {
        recipe.host = runs.front().host;
        recipe.user = runs.front().user;
    }
    // Without a program, only steps that start none can run.
    if (recipe.command.empty())
        std::erase_if(recipe.steps, [](const CollectorStep& s) { return startsProgram(s.kind); });
    return recipe;
}

std::vector<std::string> cliArguments(
    const CollectorStep& step, const std::string& session, bool append, const std::vector<std::string>& command)
{
    std::vector<std::string> out = step.arguments;
    out.insert(out.begin() + (out.empty() ? 0 : 1), {append ? "--append" : "-o", session});
    if (startsProgram(step.kind)) {
        out.emplace_back("--");
        out.insert(out.end(), command.begin(), command.end());
    }
    return out;
}

std::string exactKernelFilter(const std::string& mangledName)
{
    std::string out = "regex:^";
    for (const char c : mangledName) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!plain)
            out += '\\';
        out += c;
    }
    return out + "$";
}

std::optional<CollectorStep> kernelStep(KernelCollection what, const std::string& mangledName, int64_t ordinal,
    int64_t count, const RunInfo& trace, std::string* whyNot)
{
    // The recorder's option (metakey::kRecordCaptureRange, core/metrics: a layer above the store).
    std::string range;
    if (const auto options = store::fromJsonObject(trace.optionsJson.empty() ? "{}" : trace.optionsJson)) {
        if (const auto it = options->find("record.capture_range"); it != options->end())
            range = it->second;
    }
    if (range.starts_with("nvtx:")) {
        if (whyNot)
            *whyNot = "run " + std::to_string(trace.id) + " traced only inside the NVTX range '" + range.substr(5)
                + "' (--capture-range " + range
                + "), and a profile run cannot select launches by NVTX range, so "
                  "it would count this kernel's launches differently and could profile another one; record the "
                  "trace without a capture range, or with --capture-range cudaProfilerApi";
        return std::nullopt;
    }
    CollectorStep step;
    step.kind = what == KernelCollection::Metrics ? "profile" : "pc-sampling";
    step.arguments = {"profile"};
    if (what == KernelCollection::Metrics)
        step.arguments.insert(step.arguments.end(), {"--set", "full"});
    else
        step.arguments.emplace_back("--pc-sampling");
    step.arguments.insert(step.arguments.end(),
        {"--kernel-name", exactKernelFilter(mangledName), "--launch-skip", std::to_string(ordinal), "--launch-count",
            std::to_string(count)});
    if (range == "cudaProfilerApi")
        step.arguments.insert(step.arguments.end(), {"--capture-range", "cudaProfilerApi"});
    return step;
}

std::map<std::string, std::string> environmentChanges(
    const RunRecipe& recipe, const std::function<std::optional<std::string>(const std::string&)>& current)
{
    std::map<std::string, std::string> changes;
    for (const auto& [name, value] : recipe.environment) {
        if (current(name) != value)
            changes.emplace(name, value);
    }
    return changes;
}

bool isForeign(const RunRecipe& recipe, const std::string& host, const std::string& user)
{
    return recipe.host != host || recipe.user != user;
}

} // namespace ws

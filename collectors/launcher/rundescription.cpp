// SPDX-License-Identifier: MIT
#include "launcher/rundescription.h"

#include "core/store/runinference.h"
#include "core/store/runrecipe.h"
#include "core/util/shellwords.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iterator>

namespace ws {

std::string currentUser()
{
    if (const passwd* pw = ::getpwuid(::geteuid()))
        return pw->pw_name;
    return std::to_string(::geteuid());
}

std::string currentHost()
{
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    return host;
}

bool relevantVariable(std::string_view name)
{
    static constexpr std::string_view prefixes[] = {"CUDA_", "NVIDIA_", "NVTX_", "CUPTI", "CUBLAS", "CUDNN_", "NCCL_",
        "TORCH_", "PYTORCH_", "WS_", "OMP_NUM_THREADS", "LD_LIBRARY_PATH"};
    return std::any_of(
        std::begin(prefixes), std::end(prefixes), [&](std::string_view p) { return name.starts_with(p); });
}

int64_t realtimeNowNs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace {

RunInfo describe(std::string kind, std::string commandLine, const std::vector<std::string>& environment,
    int64_t startRealtimeNs, int64_t endRealtimeNs, const std::map<std::string, std::string>& options)
{
    RunInfo run;
    run.kind = std::move(kind);
    run.commandLine = std::move(commandLine);
    std::error_code ec;
    run.cwd = std::filesystem::current_path(ec).string(); // the target inherits ours
    std::map<std::string, std::string> variables;
    for (const std::string& entry : environment) {
        const std::string name = entry.substr(0, entry.find('='));
        if (relevantVariable(name))
            variables[name] = entry.substr(std::min(entry.size(), name.size() + 1));
    }
    run.environmentJson = store::toJsonObject(variables);
    run.host = currentHost();
    run.user = currentUser();
    run.startRealtimeNs = startRealtimeNs;
    run.endRealtimeNs = endRealtimeNs;
    std::map<std::string, std::string> kept;
    for (const auto& [key, value] : options) {
        if (!store::isStoreMetaKey(key))
            kept.emplace(key, value);
    }
    run.optionsJson = store::toJsonObject(kept);
    return run;
}

} // namespace

RunInfo describeRun(std::string kind, const TargetLauncher& target, int64_t startRealtimeNs, int64_t endRealtimeNs,
    const std::map<std::string, std::string>& options)
{
    return describe(
        std::move(kind), target.commandLine(), target.environment(), startRealtimeNs, endRealtimeNs, options);
}

RunInfo describeRun(std::string kind, const std::string& commandLine, int64_t startRealtimeNs, int64_t endRealtimeNs,
    const std::map<std::string, std::string>& options)
{
    std::vector<std::string> environment;
    for (char** e = environ; e && *e; ++e)
        environment.emplace_back(*e);
    return describe(std::move(kind), commandLine, environment, startRealtimeNs, endRealtimeNs, options);
}

RunInfo describeFailedRun(std::string kind, const std::vector<std::string>& command, int64_t startRealtimeNs,
    std::map<std::string, std::string> options, const std::string& reason)
{
    options[kRunStatusOption] = "failed: " + reason;
    return describeRun(std::move(kind), joinCommand(command), startRealtimeNs, realtimeNowNs(), options);
}

} // namespace ws

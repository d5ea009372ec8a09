// SPDX-License-Identifier: MIT
#include "launcher/rundescription.h"

#include "core/store/runinference.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iterator>

namespace ws {

namespace {

std::string userName()
{
    if (const passwd* pw = ::getpwuid(::geteuid()))
        return pw->pw_name;
    return std::to_string(::geteuid());
}

} // namespace

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

RunInfo describeRun(std::string kind, const TargetLauncher& target, int64_t startRealtimeNs, int64_t endRealtimeNs,
    const std::map<std::string, std::string>& options)
{
    RunInfo run;
    run.kind = std::move(kind);
    run.commandLine = target.commandLine();
    std::error_code ec;
    run.cwd = std::filesystem::current_path(ec).string(); // the target inherits ours
    std::map<std::string, std::string> variables;
    for (const std::string& entry : target.environment()) {
        const std::string name = entry.substr(0, entry.find('='));
        if (relevantVariable(name))
            variables[name] = entry.substr(std::min(entry.size(), name.size() + 1));
    }
    run.environmentJson = store::toJsonObject(variables);
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    run.host = host;
    run.user = userName();
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

} // namespace ws

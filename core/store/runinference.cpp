// SPDX-License-Identifier: MIT
#include "core/store/runinference.h"

#include "core/report/textescape.h"

#include <rapidjson/document.h>

#include <cstdio>
#include <cstdlib>

namespace ws::store {

namespace {

std::string valueOr(const std::map<std::string, std::string>& values, const std::string& key)
{
    const auto it = values.find(key);
    return it == values.end() ? std::string() : it->second;
}

} // namespace

std::string toJsonObject(const std::map<std::string, std::string>& values)
{
    std::string out = "{";
    for (const auto& [key, value] : values) {
        if (out.size() > 1)
            out += ',';
        appendJsonString(out, key);
        out += ':';
        appendJsonString(out, value);
    }
    out += '}';
    return out;
}

bool isStoreMetaKey(const std::string& key)
{
    return key == "schema_version" || key == "complete" || key == "created" || key == "tool_version";
}

std::optional<std::map<std::string, std::string>> fromJsonObject(std::string_view json)
{
    rapidjson::Document doc;
    doc.Parse(json.data(), json.size());
    if (doc.HasParseError() || !doc.IsObject())
        return std::nullopt;
    std::map<std::string, std::string> out;
    for (const auto& m : doc.GetObject()) {
        if (!m.value.IsString())
            return std::nullopt;
        out[std::string(m.name.GetString(), m.name.GetStringLength())]
            = std::string(m.value.GetString(), m.value.GetStringLength());
    }
    return out;
}

RunInfo inferRun(const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& environment,
    bool hasKernels, bool hasBenchRuns)
{
    RunInfo run;
    run.id = 1;
    const std::string sessionKind = valueOr(meta, "session_kind");
    bool imported = false;
    for (const auto& [key, value] : meta)
        imported = imported || key.rfind("import.", 0) == 0;
    if (sessionKind == "profile")
        run.kind = "profile";
    else if (imported)
        run.kind = "import";
    else if (hasBenchRuns && !hasKernels)
        run.kind = "bench";
    else
        run.kind = "trace";
    run.commandLine = valueOr(environment, "command_line");
    run.cwd = valueOr(environment, "cwd");
    run.host = valueOr(environment, "host");
    run.user = valueOr(environment, "user");
    const std::string start = valueOr(environment, "start_time_unix_ns");
    run.startRealtimeNs = start.empty() ? 0 : std::atoll(start.c_str());
    std::map<std::string, std::string> options;
    for (const auto& [key, value] : meta) {
        if (!isStoreMetaKey(key))
            options.emplace(key, value);
    }
    run.optionsJson = toJsonObject(options);
    std::map<std::string, std::string> env;
    for (const auto& [key, value] : environment) {
        if (key.rfind("env.", 0) == 0)
            env.emplace(key.substr(4), value);
    }
    run.environmentJson = toJsonObject(env);
    return run;
}

} // namespace ws::store

// SPDX-License-Identifier: MIT
#include "core/store/runinference.h"

#include "core/report/textescape.h"

#include <cctype>
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

namespace {

// One JSON string at `i` (which points at its opening quote); advances past the closing quote.
std::optional<std::string> readJsonString(std::string_view json, size_t& i)
{
    if (i >= json.size() || json[i] != '"')
        return std::nullopt;
    std::string out;
    for (++i; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '"') {
            ++i;
            return out;
        }
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= json.size())
            return std::nullopt;
        switch (json[i]) {
        case '"':
        case '\\':
        case '/':
            out += json[i];
            break;
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'u': {
            if (i + 4 >= json.size())
                return std::nullopt;
            unsigned code = 0;
            for (int k = 1; k <= 4; ++k) {
                const char h = json[i + static_cast<size_t>(k)];
                const int digit = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                    : (h >= 'a' && h <= 'f')                                  ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F')                                  ? h - 'A' + 10
                                                                              : -1;
                if (digit < 0)
                    return std::nullopt;
                code = code * 16 + static_cast<unsigned>(digit);
            }
            i += 4;
            // UTF-8 of the code point (surrogate pairs are not produced by our writer).
            if (code < 0x80) {
                out += static_cast<char>(code);
            } else if (code < 0x800) {
                out += static_cast<char>(0xc0 | (code >> 6));
                out += static_cast<char>(0x80 | (code & 0x3f));
            } else {
                out += static_cast<char>(0xe0 | (code >> 12));
                out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
                out += static_cast<char>(0x80 | (code & 0x3f));
            }
            break;
        }
        default:
            return std::nullopt;
        }
    }
    return std::nullopt;
}

void skipSpace(std::string_view json, size_t& i)
{
    while (i < json.size() && std::isspace(static_cast<unsigned char>(json[i])))
        ++i;
}

} // namespace

std::optional<std::map<std::string, std::string>> fromJsonObject(std::string_view json)
{
    std::map<std::string, std::string> out;
    size_t i = 0;
    skipSpace(json, i);
    if (i >= json.size() || json[i++] != '{')
        return std::nullopt;
    skipSpace(json, i);
    if (i < json.size() && json[i] == '}') {
        ++i;
    } else {
        while (true) {
            skipSpace(json, i);
            auto key = readJsonString(json, i);
            skipSpace(json, i);
            if (!key || i >= json.size() || json[i++] != ':')
                return std::nullopt;
            skipSpace(json, i);
            auto value = readJsonString(json, i);
            if (!value)
                return std::nullopt;
            out[std::move(*key)] = std::move(*value);
            skipSpace(json, i);
            if (i < json.size() && json[i] == ',') {
                ++i;
                continue;
            }
            if (i < json.size() && json[i] == '}') {
                ++i;
                break;
            }
            return std::nullopt;
        }
    }
    skipSpace(json, i);
    if (i != json.size())
        return std::nullopt;
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
        if (key != "schema_version" && key != "complete" && key != "created" && key != "tool_version")
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

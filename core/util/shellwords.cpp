// SPDX-License-Identifier: MIT
#include "core/util/shellwords.h"

namespace ws {

namespace {

bool isShellSafe(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || std::string_view("@%+=:,./-_").find(c) != std::string_view::npos;
}

} // namespace

std::string shellQuote(std::string_view argument)
{
    bool safe = !argument.empty();
    for (const char c : argument)
        safe = safe && isShellSafe(c);
    if (safe)
        return std::string(argument);
    // Inside single quotes nothing is special except the closing quote itself.
    std::string out = "'";
    for (const char c : argument) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

std::string joinCommand(const std::vector<std::string>& argv)
{
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty())
            out += ' ';
        out += shellQuote(a);
    }
    return out;
}

std::optional<std::vector<std::string>> splitCommand(std::string_view line)
{
    std::vector<std::string> out;
    std::string word;
    bool inWord = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord)
                out.push_back(std::move(word));
            word.clear();
            inWord = false;
            continue;
        }
        inWord = true;
        if (c == '\'') {
            const size_t close = line.find('\'', i + 1);
            if (close == std::string_view::npos)
                return std::nullopt;
            word.append(line.substr(i + 1, close - i - 1));
            i = close;
        } else if (c == '"') {
            for (++i;; ++i) {
                if (i >= line.size())
                    return std::nullopt;
                if (line[i] == '"')
                    break;
                // Inside double quotes a backslash escapes only these; elsewhere it is literal.
                if (line[i] == '\\' && i + 1 < line.size()
                    && std::string_view("\"\\$`").find(line[i + 1]) != std::string_view::npos)
                    ++i;
                word += line[i];
            }
        } else if (c == '\\') {
            if (++i >= line.size())
                return std::nullopt;
            word += line[i];
        } else {
            word += c;
        }
    }
    if (inWord)
        out.push_back(std::move(word));
    return out;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "launcher/commandline.h"

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

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/ranking/compactname.h"

namespace ws {

namespace {

// Positions of `needle` at nesting depth 0 of <>, () and [] (lambdas, operators in
// template arguments and parameter lists are nested), scanning from the front.
template <typename Visit> void topLevel(std::string_view s, Visit visit)
{
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (depth == 0 && !visit(i, c))
            return;
        if (c == '<' || c == '(' || c == '[')
            ++depth;
        else if ((c == '>' || c == ')' || c == ']') && depth > 0)
            --depth;
    }
}

} // namespace

std::string compactKernelName(std::string_view s, size_t maxLength)
{
    // Parameter list: the last top-level '(' (an earlier one is a qualifier such as
    // "(anonymous namespace)").
    size_t paren = std::string_view::npos;
    topLevel(s, [&](size_t i, char c) {
        if (c == '(' && i > 0 && s[i - 1] != ':')
            paren = i;
        return true;
    });
    if (paren != std::string_view::npos)
        s = s.substr(0, paren);
    // Return type: everything up to the last top-level space.
    size_t space = std::string_view::npos;
    topLevel(s, [&](size_t i, char c) {
        if (c == ' ')
            space = i;
        return true;
    });
    if (space != std::string_view::npos)
        s = s.substr(space + 1);
    // Qualifiers: everything up to the last top-level "::".
    size_t scope = std::string_view::npos;
    topLevel(s, [&](size_t i, char c) {
        if (c == ':' && i + 1 < s.size() && s[i + 1] == ':')
            scope = i;
        return true;
    });
    if (scope != std::string_view::npos)
        s = s.substr(scope + 2);
    std::string out(s);
    if (maxLength >= 8 && out.size() > maxLength) {
        // Keep the head (the name) and the tail (closing template arguments).
        const size_t tail = maxLength / 4;
        const size_t head = maxLength - tail - 1;
        out = out.substr(0, head) + "\u2026" + out.substr(out.size() - tail);
    }
    return out;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/util/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace ws {

std::string demangle(std::string_view mangled)
{
    // Only Itanium names start with _Z; anything else (extern "C" kernels, already demangled
    // names) would be rejected by __cxa_demangle anyway, so skip the allocation.
    if (mangled.size() < 3 || mangled.substr(0, 2) != "_Z")
        return std::string(mangled);
    std::string owned(mangled);
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(
        abi::__cxa_demangle(owned.c_str(), nullptr, nullptr, &status), std::free);
    if (status != 0 || !out)
        return owned;
    return std::string(out.get());
}

namespace {

bool isOpener(char c)
{
    return c == '(' || c == '<' || c == '[' || c == '{';
}
bool isCloser(char c)
{
    return c == ')' || c == '>' || c == ']' || c == '}';
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

// Position of the bracket opening the group that ends at s.back(), or npos when unbalanced.
size_t matchingOpen(std::string_view s)
{
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
        if (isCloser(s[i]))
            ++depth;
        else if (isOpener(s[i]) && --depth == 0)
            return i;
    }
    return std::string_view::npos;
}

// Last position of `sep` that is outside every bracket pair, or npos.
size_t lastTopLevel(std::string_view s, std::string_view sep)
{
    int depth = 0;
    size_t found = std::string_view::npos;
    for (size_t i = 0; i < s.size(); ++i) {
        if (isOpener(s[i]))
            ++depth;
        else if (isCloser(s[i]))
            --depth;
        else if (depth == 0 && s.substr(i, sep.size()) == sep)
            found = i;
    }
    return found;
}

std::string_view stripTrailingQualifiers(std::string_view s)
{
    // GCC clones ("f(int) [clone .cold]") and member qualifiers after the parameter list.
    for (bool changed = true; changed;) {
        changed = false;
        s = trim(s);
        for (std::string_view q : {" const", " volatile", " &&", " &"}) {
            if (s.size() > q.size() && s.substr(s.size() - q.size()) == q) {
                s.remove_suffix(q.size());
                changed = true;
            }
        }
        if (!s.empty() && s.back() == ']') {
            const size_t open = matchingOpen(s);
            if (open != std::string_view::npos && s.substr(open, 7) == "[clone ") {
                s = s.substr(0, open);
                changed = true;
            }
        }
    }
    return s;
}

} // namespace

std::string shortName(std::string_view name)
{
    const std::string full = demangle(name);
    std::string_view s = stripTrailingQualifiers(full);
    if (!s.empty() && s.back() == ')') {
        const size_t open = matchingOpen(s);
        if (open != std::string_view::npos && open > 0)
            s = trim(s.substr(0, open));
    }
    if (!s.empty() && s.back() == '>') {
        const size_t open = matchingOpen(s);
        if (open != std::string_view::npos && open > 0)
            s = trim(s.substr(0, open));
    }
    if (const size_t scope = lastTopLevel(s, "::"); scope != std::string_view::npos)
        s = s.substr(scope + 2);
    // What is left before the last top-level space is the return type ("void").
    if (const size_t space = lastTopLevel(s, " "); space != std::string_view::npos)
        s = s.substr(space + 1);
    s = trim(s);
    return s.empty() ? std::string(trim(full)) : std::string(s);
}

} // namespace ws

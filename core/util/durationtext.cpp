// SPDX-License-Identifier: MIT
#include "core/util/durationtext.h"

#include <charconv>
#include <cmath>
#include <string>

namespace ws {

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::optional<int64_t> parseDuration(std::string_view text)
{
    text = trimmed(text);
    // The number: optional minus, digits, optional fraction (".5" allowed), no exponent.
    size_t end = 0;
    if (end < text.size() && text[end] == '-')
        ++end;
    const size_t digitsFrom = end;
    bool digits = false;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') {
        ++end;
        digits = true;
    }
    if (end < text.size() && text[end] == '.') {
        ++end;
        bool fraction = false;
        while (end < text.size() && text[end] >= '0' && text[end] <= '9') {
            ++end;
            fraction = true;
        }
        if (!fraction)
            return std::nullopt;
        digits = true;
    }
    if (!digits || end == digitsFrom)
        return std::nullopt;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
    if (ec != std::errc() || ptr != text.data() + end)
        return std::nullopt;
    const std::string_view unit = trimmed(text.substr(end));
    double scale = 0;
    if (unit.empty() || unit == "ns")
        scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s") // µs in UTF-8
        scale = 1e3;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "s")
        scale = 1e9;
    else
        return std::nullopt;
    const double ns = value * scale;
    if (!std::isfinite(ns) || std::fabs(ns) > 9.2e18)
        return std::nullopt;
    return static_cast<int64_t>(std::llround(ns));
}

std::optional<std::pair<int64_t, int64_t>> parseDurationSpan(std::string_view text)
{
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos)
        return std::nullopt;
    const auto from = parseDuration(text.substr(0, colon));
    const auto to = parseDuration(text.substr(colon + 1));
    if (!from || !to || *to <= *from)
        return std::nullopt;
    return std::pair(*from, *to);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/util/numbertext.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ws {

std::string shortestText(double value)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    if (value == 0.0)
        return "0"; // never "-0"
    char buf[64];
    const double magnitude = std::fabs(value);
    const auto format
        = magnitude >= 1e-4 && magnitude < 1e15 ? std::chars_format::fixed : std::chars_format::scientific;
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, format);
    if (ec == std::errc())
        return std::string(buf, end);
    std::snprintf(buf, sizeof buf, "%.17g", value); // cannot happen with 64 bytes; still exact
    return buf;
}

} // namespace ws

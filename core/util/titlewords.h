// SPDX-License-Identifier: MIT
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ws {

// "dram_throughput" -> "Dram Throughput": underscores become spaces and each word starts upper
// case. Metric and stall-reason keys are shown this way where no better label is known.
inline std::string titleWords(std::string_view s)
{
    std::string out;
    bool start = true;
    for (const char c : s) {
        if (c == '_') {
            out += ' ';
            start = true;
            continue;
        }
        out += start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        start = false;
    }
    return out;
}

} // namespace ws

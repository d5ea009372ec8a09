// SPDX-License-Identifier: MIT
#include "core/metrics/replaypasses.h"

#include <algorithm>
#include <charconv>

namespace ws {

std::vector<size_t> parseReplayPasses(std::string_view text)
{
    std::vector<size_t> out;
    const char* p = text.data();
    const char* const end = text.data() + text.size();
    while (p < end) {
        size_t first = 0;
        auto r = std::from_chars(p, end, first);
        if (r.ec != std::errc {})
            break;
        size_t last = first;
        if (r.ptr < end && *r.ptr == '-') {
            const auto upper = std::from_chars(r.ptr + 1, end, last);
            if (upper.ec == std::errc {})
                r.ptr = upper.ptr;
            else {
                last = kMaxReplayPass;
                r.ptr = r.ptr + 1;
            }
        }
        for (size_t v = first; v <= std::min(last, kMaxReplayPass); ++v)
            out.push_back(v);
        if (r.ptr >= end || (*r.ptr != ',' && *r.ptr != '+'))
            break;
        p = r.ptr + 1;
    }
    return out;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/model/commranks.h"

#include <charconv>

namespace ws {

namespace {

constexpr std::string_view kRank = "rank";
constexpr std::string_view kLocalRank = "local_rank";
constexpr std::string_view kWorldSize = "world_size";

bool parseInt(std::string_view text, int64_t& out)
{
    if (text.empty())
        return false;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

} // namespace

bool isRankEnvironmentKey(std::string_view key)
{
    return key == kRank || key == kLocalRank || key == kWorldSize;
}

std::string rankMetaKey(std::string_view key, int64_t pid)
{
    return std::string(key) + "." + std::to_string(pid);
}

std::map<int64_t, ProcessRank> processRanks(const std::map<std::string, std::string>& meta)
{
    std::map<int64_t, ProcessRank> out;
    for (const std::string_view key : {kRank, kLocalRank, kWorldSize}) {
        const std::string prefix = std::string(key) + ".";
        for (auto it = meta.lower_bound(prefix); it != meta.end() && it->first.compare(0, prefix.size(), prefix) == 0;
             ++it) {
            int64_t pid = 0;
            int64_t value = 0;
            if (!parseInt(std::string_view(it->first).substr(prefix.size()), pid) || !parseInt(it->second, value)
                || value < 0)
                continue;
            // World size alone says nothing about which process this is.
            if (key == kWorldSize) {
                if (const auto p = out.find(pid); p != out.end())
                    p->second.worldSize = value;
                continue;
            }
            ProcessRank& r = out[pid];
            (key == kRank ? r.rank : r.localRank) = value;
        }
    }
    return out;
}

std::string processRankLabel(int64_t pid, const std::map<int64_t, ProcessRank>& ranks)
{
    std::string p = "pid " + std::to_string(pid);
    const auto it = ranks.find(pid);
    if (it == ranks.end())
        return p;
    // RANK is the global rank; a launcher that sets only LOCAL_RANK still tells processes apart.
    if (it->second.rank >= 0)
        return "rank " + std::to_string(it->second.rank) + " \u00b7 " + p;
    return "local rank " + std::to_string(it->second.localRank) + " \u00b7 " + p;
}

} // namespace ws

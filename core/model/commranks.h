// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ws {

// The distributed rank of a recorded process, as torchrun / mpirun-style launchers export it
// (RANK, LOCAL_RANK, WORLD_SIZE). The injection library writes the values it finds at start
// as environment records named "rank", "local_rank" and "world_size"; ingest keys them by
// process into the session's meta as "rank.<pid>", "local_rank.<pid>", "world_size.<pid>"
// (meta, because the viewer reads meta when it opens a session). Files without these keys
// simply have no ranks. -1 means "not set".
struct ProcessRank {
    int64_t rank = -1;
    int64_t localRank = -1;
    int64_t worldSize = -1;
    bool operator==(const ProcessRank&) const = default;
};

// True for the environment-record keys the injection library writes for ranks.
bool isRankEnvironmentKey(std::string_view key);
// "rank" + pid 4242 -> "rank.4242".
std::string rankMetaKey(std::string_view key, int64_t pid);

// Ranks by pid from a session's meta; processes with neither rank nor local rank are absent.
// Values that are not decimal integers are ignored.
std::map<int64_t, ProcessRank> processRanks(const std::map<std::string, std::string>& meta);

// "rank 1 · pid 4242" (rank known) or "pid 4242"; the UI appends the process name.
std::string processRankLabel(int64_t pid, const std::map<int64_t, ProcessRank>& ranks);

} // namespace ws

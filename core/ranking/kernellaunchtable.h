// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"
#include "core/ranking/timewindow.h"
#include "core/util/cancellation.h"

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace ws {

// The launch parameters of a kernel, as the details panels and the occupancy calculator need
// them. Sessions have millions of launches but few distinct configurations, so launches refer
// to a deduplicated table of these.
struct LaunchConfig : KernelShape {
    uint32_t deviceId = 0;

    LaunchConfig() = default;
    LaunchConfig(const KernelShape& shape, uint32_t device)
        : KernelShape(shape)
        , deviceId(device)
    {
    }
    int64_t gridBlocks() const { return int64_t {grid[0]} * grid[1] * grid[2]; }
    int64_t blockThreads() const { return int64_t {block[0]} * block[1] * block[2]; }
    int64_t clusterBlocks() const { return int64_t {cluster[0]} * cluster[1] * cluster[2]; }
    bool operator==(const LaunchConfig&) const = default;
    bool operator<(const LaunchConfig& o) const
    {
        return std::tuple_cat(fields(), std::tie(deviceId)) < std::tuple_cat(o.fields(), std::tie(o.deviceId));
    }
};

// One kernel name, grouped like cuda_gpu_kern_sum groups (by demangled name).
struct KernelGroup {
    std::string name;      // demangled (the grouping key)
    std::string shortName; // bare function name, for narrow columns
    std::string mangled;   // empty when the session has none
};

// Every kernel launch of a session in a compact column form (48 bytes a launch), sorted by
// start: what the kernel ranking, the linked selection and the launch details read. Built
// once per session on a worker thread; immutable afterwards.
class KernelLaunchTable {
public:
    struct Launch {
        int64_t id = 0; // kernel.id, the timeline's EventRef row id
        TimeNs start = 0;
        TimeNs end = 0;
        int64_t pid = 0;
        uint32_t group = 0;  // index into groups()
        uint32_t config = 0; // index into configs()
        uint32_t streamId = 0;
        uint32_t deviceId = 0;
        TimeNs duration() const { return end - start; }
    };

    // One pass over the source's kernels. Read errors propagate; once `cancel` fires the
    // build throws SessionError(Cancelled).
    // `expectedLaunches` reserves room up front (the row count, when the caller knows it).
    static KernelLaunchTable build(
        const RecordSource& source, const CancellationToken& cancel = {}, size_t expectedLaunches = 0);
    // One table from tables built over consecutive slices of the kernel rows (in row order, e.g.
    // id ranges read on several connections at once): equal, field by field, to one build over
    // all the rows.
    static KernelLaunchTable merge(std::vector<KernelLaunchTable> parts);
    // A table from launches whose `group` and `config` already index `groups` and `configs`,
    // indexed as build() indexes its rows (sorted by start first unless they are already, as
    // launchTableFromLanes merges them).
    static KernelLaunchTable fromLaunches(
        std::vector<Launch> launches, std::vector<KernelGroup> groups, std::vector<LaunchConfig> configs);

    const std::vector<Launch>& launches() const { return m_launches; }
    const std::vector<KernelGroup>& groups() const { return m_groups; }
    const std::vector<LaunchConfig>& configs() const { return m_configs; }
    size_t size() const { return m_launches.size(); }
    bool empty() const { return m_launches.empty(); }

    // The launch with this kernel id; nullptr when there is none.
    const Launch* find(int64_t kernelId) const;
    // Index into groups() of a demangled name; -1 when no launch has it.
    int groupIndex(const std::string& name) const;
    // Launches overlapping the window, in start order (all launches for an empty window).
    template <typename Visit> void forEachIn(const TimeWindow& window, Visit visit) const
    {
        if (window.isEmpty()) {
            for (const Launch& l : m_launches)
                visit(l);
            return;
        }
        // Launches are sorted by start; none lasts longer than m_maxDuration, so the first
        // candidate starts no earlier than begin - m_maxDuration.
        auto it = firstCandidate(window.begin);
        for (; it != m_launches.end() && it->start < window.end; ++it) {
            if (window.overlaps(it->start, it->end))
                visit(*it);
        }
    }
    // The longest launch of a group (the one the details show when only a name is selected);
    // nullptr for an unknown group.
    const Launch* longestOf(uint32_t group) const;
    TimeNs maxDuration() const { return m_maxDuration; }

private:
    std::vector<Launch>::const_iterator firstCandidate(TimeNs begin) const;
    // Sorts the launches by start and builds the lookups (by id, longest per group).
    void index();

    std::vector<Launch> m_launches;
    std::vector<KernelGroup> m_groups;
    std::vector<LaunchConfig> m_configs;
    // The lookup by id: dense ids map directly (index into m_launches of id m_firstId + k, or
    // UINT32_MAX for none), others through (kernel id, index) pairs sorted by id.
    int64_t m_firstId = 0;
    std::vector<uint32_t> m_atId;
    std::vector<std::pair<int64_t, uint32_t>> m_byId;
    std::vector<uint32_t> m_longest; // per group, index into m_launches
    TimeNs m_maxDuration = 0;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/ranking/kernellaunchtable.h"

#include "core/analysis/nsysreports.h"
#include "core/store/sessionerror.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ws {

KernelLaunchTable KernelLaunchTable::build(const RecordSource& source, const CancellationToken& cancel)
{
    KernelLaunchTable t;
    const StringTable& strings = source.header().strings;
    // Names resolve once per distinct string-id triple, configurations once per distinct value.
    std::map<std::tuple<StringId, StringId, StringId>, uint32_t> groupOfIds;
    std::unordered_map<std::string, uint32_t> groupOfName;
    std::map<LaunchConfig, uint32_t> configIndex;
    size_t visited = 0;
    source.forEachKernel([&](const KernelRecord& k) {
        // Throwing is the only way to stop a source mid-table (a 10M-row scan takes seconds).
        if ((++visited & 0xffff) == 0 && cancel.isCancelled())
            throw SessionError(SessionError::Kind::Cancelled, {}, "cancelled");
        const auto ids = std::make_tuple(k.demangledName, k.mangledName, k.shortName);
        auto g = groupOfIds.find(ids);
        if (g == groupOfIds.end()) {
            std::string name = kernelName(k, strings, KernelNaming::Demangled);
            auto byName = groupOfName.find(name);
            uint32_t index = 0;
            if (byName == groupOfName.end()) {
                index = static_cast<uint32_t>(t.m_groups.size());
                t.m_groups.push_back({name, kernelName(k, strings, KernelNaming::Base),
                    k.mangledName ? strings.at(k.mangledName) : std::string()});
                groupOfName.emplace(std::move(name), index);
            } else {
                index = byName->second;
            }
            g = groupOfIds.emplace(ids, index).first;
        }
        LaunchConfig c;
        c.grid = {k.gridX, k.gridY, k.gridZ};
        c.block = {k.blockX, k.blockY, k.blockZ};
        c.cluster = {k.clusterX, k.clusterY, k.clusterZ};
        c.registersPerThread = k.registersPerThread;
        c.staticSmemBytes = k.staticSmemBytes;
        c.dynamicSmemBytes = k.dynamicSmemBytes;
        c.localMemPerThread = k.localMemPerThread;
        c.deviceId = k.deviceId;
        auto ci = configIndex.find(c);
        if (ci == configIndex.end()) {
            ci = configIndex.emplace(c, static_cast<uint32_t>(t.m_configs.size())).first;
            t.m_configs.push_back(c);
        }
        t.m_launches.push_back({k.id, k.start, k.end, k.pid, g->second, ci->second, k.streamId, k.deviceId});
    });
    std::stable_sort(t.m_launches.begin(), t.m_launches.end(),
        [](const Launch& a, const Launch& b) { return std::tie(a.start, a.id) < std::tie(b.start, b.id); });

    t.m_byId.reserve(t.m_launches.size());
    t.m_longest.assign(t.m_groups.size(), UINT32_MAX);
    for (size_t i = 0; i < t.m_launches.size(); ++i) {
        const Launch& l = t.m_launches[i];
        t.m_byId.emplace_back(l.id, static_cast<uint32_t>(i));
        t.m_maxDuration = std::max(t.m_maxDuration, l.duration());
        uint32_t& longest = t.m_longest[l.group];
        if (longest == UINT32_MAX || l.duration() > t.m_launches[longest].duration())
            longest = static_cast<uint32_t>(i);
    }
    std::sort(t.m_byId.begin(), t.m_byId.end());
    return t;
}

const KernelLaunchTable::Launch* KernelLaunchTable::find(int64_t kernelId) const
{
    const auto it = std::lower_bound(m_byId.begin(), m_byId.end(), std::make_pair(kernelId, uint32_t {0}));
    if (it == m_byId.end() || it->first != kernelId)
        return nullptr;
    return &m_launches[it->second];
}

int KernelLaunchTable::groupIndex(const std::string& name) const
{
    for (size_t i = 0; i < m_groups.size(); ++i) {
        if (m_groups[i].name == name)
            return static_cast<int>(i);
    }
    return -1;
}

const KernelLaunchTable::Launch* KernelLaunchTable::longestOf(uint32_t group) const
{
    if (group >= m_longest.size() || m_longest[group] == UINT32_MAX)
        return nullptr;
    return &m_launches[m_longest[group]];
}

std::vector<KernelLaunchTable::Launch>::const_iterator KernelLaunchTable::firstCandidate(TimeNs begin) const
{
    const TimeNs from = begin - m_maxDuration;
    return std::lower_bound(
        m_launches.begin(), m_launches.end(), from, [](const Launch& l, TimeNs t) { return l.start < t; });
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/ranking/kernellaunchtable.h"

#include "core/analysis/nsysreports.h"
#include "core/store/sessionerror.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ws {

namespace {

bool startOrder(const KernelLaunchTable::Launch& a, const KernelLaunchTable::Launch& b)
{
    return std::tie(a.start, a.id) < std::tie(b.start, b.id);
}

// The index of `key` among `values`, appended on its first appearance: groups by name and
// configurations by value are numbered so, in build and in merge alike.
template <class Index, class Key, class Value, class Make>
uint32_t numbered(Index& index, std::vector<Value>& values, const Key& key, Make&& make)
{
    const auto [it, added] = index.try_emplace(key, static_cast<uint32_t>(values.size()));
    if (added)
        values.push_back(make());
    return it->second;
}

} // namespace

KernelLaunchTable KernelLaunchTable::build(
    const RecordSource& source, const CancellationToken& cancel, size_t expectedLaunches)
{
    KernelLaunchTable t;
    const StringTable& strings = source.header().strings;
    // Names resolve once per distinct string-id triple, configurations once per distinct value.
    std::map<std::tuple<StringId, StringId, StringId>, uint32_t> groupOfIds;
    std::unordered_map<std::string, uint32_t> groupOfName;
    std::map<LaunchConfig, uint32_t> configIndex;
    const auto groupOf = [&](const KernelRecord& k) {
        const auto ids = std::make_tuple(k.demangledName, k.mangledName, k.shortName);
        auto g = groupOfIds.find(ids);
        if (g != groupOfIds.end())
            return g->second;
        const std::string name = kernelName(k, strings, KernelNaming::Demangled);
        const uint32_t index = numbered(groupOfName, t.m_groups, name, [&] {
            return KernelGroup {name, kernelName(k, strings, KernelNaming::Base),
                k.mangledName ? strings.at(k.mangledName) : std::string()};
        });
        groupOfIds.emplace(ids, index);
        return index;
    };
    const auto configOf
        = [&](const LaunchConfig& c) { return numbered(configIndex, t.m_configs, c, [&] { return c; }); };
    t.m_launches.reserve(expectedLaunches);
    // Consecutive launches mostly repeat the previous one's name and configuration: compare
    // with it before looking anything up.
    std::tuple<StringId, StringId, StringId> lastIds {};
    uint32_t lastGroup = UINT32_MAX;
    LaunchConfig lastConfig;
    uint32_t lastConfigIndex = UINT32_MAX;
    size_t visited = 0;
    source.forEachKernel([&](const KernelRecord& k) {
        // Throwing is the only way to stop a source mid-table (a 10M-row scan takes seconds).
        if ((++visited & 0xffff) == 0 && cancel.isCancelled())
            throw SessionError(SessionError::Kind::Cancelled, {}, "cancelled");
        const auto ids = std::make_tuple(k.demangledName, k.mangledName, k.shortName);
        if (lastGroup == UINT32_MAX || ids != lastIds) {
            lastGroup = groupOf(k);
            lastIds = ids;
        }
        const LaunchConfig c(KernelShape::of(k), k.deviceId);
        if (lastConfigIndex == UINT32_MAX || !(c == lastConfig)) {
            lastConfigIndex = configOf(c);
            lastConfig = c;
        }
        t.m_launches.push_back({k.id, k.start, k.end, k.pid, lastGroup, lastConfigIndex, k.streamId, k.deviceId});
    });
    t.index();
    return t;
}

KernelLaunchTable KernelLaunchTable::merge(std::vector<KernelLaunchTable> parts)
{
    if (parts.size() == 1)
        return std::move(parts.front());
    // Groups and configurations keep the order of their first launch in part order, as one build
    // over the parts' rows in that order numbers them.
    KernelLaunchTable t;
    std::unordered_map<std::string, uint32_t> groupOfName;
    std::map<LaunchConfig, uint32_t> configIndex;
    size_t total = 0;
    for (const KernelLaunchTable& p : parts)
        total += p.m_launches.size();
    t.m_launches.reserve(total);
    std::vector<size_t> ends; // where each part's launches end in t.m_launches
    for (KernelLaunchTable& p : parts) {
        std::vector<uint32_t> groupOf(p.m_groups.size());
        for (size_t i = 0; i < p.m_groups.size(); ++i) {
            groupOf[i]
                = numbered(groupOfName, t.m_groups, p.m_groups[i].name, [&] { return std::move(p.m_groups[i]); });
        }
        std::vector<uint32_t> configOf(p.m_configs.size());
        for (size_t i = 0; i < p.m_configs.size(); ++i) {
            configOf[i] = numbered(configIndex, t.m_configs, p.m_configs[i], [&] { return p.m_configs[i]; });
        }
        for (Launch l : p.m_launches) {
            l.group = groupOf[l.group];
            l.config = configOf[l.config];
            t.m_launches.push_back(l);
        }
        ends.push_back(t.m_launches.size());
        p = {}; // each part's memory goes as soon as it is copied
    }
    // Each part is sorted by start already (its own index(), on its own thread): merging them is
    // linear where sorting the whole again is not.
    for (size_t k = 1; k < ends.size(); ++k) {
        std::inplace_merge(t.m_launches.begin(), t.m_launches.begin() + static_cast<std::ptrdiff_t>(ends[k - 1]),
            t.m_launches.begin() + static_cast<std::ptrdiff_t>(ends[k]), startOrder);
    }
    t.index();
    return t;
}

KernelLaunchTable KernelLaunchTable::fromLaunches(
    std::vector<Launch> launches, std::vector<KernelGroup> groups, std::vector<LaunchConfig> configs)
{
    KernelLaunchTable t;
    t.m_launches = std::move(launches);
    t.m_groups = std::move(groups);
    t.m_configs = std::move(configs);
    t.index();
    return t;
}

void KernelLaunchTable::index()
{
    // Recorded sessions number kernels in start order, so their rows arrive sorted: checking costs
    // one pass where sorting 3M launches cost a third of the whole build.
    if (!std::is_sorted(m_launches.begin(), m_launches.end(), startOrder))
        std::stable_sort(m_launches.begin(), m_launches.end(), startOrder);

    m_longest.assign(m_groups.size(), UINT32_MAX);
    int64_t minId = INT64_MAX;
    int64_t maxId = INT64_MIN;
    for (size_t i = 0; i < m_launches.size(); ++i) {
        const Launch& l = m_launches[i];
        minId = std::min(minId, l.id);
        maxId = std::max(maxId, l.id);
        m_maxDuration = std::max(m_maxDuration, l.duration());
        uint32_t& longest = m_longest[l.group];
        if (longest == UINT32_MAX || l.duration() > m_launches[longest].duration())
            longest = static_cast<uint32_t>(i);
    }
    const auto n = static_cast<int64_t>(m_launches.size());
    if (n > 0 && maxId - minId < 4 * n) {
        // Dense ids (rowids, as in every file we write): placed by id in linear time, 4 bytes an
        // id, unless two launches share an id (hand-built sessions), which the sort below keeps
        // both of.
        std::vector<uint32_t> at(static_cast<size_t>(maxId - minId + 1), UINT32_MAX);
        bool unique = true;
        for (size_t i = 0; i < m_launches.size() && unique; ++i) {
            uint32_t& slot = at[static_cast<size_t>(m_launches[i].id - minId)];
            unique = slot == UINT32_MAX;
            slot = static_cast<uint32_t>(i);
        }
        if (unique) {
            m_firstId = minId;
            m_atId = std::move(at);
            return;
        }
    }
    m_byId.reserve(m_launches.size());
    for (size_t i = 0; i < m_launches.size(); ++i)
        m_byId.emplace_back(m_launches[i].id, static_cast<uint32_t>(i));
    std::sort(m_byId.begin(), m_byId.end());
}

const KernelLaunchTable::Launch* KernelLaunchTable::find(int64_t kernelId) const
{
    if (!m_atId.empty()) {
        if (kernelId < m_firstId || kernelId - m_firstId >= static_cast<int64_t>(m_atId.size()))
            return nullptr;
        const uint32_t at = m_atId[static_cast<size_t>(kernelId - m_firstId)];
        return at == UINT32_MAX ? nullptr : &m_launches[at];
    }
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

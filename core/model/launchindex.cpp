// SPDX-License-Identifier: MIT
#include "core/model/launchindex.h"

#include <algorithm>
#include <tuple>

namespace ws {

namespace {
auto key(const LaunchIndex::Launch& l)
{
    return std::make_tuple(l.pid, l.correlationId, static_cast<int32_t>(l.domain));
}
} // namespace

LaunchIndex::LaunchIndex(const RecordSource& source)
{
    // A sorted vector (48 bytes per call) rather than a hash map: half the memory on sessions
    // with millions of API calls, and lookups stay a binary search.
    source.forEachApiCall([this](const ApiCallRecord& a) {
        if (a.correlationId != 0)
            m_launches.push_back({a.pid, a.correlationId, a.domain, a.tid, a.start, a.end, a.name});
    });
    std::stable_sort(
        m_launches.begin(), m_launches.end(), [](const Launch& a, const Launch& b) { return key(a) < key(b); });
}

const LaunchIndex::Launch* LaunchIndex::find(int64_t pid, uint32_t correlationId) const
{
    if (correlationId == 0)
        return nullptr;
    // Runtime (0) sorts before Driver (1), so the first match is the preferred one.
    const auto it = std::lower_bound(m_launches.begin(), m_launches.end(), std::make_tuple(pid, correlationId, 0),
        [](const Launch& l, const auto& k) { return key(l) < k; });
    if (it == m_launches.end() || it->pid != pid || it->correlationId != correlationId)
        return nullptr;
    return &*it;
}

} // namespace ws

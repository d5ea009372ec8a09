// SPDX-License-Identifier: MIT
#include "core/analysis/sessiondependencies.h"

#include "core/store/sessionreader.h"

#include <algorithm>
#include <set>

namespace ws {

std::vector<StreamDependency> readStreamDependencies(const SessionReader& reader)
{
    SessionData data;
    data.eventOps = reader.readEventOps();
    if (data.eventOps.empty())
        return {};
    // Rows anchored by ingest pair without the GPU tables.
    if (allAnchored(data.eventOps))
        return pairEventOps(data.eventOps);
    // Recorded event ops carry correlation ids: the GPU ops of their streams suffice (a narrow
    // read). Without them the issue order is by host time, which needs each op's launch call.
    const bool correlated = std::all_of(
        data.eventOps.begin(), data.eventOps.end(), [](const EventOpRecord& e) { return e.correlationId != 0; });
    if (!correlated) {
        data.kernels = reader.readTable<KernelRecord>();
        data.memcpys = reader.readTable<MemcpyRecord>();
        data.memsets = reader.readTable<MemsetRecord>();
        data.apiCalls = reader.readTable<ApiCallRecord>();
        return deriveStreamDependencies(data);
    }
    std::set<std::pair<int64_t, uint32_t>> streams;
    for (const EventOpRecord& e : data.eventOps)
        streams.emplace(e.pid, e.streamId);
    const std::vector<GpuOp> ops = reader.readGpuOps(streams);
    return deriveStreamDependencies(data.eventOps, ops);
}

} // namespace ws

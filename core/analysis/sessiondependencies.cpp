// SPDX-License-Identifier: MIT
#include "core/analysis/sessiondependencies.h"

#include "core/store/sessionreader.h"

namespace ws {

std::vector<StreamDependency> readStreamDependencies(const SessionReader& reader)
{
    SessionData data;
    data.eventOps = reader.readEventOps();
    if (data.eventOps.empty())
        return {};
    data.kernels = reader.readTable<KernelRecord>();
    data.memcpys = reader.readTable<MemcpyRecord>();
    data.memsets = reader.readTable<MemsetRecord>();
    data.apiCalls = reader.readTable<ApiCallRecord>();
    return deriveStreamDependencies(data);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"

#include <vector>

namespace ws {

// The API call that launched each piece of GPU work, found by (process, correlation id):
// correlation ids are unique per process only. Kernels launched through the runtime
// (cudaLaunchKernel) correlate with a runtime record; cuBLAS 13 launches through the driver
// (cuLaunchKernelEx) and correlates with a driver record only. When both exist for one id
// the runtime call wins, since it is the one the user wrote.
class LaunchIndex {
public:
    struct Launch {
        int64_t pid = 0;
        uint32_t correlationId = 0;
        ApiDomain domain = ApiDomain::Runtime;
        int64_t tid = 0;
        TimeNs start = 0;
        TimeNs end = 0;
        StringId name = 0;
    };

    explicit LaunchIndex(const RecordSource& source); // one pass over api_call

    // nullptr when no API call carries that id; correlation id 0 means "none" in CUPTI.
    const Launch* find(int64_t pid, uint32_t correlationId) const;
    size_t size() const { return m_launches.size(); }

private:
    std::vector<Launch> m_launches; // sorted by (pid, correlationId, domain)
};

} // namespace ws

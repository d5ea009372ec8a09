// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <functional>
#include <memory>

namespace ws {

// Shared flag a long operation polls; any thread may cancel. Cheap to copy.
class CancellationToken {
public:
    CancellationToken()
        : m_flag(std::make_shared<std::atomic<bool>>(false))
    {
    }
    void cancel() const { m_flag->store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_flag->load(std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> m_flag;
};

// Progress in [0, 1] plus a short phase description ("reading kernels"). Called from the
// worker thread; receivers must marshal to their own thread.
using ProgressCallback = std::function<void(double fraction, const char* phase)>;

} // namespace ws

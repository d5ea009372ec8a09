// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"
#include "core/ranking/timewindow.h"

namespace ws {

// A RecordSource that lets through only the events overlapping a time window, so the stats
// reports the CLI computes over a whole session can be computed for the timeline's range
// selection with the same code. Each table is filtered on its own times: a kernel inside the
// window whose launch call lies outside it keeps its row in the kernel summary but has no
// launch call to pair with in cuda_kern_exec_trace. An empty window lets everything through.
class WindowedSource final : public RecordSource {
public:
    WindowedSource(const RecordSource& inner, TimeWindow window)
        : m_inner(inner)
        , m_window(window)
    {
    }

    const SessionData& header() const override { return m_inner.header(); }
    void forEachKernel(const std::function<void(const KernelRecord&)>& visit) const override;
    void forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const override;
    void forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const override;
    void forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const override;
    void forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const override;
    void forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const override;
    void forEachSync(const std::function<void(const SyncRecord&)>& visit) const override;

    const TimeWindow& window() const { return m_window; }

private:
    const RecordSource& m_inner;
    TimeWindow m_window;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/model/recordsource.h"

#include <algorithm>

namespace ws {

namespace {

struct SpanAccumulator {
    TimeSpan span;
    void add(TimeNs begin, TimeNs end)
    {
        if (!span.valid) {
            span = {begin, end, true};
            return;
        }
        span.begin = std::min(span.begin, begin);
        span.end = std::max(span.end, end);
    }
};

template <typename Record>
void visitAll(const std::vector<Record>& rows, const std::function<void(const Record&)>& visit)
{
    for (const auto& row : rows)
        visit(row);
}

} // namespace

TimeSpan RecordSource::timeSpan() const
{
    SpanAccumulator acc;
    forEachKernel([&](const KernelRecord& r) { acc.add(r.start, r.end); });
    forEachMemcpy([&](const MemcpyRecord& r) { acc.add(r.start, r.end); });
    forEachMemset([&](const MemsetRecord& r) { acc.add(r.start, r.end); });
    forEachApiCall([&](const ApiCallRecord& r) { acc.add(r.start, r.end); });
    forEachNvtxRange([&](const NvtxRangeRecord& r) { acc.add(r.start, r.end); });
    forEachNvtxMark([&](const NvtxMarkRecord& r) { acc.add(r.ts, r.ts); });
    forEachSync([&](const SyncRecord& r) { acc.add(r.start, r.end); });
    return acc.span;
}

void MemoryRecordSource::forEachKernel(const std::function<void(const KernelRecord&)>& visit) const
{
    visitAll(m_data.kernels, visit);
}

void MemoryRecordSource::forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const
{
    visitAll(m_data.memcpys, visit);
}

void MemoryRecordSource::forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const
{
    visitAll(m_data.memsets, visit);
}

void MemoryRecordSource::forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const
{
    visitAll(m_data.apiCalls, visit);
}

void MemoryRecordSource::forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const
{
    visitAll(m_data.nvtxRanges, visit);
}

void MemoryRecordSource::forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const
{
    visitAll(m_data.nvtxMarks, visit);
}

void MemoryRecordSource::forEachSync(const std::function<void(const SyncRecord&)>& visit) const
{
    visitAll(m_data.syncs, visit);
}

void MemoryRecordSource::forEachWarpEvent(const std::function<void(const WarpEvent&)>& visit) const
{
    visitAll(m_data.warpEvents, visit);
}

void MemoryRecordSource::forEachCounterSample(const std::function<void(const CounterSample&)>& visit) const
{
    visitAll(m_data.counterSamples, visit);
}

} // namespace ws

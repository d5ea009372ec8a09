// SPDX-License-Identifier: MIT
#include "core/ranking/windowedsource.h"

namespace ws {

namespace {

template <typename Record, typename Times>
void visitInWindow(
    const TimeWindow& window, const Record& r, const std::function<void(const Record&)>& visit, Times times)
{
    const auto [start, end] = times(r);
    if (window.isEmpty() || window.overlaps(start, end))
        visit(r);
}

template <typename Record> auto startEnd(const Record& r)
{
    return std::pair<TimeNs, TimeNs>(r.start, r.end);
}

} // namespace

void WindowedSource::forEachKernel(const std::function<void(const KernelRecord&)>& visit) const
{
    m_inner.forEachKernel([&](const KernelRecord& r) { visitInWindow(m_window, r, visit, startEnd<KernelRecord>); });
}

void WindowedSource::forEachMemcpy(const std::function<void(const MemcpyRecord&)>& visit) const
{
    m_inner.forEachMemcpy([&](const MemcpyRecord& r) { visitInWindow(m_window, r, visit, startEnd<MemcpyRecord>); });
}

void WindowedSource::forEachMemset(const std::function<void(const MemsetRecord&)>& visit) const
{
    m_inner.forEachMemset([&](const MemsetRecord& r) { visitInWindow(m_window, r, visit, startEnd<MemsetRecord>); });
}

void WindowedSource::forEachApiCall(const std::function<void(const ApiCallRecord&)>& visit) const
{
    m_inner.forEachApiCall([&](const ApiCallRecord& r) { visitInWindow(m_window, r, visit, startEnd<ApiCallRecord>); });
}

void WindowedSource::forEachNvtxRange(const std::function<void(const NvtxRangeRecord&)>& visit) const
{
    m_inner.forEachNvtxRange(
        [&](const NvtxRangeRecord& r) { visitInWindow(m_window, r, visit, startEnd<NvtxRangeRecord>); });
}

void WindowedSource::forEachNvtxMark(const std::function<void(const NvtxMarkRecord&)>& visit) const
{
    m_inner.forEachNvtxMark([&](const NvtxMarkRecord& r) {
        visitInWindow(
            m_window, r, visit, [](const NvtxMarkRecord& m) { return std::pair<TimeNs, TimeNs>(m.ts, m.ts); });
    });
}

void WindowedSource::forEachSync(const std::function<void(const SyncRecord&)>& visit) const
{
    m_inner.forEachSync([&](const SyncRecord& r) { visitInWindow(m_window, r, visit, startEnd<SyncRecord>); });
}

} // namespace ws

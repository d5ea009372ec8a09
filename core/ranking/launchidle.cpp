// SPDX-License-Identifier: MIT
#include "core/ranking/launchidle.h"

#include <algorithm>
#include <limits>

namespace ws {

namespace {

// analyzeGpuWork's sweep of one device, fed its work in start order.
class BusySweep {
public:
    explicit BusySweep(uint32_t device) { m_summary.deviceId = device; }
    void add(TimeNs start, TimeNs end)
    {
        if (m_summary.operations++ == 0) {
            m_summary.first = m_runStart = start;
            m_runEnd = end;
            return;
        }
        if (start > m_runEnd) {
            m_summary.busyNs += m_runEnd - m_runStart;
            ++m_summary.gaps;
            m_summary.largestGapNs = std::max(m_summary.largestGapNs, start - m_runEnd);
            m_runStart = start;
            m_runEnd = end;
        } else if (end > m_runEnd) {
            m_runEnd = end;
        }
    }
    GpuBusySummary finish()
    {
        m_summary.busyNs += m_runEnd - m_runStart;
        m_summary.last = m_runEnd;
        m_summary.idleNs = (m_summary.last - m_summary.first) - m_summary.busyNs;
        return m_summary;
    }
    bool empty() const { return m_summary.operations == 0; }

private:
    GpuBusySummary m_summary;
    TimeNs m_runStart = 0;
    TimeNs m_runEnd = 0;
};

// A device's sweep with its copies and memsets (sorted by start) waiting to be merged in.
struct DeviceSweep {
    BusySweep sweep;
    std::vector<GpuWork> copies;
    size_t next = 0;
    // Feeds the copies that start before `start`.
    void copiesBefore(TimeNs start)
    {
        for (; next < copies.size() && copies[next].start < start; ++next)
            sweep.add(copies[next].start, copies[next].end);
    }
};

} // namespace

std::vector<GpuBusySummary> summarizeGpuBusy(
    const KernelLaunchTable& launches, const std::map<uint32_t, std::vector<GpuWork>>& copies)
{
    std::map<uint32_t, DeviceSweep> devices;
    for (const auto& [device, work] : copies) {
        DeviceSweep& d = devices.try_emplace(device, DeviceSweep {BusySweep(device), work}).first->second;
        std::sort(
            d.copies.begin(), d.copies.end(), [](const GpuWork& a, const GpuWork& b) { return a.start < b.start; });
    }
    DeviceSweep* last = nullptr;
    uint32_t lastDevice = 0;
    for (const KernelLaunchTable::Launch& l : launches.launches()) {
        if (!last || l.deviceId != lastDevice) {
            last = &devices.try_emplace(l.deviceId, DeviceSweep {BusySweep(l.deviceId), {}}).first->second;
            lastDevice = l.deviceId;
        }
        last->copiesBefore(l.start);
        last->sweep.add(l.start, l.end);
    }
    std::vector<GpuBusySummary> out;
    for (auto& [device, d] : devices) {
        d.copiesBefore(std::numeric_limits<TimeNs>::max());
        d.copies.clear();
        if (d.sweep.empty())
            continue;
        out.push_back(d.sweep.finish());
    }
    return out;
}

} // namespace ws

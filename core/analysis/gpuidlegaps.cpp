// SPDX-License-Identifier: MIT
#include "core/analysis/gpuidlegaps.h"

#include "core/analysis/nsysreports.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ws {

namespace {

// Kernel labels are resolved once per distinct name, not per event.
class Labels {
public:
    explicit Labels(const StringTable& strings)
        : m_strings(strings)
    {
    }
    uint32_t kernel(const KernelRecord& k)
    {
        const auto key = std::make_tuple(0, k.shortName, k.demangledName, k.mangledName);
        return intern(key, [&] { return kernelName(k, m_strings, KernelNaming::Base); });
    }
    std::vector<std::string> take() { return std::move(m_text); }

private:
    using Key = std::tuple<int, StringId, StringId, StringId>;
    template <typename Make> uint32_t intern(const Key& key, Make make)
    {
        auto it = m_index.find(key);
        if (it == m_index.end()) {
            it = m_index.emplace(key, static_cast<uint32_t>(m_text.size())).first;
            m_text.push_back(make());
        }
        return it->second;
    }
    const StringTable& m_strings;
    std::map<Key, uint32_t> m_index;
    std::vector<std::string> m_text;
};

} // namespace

GpuIdleAnalysis analyzeGpuIdle(const RecordSource& source, TimeNs minGapNs)
{
    Labels labels(source.header().strings);
    std::map<uint32_t, std::vector<GpuWork>> byDevice;
    source.forEachKernel([&](const KernelRecord& k) {
        byDevice[k.deviceId].push_back({k.start, k.end, labels.kernel(k)});
    });
    std::vector<std::string> names = labels.take();
    addCopiesAndMemsets(source, byDevice, names);
    return analyzeGpuWork(std::move(byDevice), names, minGapNs);
}

void addCopiesAndMemsets(
    const RecordSource& source, std::map<uint32_t, std::vector<GpuWork>>& byDevice, std::vector<std::string>& labels)
{
    std::map<CopyKind, uint32_t> copyLabel;
    source.forEachMemcpy([&](const MemcpyRecord& m) {
        auto [it, added] = copyLabel.emplace(m.copyKind, static_cast<uint32_t>(labels.size()));
        if (added)
            labels.push_back(memcpyOperationName(m.copyKind));
        byDevice[m.deviceId].push_back({m.start, m.end, it->second});
    });
    uint32_t memsetLabel = UINT32_MAX;
    source.forEachMemset([&](const MemsetRecord& m) {
        if (memsetLabel == UINT32_MAX) {
            memsetLabel = static_cast<uint32_t>(labels.size());
            labels.emplace_back(memsetOperationName());
        }
        byDevice[m.deviceId].push_back({m.start, m.end, memsetLabel});
    });
}

// byDevice by value: each device's work is sorted in place.
GpuIdleAnalysis analyzeGpuWork(
    std::map<uint32_t, std::vector<GpuWork>> byDevice, // NOLINT(performance-unnecessary-value-param)
    const std::vector<std::string>& labels, TimeNs minGapNs)
{
    GpuIdleAnalysis out;
    for (auto& [device, work] : byDevice) {
        std::sort(work.begin(), work.end(),
            [](const GpuWork& a, const GpuWork& b) { return std::tie(a.start, a.end) < std::tie(b.start, b.end); });
        GpuBusySummary s;
        s.deviceId = device;
        s.operations = static_cast<int64_t>(work.size());
        s.first = work.front().start;
        TimeNs runStart = work.front().start;
        TimeNs runEnd = work.front().end;
        uint32_t runEndLabel = work.front().label;
        for (size_t i = 1; i < work.size(); ++i) {
            const GpuWork& w = work[i];
            if (w.start > runEnd) {
                s.busyNs += runEnd - runStart;
                ++s.gaps;
                s.largestGapNs = std::max(s.largestGapNs, w.start - runEnd);
                if (w.start - runEnd >= minGapNs)
                    out.gaps.push_back({device, runEnd, w.start, labels[runEndLabel], labels[w.label]});
                runStart = w.start;
                runEnd = w.end;
                runEndLabel = w.label;
            } else if (w.end > runEnd) {
                runEnd = w.end;
                runEndLabel = w.label;
            }
        }
        s.busyNs += runEnd - runStart;
        s.last = runEnd;
        s.idleNs = (s.last - s.first) - s.busyNs;
        out.devices.push_back(s);
    }
    std::sort(out.gaps.begin(), out.gaps.end(), [](const GpuIdleGap& a, const GpuIdleGap& b) {
        return std::tie(a.start, a.deviceId) < std::tie(b.start, b.deviceId);
    });
    return out;
}

ReportTable gpuIdleGaps(const RecordSource& source, TimeNs minGapNs)
{
    ReportTable table {"gpu_idle_gaps", "GPU Idle Gaps", {}, {}};
    table.columns = {
        {"Start", "ns", ColumnKind::Timestamp},
        {"Duration", "ns", ColumnKind::Duration},
        {"DevId", "", ColumnKind::Id},
        {"Before", "", ColumnKind::Text},
        {"After", "", ColumnKind::Text},
    };
    for (GpuIdleGap& g : analyzeGpuIdle(source, minGapNs).gaps) {
        table.rows.push_back(
            {g.start, g.duration(), static_cast<int64_t>(g.deviceId), std::move(g.before), std::move(g.after)});
    }
    return table;
}

} // namespace ws

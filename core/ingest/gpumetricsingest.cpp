// SPDX-License-Identifier: MIT
#include "core/ingest/gpumetricsingest.h"

#include "core/raw/pmsampling.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

namespace ws {

namespace {

struct Interval {
    int64_t start = 0;
    int64_t end = 0;
    std::vector<double> values;
};

struct Metric {
    std::string name;
    uint64_t periodNs = 0;
};

std::string_view text(std::string_view s)
{
    while (!s.empty() && s.back() == '\0')
        s.remove_suffix(1);
    return s;
}

} // namespace

void appendGpuMetrics(const raw::RawFile& file, SessionData& session, std::vector<std::string>& warnings)
{
    const int64_t pid = file.header().pid;
    std::map<uint32_t, std::map<uint32_t, Metric>> metrics; // device -> index -> metric
    std::map<uint32_t, std::vector<Interval>> intervals;    // device -> intervals
    for (const auto& f : file.frames()) {
        if (f.type == raw::RecordType::PmMetric) {
            const auto m = raw::readPayload<raw::PmMetricRecord>(f.payload);
            metrics[m.deviceId][m.index]
                = {std::string(text(raw::trailingBytes<raw::PmMetricRecord>(f.payload))), m.periodNs};
        } else if (f.type == raw::RecordType::PmSample) {
            const auto r = raw::readPayload<raw::PmSampleRecord>(f.payload);
            const std::string_view tail = raw::trailingBytes<raw::PmSampleRecord>(f.payload);
            Interval in {r.start, r.end, std::vector<double>(tail.size() / sizeof(double))};
            if (!in.values.empty())
                std::memcpy(in.values.data(), tail.data(), in.values.size() * sizeof(double));
            intervals[r.deviceId].push_back(std::move(in));
        }
    }
    if (metrics.empty() && intervals.empty())
        return;

    int64_t kept = 0, dropped = 0, mismatched = 0;
    uint64_t period = 0;
    for (auto& [device, list] : intervals) {
        const auto defs = metrics.find(device);
        if (defs == metrics.end()) {
            mismatched += static_cast<int64_t>(list.size());
            continue;
        }
        std::stable_sort(list.begin(), list.end(),
            [](const Interval& a, const Interval& b) { return std::tie(a.start, a.end) < std::tie(b.start, b.end); });
        // One track per metric, in index order.
        std::map<uint32_t, uint32_t> trackOf;
        for (const auto& [index, m] : defs->second) {
            CounterTrack t;
            t.id = static_cast<uint32_t>(session.counterTracks.size()) + 1;
            t.pid = pid;
            t.deviceId = device;
            t.name = m.name;
            for (const auto& spec : raw::kPmMetrics) {
                if (spec.name == m.name) {
                    t.name = std::string(spec.track);
                    t.unit = std::string(spec.unit);
                }
            }
            trackOf[index] = t.id;
            session.counterTracks.push_back(std::move(t));
            period = std::max(period, m.periodNs);
        }
        const size_t expected = defs->second.empty() ? 0 : defs->second.rbegin()->first + 1;
        for (size_t i = 0; i < list.size(); ++i) {
            if (i == 0) {
                ++dropped; // spans the time before Start
                continue;
            }
            const Interval& in = list[i];
            if (in.values.size() != expected) {
                ++mismatched;
                continue;
            }
            for (const auto& [index, track] : trackOf)
                session.counterSamples.push_back({track, in.start, in.values[index]});
            ++kept;
        }
    }
    if (mismatched > 0)
        warnings.push_back(file.path() + ": " + std::to_string(mismatched)
            + " GPU metric sample(s) without matching metric definitions were skipped");
    const auto add = [&session](const std::string& key, int64_t v) {
        const auto it = session.meta.find(key);
        const int64_t before = it == session.meta.end() ? 0 : std::stoll(it->second);
        session.meta[key] = std::to_string(before + v);
    };
    add("gpu_metrics.samples", kept);
    add("gpu_metrics.dropped_first", dropped);
    if (period > 0)
        session.meta["gpu_metrics.period_ns"] = std::to_string(period);
}

} // namespace ws

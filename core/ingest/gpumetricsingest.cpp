// SPDX-License-Identifier: MIT
#include "core/ingest/gpumetricsingest.h"

#include "core/model/gpumetricsgaps.h"
#include "core/raw/pmsampling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

// The device's gaps: what the sampler reported from the first kept sample on, and any stretch
// between two kept samples during a kernel of this device that no report covers (samples lost
// on the way, never silently). Overlapping gaps merge; the longer one's reason stays.
void addGaps(int64_t pid, uint32_t device, uint64_t periodNs, const std::vector<Interval>& kept,
    std::vector<GpuMetricsGap> reported, const SessionData& session, std::vector<GpuMetricsGap>& out)
{
    if (kept.empty())
        return;
    const TimeNs from = kept.front().start;
    std::vector<GpuMetricsGap> all;
    for (auto g : reported) {
        g.start = std::max(g.start, from);
        if (g.end > g.start)
            all.push_back(g);
    }
    std::vector<std::pair<TimeNs, TimeNs>> kernels;
    for (const auto& k : session.kernels)
        if (k.pid == pid && k.deviceId == device && k.end > k.start)
            kernels.emplace_back(k.start, k.end);
    std::sort(kernels.begin(), kernels.end());
    // Prefix maximum of kernel ends: does any kernel overlap [a, b)?
    std::vector<TimeNs> maxEnd(kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i)
        maxEnd[i] = std::max(kernels[i].second, i ? maxEnd[i - 1] : INT64_MIN);
    const auto busy = [&](TimeNs a, TimeNs b) {
        const auto it = std::lower_bound(kernels.begin(), kernels.end(), std::make_pair(b, INT64_MIN));
        const size_t n = static_cast<size_t>(it - kernels.begin());
        return n > 0 && maxEnd[n - 1] > a;
    };
    for (size_t i = 1; i < kept.size(); ++i) {
        const TimeNs a = kept[i - 1].end, b = kept[i].start;
        if (raw::pmIsGap(a, b, periodNs) && busy(a, b))
            all.push_back({pid, device, a, b, static_cast<uint32_t>(raw::PmGapReason::Missing)});
    }
    std::sort(all.begin(), all.end(), [](const GpuMetricsGap& x, const GpuMetricsGap& y) { return x.start < y.start; });
    for (const auto& g : all) {
        if (!out.empty() && out.back().pid == pid && out.back().deviceId == device && g.start <= out.back().end) {
            GpuMetricsGap& last = out.back();
            if (g.end - g.start > last.end - last.start)
                last.reason = g.reason;
            last.end = std::max(last.end, g.end);
            continue;
        }
        out.push_back(g);
    }
}

} // namespace

void appendGpuMetrics(const raw::RawFile& file, SessionData& session, std::vector<std::string>& warnings)
{
    const int64_t pid = file.header().pid;
    std::map<uint32_t, std::map<uint32_t, Metric>> metrics;  // device -> index -> metric
    std::map<uint32_t, std::vector<Interval>> intervals;     // device -> intervals
    std::map<uint32_t, std::vector<GpuMetricsGap>> reported; // device -> the sampler's gaps
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
        } else if (f.type == raw::RecordType::PmGap) {
            const auto g = raw::readPayload<raw::PmGapRecord>(f.payload);
            reported[g.deviceId].push_back({pid, g.deviceId, g.start, g.end, g.reason});
        }
    }
    if (metrics.empty() && intervals.empty())
        return;

    int64_t kept = 0, dropped = 0, mismatched = 0, notANumber = 0;
    uint64_t period = 0;
    std::vector<GpuMetricsGap> gaps;
    TimeNs spanTotal = 0, coveredTotal = 0;
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
            // CUPTI evaluates some samples to NaN (seen at 50 us on the H200): no value for that
            // metric in that interval (SQLite has no NaN, and a counter holds a number).
            for (const auto& [index, track] : trackOf) {
                if (std::isfinite(in.values[index]))
                    session.counterSamples.push_back({track, in.start, in.values[index]});
                else
                    ++notANumber;
            }
            ++kept;
        }
        const uint64_t devicePeriod
            = defs->second.empty() ? raw::kPmDefaultPeriodNs : defs->second.begin()->second.periodNs;
        const std::vector<Interval> keptList(list.begin() + std::min<size_t>(1, list.size()), list.end());
        addGaps(pid, device, devicePeriod, keptList, reported[device], session, gaps);
        // Coverage of this device's kernel span.
        TimeNs k0 = INT64_MAX, k1 = INT64_MIN;
        for (const auto& k : session.kernels)
            if (k.pid == pid && k.deviceId == device && k.end > k.start) {
                k0 = std::min(k0, k.start);
                k1 = std::max(k1, k.end);
            }
        if (k1 > k0) {
            std::vector<TimeNs> starts;
            starts.reserve(keptList.size());
            for (const auto& in : keptList)
                starts.push_back(in.start);
            const GpuMetricsCoverage c = gpuMetricsCoverage(starts, devicePeriod, k0, k1);
            spanTotal += c.span;
            coveredTotal += c.covered;
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
    if (notANumber > 0) {
        add("gpu_metrics.not_a_number", notANumber);
        warnings.push_back(file.path() + ": " + std::to_string(notANumber)
            + " GPU metric value(s) evaluated to NaN were left out (no value for that metric in that interval)");
    }
    add("gpu_metrics.dropped_first", dropped);
    if (period > 0)
        session.meta["gpu_metrics.period_ns"] = std::to_string(period);
    // Gaps: count, total and longest over every file; the list keeps the longest ones.
    TimeNs gapNs = 0, longest = 0;
    for (const auto& g : gaps) {
        gapNs += g.end - g.start;
        longest = std::max(longest, g.end - g.start);
    }
    add(gpumetricskey::kGaps, static_cast<int64_t>(gaps.size()));
    add(gpumetricskey::kGapNs, gapNs);
    if (const auto it = session.meta.find(gpumetricskey::kGapLongestNs);
        it == session.meta.end() || std::stoll(it->second) < longest)
        session.meta[gpumetricskey::kGapLongestNs] = std::to_string(longest);
    std::vector<GpuMetricsGap> listed = decodeGpuMetricsGaps(session.meta[gpumetricskey::kGapList]);
    listed.insert(listed.end(), gaps.begin(), gaps.end());
    if (listed.size() > kMaxListedGaps) {
        std::stable_sort(listed.begin(), listed.end(),
            [](const GpuMetricsGap& a, const GpuMetricsGap& b) { return a.end - a.start > b.end - b.start; });
        listed.resize(kMaxListedGaps);
    }
    std::stable_sort(listed.begin(), listed.end(), [](const GpuMetricsGap& a, const GpuMetricsGap& b) {
        return std::tie(a.pid, a.deviceId, a.start) < std::tie(b.pid, b.deviceId, b.start);
    });
    session.meta[gpumetricskey::kGapList] = encodeGpuMetricsGaps(listed);
    if (spanTotal > 0) {
        add(gpumetricskey::kKernelSpanNs, spanTotal);
        add("gpu_metrics.kernel_span_covered_ns", coveredTotal);
        const double span = std::stod(session.meta[gpumetricskey::kKernelSpanNs]);
        const double covered = std::stod(session.meta["gpu_metrics.kernel_span_covered_ns"]);
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.2f", span > 0 ? 100.0 * covered / span : 0.0);
        session.meta[gpumetricskey::kCoveragePct] = pct;
    }
}

} // namespace ws

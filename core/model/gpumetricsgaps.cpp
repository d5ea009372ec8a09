// SPDX-License-Identifier: MIT
#include "core/model/gpumetricsgaps.h"

#include "core/raw/pmsampling.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace ws {

namespace {

template <typename T> bool parse(std::string_view s, T& out)
{
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

std::string ms(double ns)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
    return b;
}

std::string value(const std::map<std::string, std::string>& m, const char* key)
{
    const auto it = m.find(key);
    return it == m.end() ? std::string() : it->second;
}

} // namespace

std::string encodeGpuMetricsGaps(const std::vector<GpuMetricsGap>& gaps)
{
    std::string out;
    for (const auto& g : gaps) {
        if (!out.empty())
            out += ';';
        out += std::to_string(g.pid) + ':' + std::to_string(g.deviceId) + ':' + std::to_string(g.start) + ':'
            + std::to_string(g.end) + ':' + std::to_string(g.reason);
    }
    return out;
}

std::vector<GpuMetricsGap> decodeGpuMetricsGaps(std::string_view text)
{
    std::vector<GpuMetricsGap> out;
    while (!text.empty()) {
        const size_t semi = text.find(';');
        std::string_view item = text.substr(0, semi);
        text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
        std::string_view f[5];
        size_t n = 0;
        while (n < 5) {
            const size_t colon = item.find(':');
            f[n++] = item.substr(0, colon);
            if (colon == std::string_view::npos) {
                item = {};
                break;
            }
            item = item.substr(colon + 1);
        }
        GpuMetricsGap g;
        if (n == 5 && item.empty() && parse(f[0], g.pid) && parse(f[1], g.deviceId) && parse(f[2], g.start)
            && parse(f[3], g.end) && parse(f[4], g.reason) && g.end > g.start)
            out.push_back(g);
    }
    return out;
}

const char* gpuMetricsGapReason(uint32_t reason)
{
    return raw::pmGapReasonText(reason);
}

GpuMetricsCoverage gpuMetricsCoverage(
    const std::vector<TimeNs>& ts, uint64_t periodNs, TimeNs spanBegin, TimeNs spanEnd)
{
    GpuMetricsCoverage c;
    c.span = std::max<TimeNs>(0, spanEnd - spanBegin);
    const auto period = static_cast<TimeNs>(std::max<uint64_t>(periodNs, 1));
    TimeNs reached = spanBegin; // covered time never counts twice
    for (size_t i = 0; i < ts.size(); ++i) {
        const bool close = i + 1 < ts.size() && ts[i + 1] - ts[i] <= period + period / 2;
        const TimeNs end = close ? ts[i + 1] : ts[i] + period;
        const TimeNs from = std::max({ts[i], spanBegin, reached});
        const TimeNs to = std::min(end, spanEnd);
        if (to > from) {
            c.covered += to - from;
            reached = to;
        }
    }
    return c;
}

std::vector<std::string> describeGpuMetrics(
    const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& environment)
{
    std::vector<std::string> lines;
    const std::string samples = value(meta, gpumetricskey::kSamples);
    if (samples.empty())
        return lines;
    const std::string period = value(meta, gpumetricskey::kPeriodNs);
    std::string line = samples + " samples per track";
    if (!period.empty())
        line += ", every " + std::to_string(std::atoll(period.c_str()) / 1000) + " us";
    if (const std::string cov = value(meta, gpumetricskey::kCoveragePct); !cov.empty())
        line += "; they cover " + cov + " % of the kernel span ("
            + ms(std::atof(value(meta, gpumetricskey::kKernelSpanNs).c_str())) + ")";
    lines.push_back(line);
    const long long gaps = std::atoll(value(meta, gpumetricskey::kGaps).c_str());
    if (gaps > 0) {
        std::string g = std::to_string(gaps) + " gap(s) without samples, "
            + ms(std::atof(value(meta, gpumetricskey::kGapNs).c_str())) + " in all (longest "
            + ms(std::atof(value(meta, gpumetricskey::kGapLongestNs).c_str())) + ")";
        // The reasons, longest gap's first.
        auto list = decodeGpuMetricsGaps(value(meta, gpumetricskey::kGapList));
        std::stable_sort(list.begin(), list.end(),
            [](const GpuMetricsGap& a, const GpuMetricsGap& b) { return a.end - a.start > b.end - b.start; });
        std::vector<uint32_t> reasons;
        for (const auto& x : list)
            if (std::find(reasons.begin(), reasons.end(), x.reason) == reasons.end())
                reasons.push_back(x.reason);
        std::string why;
        for (uint32_t r : reasons)
            why += (why.empty() ? "" : ", ") + std::string(gpuMetricsGapReason(r));
        if (!why.empty())
            g += ": " + why;
        lines.push_back(g);
    } else {
        lines.push_back("no gaps: no sample was lost");
    }
    const std::string stop = value(environment, "gpu_metrics.stop_latency_ms");
    const std::string drain = value(environment, "gpu_metrics.drain_ms");
    if (!stop.empty())
        lines.push_back("sampling stopped " + stop + " ms after the program's end; its last samples were written "
            + drain + " ms after it");
    return lines;
}

} // namespace ws

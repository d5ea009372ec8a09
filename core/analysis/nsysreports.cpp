// SPDX-License-Identifier: MIT
#include "core/analysis/nsysreports.h"

#include "core/analysis/commoverlap.h"
#include "core/analysis/durationsummary.h"
#include "core/analysis/gpuidlegaps.h"
#include "core/analysis/nvtxgpuprojection.h"
#include "core/model/launchindex.h"
#include "core/util/demangle.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace ws {

namespace {

constexpr std::string_view kKernSum = "cuda_gpu_kern_sum";
constexpr std::string_view kApiSum = "cuda_api_sum";
constexpr std::string_view kNvtxGpuProjSum = "nvtx_gpu_proj_sum";
constexpr std::string_view kGpuIdleGaps = "gpu_idle_gaps";
constexpr std::string_view kCommOverlap = "comm_overlap";
constexpr std::string_view kNvtxSum = "nvtx_sum";
constexpr std::string_view kExecTrace = "cuda_kern_exec_trace";

ReportColumn col(std::string name, std::string unit, ColumnKind kind)
{
    return {std::move(name), std::move(unit), kind};
}

// The nine leading columns shared by every *_sum report; `countName` differs per report
// ("Instances", "Num Calls").
std::vector<ReportColumn> summaryColumns(const char* countName)
{
    return {
        col("Time", "%", ColumnKind::Percent),
        col("Total Time", "ns", ColumnKind::Duration),
        col(countName, "", ColumnKind::Count),
        col("Avg", "ns", ColumnKind::Duration),
        col("Med", "ns", ColumnKind::Duration),
        col("Min", "ns", ColumnKind::Duration),
        col("Max", "ns", ColumnKind::Duration),
        col("StdDev", "ns", ColumnKind::Duration),
    };
}

// Durations of one group plus its sort key; turned into a summary row at the end.
struct Group {
    std::vector<int64_t> durations;
    DurationSummary summary;
};

// Summarises every group, sorts like nsys (total desc, then count asc, then the label
// columns) and emits rows: summary columns followed by `labels(group)`.
template <typename Key, typename Labels>
void appendSummaryRows(ReportTable& table, std::map<Key, Group>& groups, Labels labels)
{
    std::vector<std::pair<const Key*, Group*>> order;
    order.reserve(groups.size());
    int64_t grandTotal = 0;
    for (auto& [key, group] : groups) {
        group.summary = summarizeDurations(group.durations);
        group.durations = {};
        grandTotal += group.summary.total;
        order.emplace_back(&key, &group);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        if (a.second->summary.total != b.second->summary.total)
            return a.second->summary.total > b.second->summary.total;
        if (a.second->summary.count != b.second->summary.count)
            return a.second->summary.count < b.second->summary.count;
        return *a.first < *b.first;
    });
    for (const auto& [key, group] : order) {
        const DurationSummary& s = group->summary;
        std::vector<ReportCell> row;
        // SQLite's x * 100.0 / 0 is NULL: a report whose durations are all zero has no shares.
        row.emplace_back(grandTotal > 0 ? ReportCell(roundedPercent(s.total, grandTotal)) : ReportCell());
        row.emplace_back(s.total);
        row.emplace_back(s.count);
        row.emplace_back(s.avg);
        row.emplace_back(s.median);
        row.emplace_back(s.min);
        row.emplace_back(s.max);
        row.emplace_back(s.stdev);
        for (auto& label : labels(*key))
            row.emplace_back(std::move(label));
        table.rows.push_back(std::move(row));
    }
}

std::string gridText(int32_t x, int32_t y, int32_t z)
{
    // printf('%4d %4d %4d', ...) as in cuda_kern_exec_trace.py.
    char buf[48];
    std::snprintf(buf, sizeof buf, "%4d %4d %4d", x, y, z);
    return buf;
}

KernelNaming parseNaming(std::string_view option, std::string_view report)
{
    if (option.empty())
        return KernelNaming::Demangled;
    if (option == "base")
        return KernelNaming::Base;
    if (option == "mangled")
        return KernelNaming::Mangled;
    throw std::invalid_argument("unknown option '" + std::string(option) + "' for report " + std::string(report)
        + " (expected base or mangled)");
}

} // namespace

const std::vector<ReportInfo>& availableReports()
{
    static const std::vector<ReportInfo> reports = {
        {kKernSum, "CUDA GPU Kernel Summary", true},
        {kApiSum, "CUDA API Summary", false},
        {kNvtxSum, "NVTX Range Summary", false},
        {kExecTrace, "CUDA Kernel Launch & Exec Time Trace", true},
        {kNvtxGpuProjSum, "NVTX GPU Projection Summary", false},
        {kGpuIdleGaps, "GPU Idle Gaps", false},
        {kCommOverlap, "Communication / Compute Overlap", false},
    };
    return reports;
}

ReportTable computeReport(std::string_view spec, const RecordSource& source)
{
    const size_t colon = spec.find(':');
    const std::string_view id = spec.substr(0, colon);
    const std::string_view option = colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
    if (id == kKernSum)
        return cudaGpuKernSum(source, parseNaming(option, id));
    if (id == kExecTrace)
        return cudaKernExecTrace(source, parseNaming(option, id));
    if (id == kApiSum || id == kNvtxSum || id == kNvtxGpuProjSum) {
        if (!option.empty())
            throw std::invalid_argument("report " + std::string(id) + " takes no options");
        if (id == kNvtxGpuProjSum)
            return nvtxGpuProjSum(source);
        return id == kApiSum ? cudaApiSum(source) : nvtxSum(source);
    }
    if (id == kCommOverlap) {
        if (!option.empty())
            throw std::invalid_argument("report comm_overlap takes no options");
        return commOverlap(source);
    }
    if (id == kGpuIdleGaps) {
        // gpu_idle_gaps[:MIN] with MIN in ns, as the panel's threshold (default: every gap).
        TimeNs minGap = 0;
        if (!option.empty()) {
            const std::string text(option);
            char* end = nullptr;
            const long long v = std::strtoll(text.c_str(), &end, 10);
            if (end == text.c_str() || *end != '\0' || v < 0)
                throw std::invalid_argument(
                    "report gpu_idle_gaps takes a minimum gap in ns (gpu_idle_gaps:1000), not '" + text + "'");
            minGap = v;
        }
        return gpuIdleGaps(source, minGap);
    }
    std::string known;
    for (const auto& r : availableReports())
        known += (known.empty() ? "" : ", ") + std::string(r.id);
    throw std::invalid_argument("unknown report '" + std::string(spec) + "' (expected one of " + known + ")");
}

std::string kernelName(const KernelRecord& kernel, const StringTable& strings, KernelNaming naming)
{
    const std::string& mangled = strings.at(kernel.mangledName);
    const std::string& demangled = strings.at(kernel.demangledName);
    const std::string& base = strings.at(kernel.shortName);
    const auto full = [&]() -> std::string {
        if (!demangled.empty())
            return demangled;
        if (!mangled.empty())
            return demangle(mangled);
        return base;
    };
    switch (naming) {
    case KernelNaming::Mangled:
        return mangled.empty() ? full() : mangled;
    case KernelNaming::Base:
        return base.empty() ? shortName(full()) : base;
    case KernelNaming::Demangled:
        break;
    }
    return full();
}

const std::string& KernelNameCache::operator()(const KernelRecord& k)
{
    const auto key = std::make_tuple(k.demangledName, k.mangledName, k.shortName);
    auto it = m_cache.find(key);
    if (it == m_cache.end())
        it = m_cache.emplace(key, kernelName(k, m_strings, m_naming)).first;
    return it->second;
}

std::string_view stripApiVersionSuffix(std::string_view name)
{
    if (name.size() >= 6 && name[name.size() - 6] == '_' && name[name.size() - 5] == 'v')
        name.remove_suffix(6);
    return name;
}

std::string nvtxRangeName(StringId domain, StringId name, const StringTable& strings)
{
    // nsys 2024 prints default-domain ranges bare ("Profile_Loop"); older per-style reports
    // printed ":Profile_Loop". We follow the current nvtx_sum.
    const std::string& domainName = strings.at(domain);
    return domainName.empty() ? strings.at(name) : domainName + ":" + strings.at(name);
}

std::string memcpyOperationName(CopyKind kind)
{
    // ENUM_CUDA_MEMCPY_OPER labels of the nsys export.
    static constexpr std::string_view kLabels[] = {
        "Unknown",
        "Host-to-Device",
        "Device-to-Host",
        "Host-to-Array",
        "Array-to-Host",
        "Array-to-Array",
        "Array-to-Device",
        "Device-to-Array",
        "Device-to-Device",
        "Host-to-Host",
        "Peer-to-Peer",
    };
    const auto index = static_cast<size_t>(kind);
    const std::string_view label = index < std::size(kLabels) ? kLabels[index] : kLabels[0];
    return "[CUDA memcpy " + std::string(label) + "]";
}

std::string_view memsetOperationName()
{
    return "[CUDA memset]";
}

std::string_view nvtxStyleName(NvtxStyle style)
{
    return style == NvtxStyle::StartEnd ? "StartEnd" : "PushPop";
}

ReportTable cudaGpuKernSum(const RecordSource& source, KernelNaming naming)
{
    ReportTable table {std::string(kKernSum), "CUDA GPU Kernel Summary", summaryColumns("Instances"), {}};
    table.columns.push_back(col("Name", "", ColumnKind::Text));

    KernelNameCache namer(source.header().strings, naming);
    std::map<std::string, Group> groups;
    // Group lookups by name string are cached per name object: the namer returns a stable
    // reference per id triple, so remember which group each reference maps to.
    std::unordered_map<const std::string*, Group*> byName;
    source.forEachKernel([&](const KernelRecord& k) {
        const std::string& name = namer(k);
        auto it = byName.find(&name);
        if (it == byName.end())
            it = byName.emplace(&name, &groups[name]).first;
        it->second->durations.push_back(k.end - k.start);
    });
    appendSummaryRows(table, groups, [](const std::string& name) { return std::vector<ReportCell> {name}; });
    return table;
}

ReportTable cudaApiSum(const RecordSource& source)
{
    ReportTable table {std::string(kApiSum), "CUDA API Summary", summaryColumns("Num Calls"), {}};
    table.columns.push_back(col("Name", "", ColumnKind::Text));

    // Grouped by the recorded name, as nsys groups by nameId before stripping the suffix.
    std::unordered_map<StringId, std::vector<int64_t>> byId;
    source.forEachApiCall([&](const ApiCallRecord& a) {
        if (a.domain == ApiDomain::Runtime)
            byId[a.name].push_back(a.end - a.start);
    });
    const StringTable& strings = source.header().strings;
    std::map<std::string, Group> groups;
    for (auto& [id, durations] : byId)
        groups[strings.at(id)].durations = std::move(durations);
    appendSummaryRows(table, groups,
        [](const std::string& name) { return std::vector<ReportCell> {std::string(stripApiVersionSuffix(name))}; });
    return table;
}

ReportTable nvtxSum(const RecordSource& source)
{
    ReportTable table {std::string(kNvtxSum), "NVTX Range Summary", summaryColumns("Instances"), {}};
    table.columns.push_back(col("Style", "", ColumnKind::Text));
    table.columns.push_back(col("Range", "", ColumnKind::Text));

    const StringTable& strings = source.header().strings;
    // Key (range name, style): sorting ties by name first keeps same-named ranges together.
    using Key = std::pair<std::string, int32_t>;
    std::map<std::tuple<StringId, StringId, NvtxStyle>, Group*> byIds;
    std::map<Key, Group> groups;
    source.forEachNvtxRange([&](const NvtxRangeRecord& r) {
        const auto ids = std::make_tuple(r.domain, r.name, r.style);
        auto it = byIds.find(ids);
        if (it == byIds.end()) {
            Key key(nvtxRangeName(r.domain, r.name, strings), static_cast<int32_t>(r.style));
            it = byIds.emplace(ids, &groups[std::move(key)]).first;
        }
        it->second->durations.push_back(r.end - r.start);
    });
    appendSummaryRows(table, groups, [](const Key& key) {
        return std::vector<ReportCell> {std::string(nvtxStyleName(static_cast<NvtxStyle>(key.second))), key.first};
    });
    return table;
}

ReportTable cudaKernExecTrace(const RecordSource& source, KernelNaming naming)
{
    ReportTable table {std::string(kExecTrace), "CUDA Kernel Launch & Exec Time Trace", {}, {}};
    table.columns = {
        col("API Start", "ns", ColumnKind::Timestamp),
        col("API Dur", "ns", ColumnKind::Duration),
        col("Queue Start", "ns", ColumnKind::Timestamp),
        col("Queue Dur", "ns", ColumnKind::Duration),
        col("Kernel Start", "ns", ColumnKind::Timestamp),
        col("Kernel Dur", "ns", ColumnKind::Duration),
        col("Total Dur", "ns", ColumnKind::Duration),
        col("PID", "", ColumnKind::Id),
        col("TID", "", ColumnKind::Id),
        col("DevId", "", ColumnKind::Id),
        col("API Function", "", ColumnKind::Text),
        col("GridXYZ", "", ColumnKind::Text),
        col("BlockXYZ", "", ColumnKind::Text),
        col("Kernel Name", "", ColumnKind::Text),
    };

    const LaunchIndex launches(source);
    const StringTable& strings = source.header().strings;
    KernelNameCache namer(strings, naming);
    struct Joined {
        TimeNs apiStart;
        TimeNs kernelStart;
        int64_t kernelId;
        std::vector<ReportCell> cells;
    };
    std::vector<Joined> joined;
    source.forEachKernel([&](const KernelRecord& k) {
        const LaunchIndex::Launch* api = launches.find(k.pid, k.correlationId);
        if (!api)
            return; // nsys joins with an inner join: kernels without a launch call are not listed
        // Queue time exists only when the kernel started after the launch call returned.
        const bool queued = k.start - api->end >= 0;
        std::vector<ReportCell> cells;
        cells.reserve(table.columns.size());
        cells.emplace_back(api->start);
        cells.emplace_back(api->end - api->start);
        cells.emplace_back(queued ? ReportCell(api->end) : ReportCell());
        cells.emplace_back(queued ? ReportCell(k.start - api->end) : ReportCell());
        cells.emplace_back(k.start);
        cells.emplace_back(k.end - k.start);
        cells.emplace_back(std::max(api->end, k.end) - api->start);
        cells.emplace_back(k.pid);
        cells.emplace_back(api->tid);
        cells.emplace_back(static_cast<int64_t>(k.deviceId));
        cells.emplace_back(std::string(stripApiVersionSuffix(strings.at(api->name))));
        cells.emplace_back(gridText(k.gridX, k.gridY, k.gridZ));
        cells.emplace_back(gridText(k.blockX, k.blockY, k.blockZ));
        cells.emplace_back(namer(k));
        joined.push_back({api->start, k.start, k.id, std::move(cells)});
    });
    // nsys orders by API start only; kernel start and launch id make ties deterministic.
    std::sort(joined.begin(), joined.end(), [](const Joined& a, const Joined& b) {
        return std::tie(a.apiStart, a.kernelStart, a.kernelId) < std::tie(b.apiStart, b.kernelStart, b.kernelId);
    });
    table.rows.reserve(joined.size());
    for (auto& j : joined)
        table.rows.push_back(std::move(j.cells));
    return table;
}

} // namespace ws

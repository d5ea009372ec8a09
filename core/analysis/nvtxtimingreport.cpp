// SPDX-License-Identifier: MIT
#include "core/analysis/nvtxtimingreport.h"

#include "core/analysis/durationsummary.h"
#include "core/ingest/nvtxtimingingest.h"
#include "core/store/sessionreader.h"

#include <cmath>
#include <string>

namespace ws {

namespace {

template <class R> std::vector<R> readRows(const SessionReader& reader)
{
    std::vector<R> rows;
    reader.forEachRow<R>([&](const R& row) { rows.push_back(row); });
    return rows;
}

double toNs(double value, const std::string& unit)
{
    if (unit == "ms")
        return value * 1e6;
    if (unit == "us")
        return value * 1e3;
    return unit == "s" ? value * 1e9 : value;
}

} // namespace

ReportTable nvtxTimingSum(const std::vector<BenchRun>& runs, const std::vector<BenchSample>& samples)
{
    ReportTable table {kNvtxTimingReport, "NVTX Range GPU Timing Summary", {}, {}};
    const auto col = [](std::string name, std::string unit, ColumnKind kind) {
        return ReportColumn {std::move(name), std::move(unit), kind};
    };
    table.columns = {
        col("Range", "", ColumnKind::Text),
        col("Instances", "", ColumnKind::Count),
        col("Med", "ns", ColumnKind::Duration),
        col("Avg", "ns", ColumnKind::Duration),
        col("Min", "ns", ColumnKind::Duration),
        col("Max", "ns", ColumnKind::Duration),
        col("StdDev", "ns", ColumnKind::Duration),
        col("CoV", "%", ColumnKind::Percent),
        col("Timer", "", ColumnKind::Text),
    };
    const std::string prefix = kNvtxTimingImplementation;
    for (const auto& r : runs) {
        if (r.implementation.rfind(prefix, 0) != 0)
            continue;
        std::vector<int64_t> ns;
        for (const auto& s : samples)
            if (s.runId == r.id && s.call == -1)
                ns.push_back(std::llround(toNs(s.value, r.unit)));
        const DurationSummary d = summarizeDurations(ns);
        const std::string name = r.implementation == prefix ? r.workload : r.workload + " [" + r.implementation + "]";
        const double cov = d.count > 1 && d.avg > 0 ? roundTenth(d.stdev / d.avg * 100.0) : 0.0;
        if (d.count == 0) // nothing was timed: no statistics, not zeros
            table.rows.push_back({name, int64_t {0}, {}, {}, {}, {}, {}, {}, r.timer});
        else
            table.rows.push_back({name, d.count, d.median, d.avg, d.min, d.max, d.stdev, cov, r.timer});
    }
    return table;
}

ReportTable nvtxTimingSum(const SessionReader& reader)
{
    return nvtxTimingSum(readRows<BenchRun>(reader), readRows<BenchSample>(reader));
}

} // namespace ws

// SPDX-License-Identifier: MIT
// warpscope-cli info FILE: what a session holds, without loading its events.
#include "command.h"

#include "core/analysis/sessionfilesource.h"
#include "core/metrics/sessionmeta.h"
#include "core/model/gpumetricsgaps.h"
#include "core/report/reportformat.h"
#include "core/store/runinference.h"
#include "core/store/runrecipe.h"
#include "core/store/sessionreader.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

namespace {

std::string grouped(int64_t value)
{
    return ws::formatCell(ws::ReportCell(value), true);
}

// "1.234567 s" / "12.345 ms" / "850 ns": durations at a readable scale, exact to the ns below 1 ms.
std::string humanDuration(int64_t ns)
{
    char buf[64];
    if (ns >= 1000000000)
        std::snprintf(buf, sizeof buf, "%.6f s", static_cast<double>(ns) / 1e9);
    else if (ns >= 1000000)
        std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
    else if (ns >= 1000)
        std::snprintf(buf, sizeof buf, "%.3f us", static_cast<double>(ns) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%" PRId64 " ns", ns);
    return buf;
}

std::string gib(int64_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

std::string exitStatus(const ws::ProcessInfo& p)
{
    if (p.exitSignal != 0)
        return "killed by signal " + std::to_string(p.exitSignal);
    if (p.exitCode < 0)
        return "exit status unknown";
    return "exit code " + std::to_string(p.exitCode);
}

void printInfo(const std::string& path)
{
    const ws::SessionReader reader(path);
    const ws::SessionFileSource source(reader);
    const ws::SessionData& h = source.header();
    const auto counts = reader.tableCounts();
    const ws::TimeSpan span = source.timeSpan();

    std::printf("Session      %s\n", path.c_str());
    std::printf("Schema       %d\n", reader.schemaVersion());
    if (const auto p = h.meta.find(ws::metakey::kPredecessor); p != h.meta.end())
        std::printf("Predecessor  %s  (re-run from it: warpscope-cli compare %s %s)\n", p->second.c_str(),
            p->second.c_str(), path.c_str());
    if (span.valid) {
        std::printf("Time span    %s  (%" PRId64 " .. %" PRId64 " ns, recording host's monotonic clock)\n",
            humanDuration(span.end - span.begin).c_str(), span.begin, span.end);
    } else {
        std::printf("Time span    none (the session holds no timed events)\n");
    }

    // Runs (schema v2; a v1 file shows the one run inferred from its meta): what started the
    // program each time, so a multi-run session says which run each row came from.
    std::printf("\nRuns\n");
    for (const ws::RunInfo& run : reader.readRuns()) {
        std::string who = run.host.empty() ? std::string("?") : run.host;
        if (!run.user.empty())
            who.insert(0, run.user + "@");
        const int64_t took = run.endRealtimeNs > run.startRealtimeNs ? run.endRealtimeNs - run.startRealtimeNs : 0;
        const std::string duration = took > 0 ? humanDuration(took) : std::string("-");
        std::printf("  run %-3u %-12s %-16s %-12s %s\n", run.id, run.kind.c_str(), who.c_str(), duration.c_str(),
            run.commandLine.c_str());
        // How it ended and what collected it: a failed collection is listed, not hidden.
        const auto options = ws::store::fromJsonObject(run.optionsJson.empty() ? "{}" : run.optionsJson);
        if (!options)
            continue;
        if (const auto it = options->find(ws::kRunStatusOption); it != options->end())
            std::printf("          status: %s\n", it->second.c_str());
        if (const auto it = options->find(ws::kCollectorArgumentsOption); it != options->end())
            std::printf("          collector: warpscope-cli %s\n", it->second.c_str());
    }

    std::printf("\nMeta\n");
    for (const auto& [key, value] : h.meta) {
        // Lists of one line per warp (iket_dropped_warps, iket_unbalanced) run to thousands of
        // lines: the first few, indented, and how many more (warp-roles --all prints them).
        constexpr size_t kShownLines = 3;
        size_t lines = 0;
        size_t pos = 0;
        std::string shown;
        while (pos <= value.size()) {
            size_t end = value.find('\n', pos);
            if (end == std::string::npos)
                end = value.size();
            if (lines < kShownLines)
                shown += (lines ? "\n  " + std::string(23, ' ') : std::string()) + value.substr(pos, end - pos);
            ++lines;
            pos = end + 1;
        }
        if (lines > kShownLines)
            shown += "\n  " + std::string(23, ' ') + "... " + std::to_string(lines - kShownLines) + " more lines"
                + (key.starts_with("iket_") ? " (warpscope-cli warp-roles --all lists every warp)" : "");
        std::printf("  %-22s %s\n", key.c_str(), shown.c_str());
    }

    if (const auto lines = ws::describeGpuMetrics(h.meta, h.environment); !lines.empty()) {
        std::printf("\nGPU metrics\n");
        for (const auto& line : lines)
            std::printf("  %s\n", line.c_str());
        // Where the gaps are (the longest first, at most 10), relative to the session start.
        auto gaps = ws::decodeGpuMetricsGaps(
            h.meta.count(ws::gpumetricskey::kGapList) ? h.meta.at(ws::gpumetricskey::kGapList) : "");
        std::stable_sort(gaps.begin(), gaps.end(),
            [](const ws::GpuMetricsGap& a, const ws::GpuMetricsGap& b) { return a.end - a.start > b.end - b.start; });
        for (size_t i = 0; i < gaps.size() && i < 10; ++i)
            std::printf("  gap: pid %" PRId64 " GPU %u  +%s .. +%s  (%s)  %s\n", gaps[i].pid, gaps[i].deviceId,
                humanDuration(gaps[i].start - (span.valid ? span.begin : 0)).c_str(),
                humanDuration(gaps[i].end - (span.valid ? span.begin : 0)).c_str(),
                humanDuration(gaps[i].end - gaps[i].start).c_str(), ws::gpuMetricsGapReason(gaps[i].reason));
    }

    std::printf("\nEnvironment\n");
    if (h.environment.empty())
        std::printf("  (none recorded)\n");
    for (const auto& [key, value] : h.environment)
        std::printf("  %-22s %s\n", key.c_str(), value.c_str());

    std::printf("\nDevices\n");
    if (h.devices.empty())
        std::printf("  (none recorded)\n");
    for (const auto& d : h.devices) {
        std::printf("  pid %-8" PRId64 " GPU %u  %s  cc %d.%d  %d SMs  %s  SM clock %" PRId64 " MHz (max %" PRId64
                    " MHz)  memory clock %" PRId64 " MHz x %d bit\n",
            d.pid, d.id, d.name.c_str(), d.ccMajor, d.ccMinor, d.smCount, gib(d.globalMemBytes).c_str(),
            d.smClockKhz / 1000, d.smClockMaxKhz / 1000, d.memClockKhz / 1000, d.memBusWidthBits);
    }

    std::printf("\nProcesses\n");
    if (h.processes.empty())
        std::printf("  (none recorded)\n");
    for (const auto& p : h.processes) {
        int threads = 0;
        for (const auto& t : h.threads)
            threads += t.pid == p.pid ? 1 : 0;
        std::printf("  pid %-8" PRId64 " %-24s %s, %d thread%s  %s\n", p.pid, p.name.c_str(), exitStatus(p).c_str(),
            threads, threads == 1 ? "" : "s", p.commandLine.c_str());
    }

    std::printf("\nTables (rows)\n");
    for (const auto& [table, rows] : counts)
        std::printf("  %-16s %14s\n", table.c_str(), grouped(rows).c_str());
}

ws::cli::CommandRegistrar registrar({"40-info", [](CLI::App& app, int&) {
                                         auto* cmd = app.add_subcommand("info",
                                             "Describe a session: environment, devices, processes and their "
                                             "exit status, rows per table, time span");
                                         auto file = std::make_shared<std::string>();
                                         cmd->add_option("FILE", *file, "Session file (.wscope)")->required();
                                         cmd->callback([file] { printInfo(*file); });
                                     }});

} // namespace

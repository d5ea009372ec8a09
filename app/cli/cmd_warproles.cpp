// SPDX-License-Identifier: MIT
// warpscope-cli warp-roles FILE: the in-kernel trace of a session per kernel and warp role:
// mean and p95 duration of each phase, share of time spent waiting, and the warps whose
// ranges did not balance.
#include "command.h"

#include "core/iket/warprolesummary.h"
#include "core/store/sessionreader.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

struct WarpRolesArgs {
    std::string session;
    int64_t kernel = -1;
    bool csv = false;
    bool all = false; // every warp of the loss lists, not one line per kernel
};

// A meta list of ingest's, one "<launch> (kernel #<id>): <detail>" line per warp, grouped by
// launch in first-seen order: how many lines, the first detail, and the sum of a trailing
// "(<n>)" count where the detail has one.
struct LaunchLines {
    std::string who;
    size_t lines = 0;
    std::string first;
    long long counted = 0;
};

std::vector<LaunchLines> byLaunch(const std::string& text, int64_t kernel)
{
    std::vector<LaunchLines> out;
    const std::string only = kernel >= 0 ? "(kernel #" + std::to_string(kernel) + ")" : std::string();
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(pos, end - pos);
        pos = end + 1;
        const size_t colon = line.find("): ");
        if (colon == std::string::npos)
            continue;
        const std::string who = line.substr(0, colon + 1);
        const std::string detail = line.substr(colon + 3);
        if (!only.empty() && !who.ends_with(only))
            continue;
        if (out.empty() || out.back().who != who)
            out.push_back({who, 0, detail, 0});
        LaunchLines& l = out.back();
        ++l.lines;
        if (detail.ends_with(')')) {
            const size_t open = detail.rfind('(');
            if (open != std::string::npos)
                l.counted += std::atoll(detail.c_str() + open + 1);
        }
    }
    return out;
}

std::string micros(double ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ns / 1000.0);
    return buf;
}

const char* kindName(ws::WarpEventKind k)
{
    return k == ws::WarpEventKind::AsyncRange ? "async" : "range";
}

// The recorder's own warnings about in-kernel traces it could not record (launches without
// arm(), launches while not capturing): they name the launch, not a kernel.
std::string recorderLosses(const std::map<std::string, std::string>& meta)
{
    const auto it = meta.find("recorder_messages");
    std::string out;
    if (it == meta.end())
        return out;
    size_t pos = 0;
    while (pos < it->second.size()) {
        size_t end = it->second.find('\n', pos);
        if (end == std::string::npos)
            end = it->second.size();
        const std::string line = it->second.substr(pos, end - pos);
        if (const size_t at = line.find("in-kernel trace"); at != std::string::npos)
            out += "  " + line.substr(at) + "\n";
        pos = end + 1;
    }
    return out;
}

int run(const WarpRolesArgs& a)
{
    const ws::SessionReader reader(a.session);
    ws::SessionData data;
    data.strings = reader.readStrings();
    data.warpEvents = reader.readWarpEvents();
    if (data.warpEvents.empty()) {
        const auto lost = recorderLosses(reader.meta());
        if (lost.empty())
            std::printf("%s: no in-kernel trace (instrument a kernel with warpscope/iket.cuh and record it)\n",
                a.session.c_str());
        else
            std::printf("%s: no in-kernel trace recorded; events lost:\n%s", a.session.c_str(), lost.c_str());
        return 0;
    }
    const auto roles = ws::iket::summarizeRoles(data.warpEvents, data.strings, a.kernel);
    if (a.csv)
        std::printf("kernel,role,warps,wait_share,phase,kind,count,mean_us,p95_us,total_us\n");
    for (const auto& r : roles) {
        const std::string& role = data.str(r.role);
        if (!a.csv)
            std::printf("kernel #%lld  %s: %lld warp(s), %.1f%% of their time waiting, %lld mark(s)\n",
                static_cast<long long>(r.kernelId), role.c_str(), static_cast<long long>(r.warps),
                100.0 * r.waitShare(), static_cast<long long>(r.marks));
        else if (r.phases.empty())
            std::printf("%lld,%s,%lld,%.4f,,,0,,,\n", static_cast<long long>(r.kernelId), role.c_str(),
                static_cast<long long>(r.warps), r.waitShare());
        for (const auto& p : r.phases) {
            if (a.csv)
                std::printf("%lld,%s,%lld,%.4f,%s,%s,%lld,%s,%s,%s\n", static_cast<long long>(r.kernelId), role.c_str(),
                    static_cast<long long>(r.warps), r.waitShare(), data.str(p.name).c_str(), kindName(p.kind),
                    static_cast<long long>(p.count), micros(p.meanNs).c_str(), micros(p.p95Ns).c_str(),
                    micros(p.totalNs).c_str());
            else
                std::printf("    %-24s %-5s %8lld  mean %10s us  p95 %10s us  total %12s us\n",
                    data.str(p.name).c_str(), kindName(p.kind), static_cast<long long>(p.count),
                    micros(p.meanNs).c_str(), micros(p.p95Ns).c_str(), micros(p.totalNs).c_str());
        }
    }
    if (!a.csv) {
        const auto meta = reader.meta();
        const auto list = [&](const char* key) {
            const auto it = meta.find(key);
            return it == meta.end() ? std::string() : it->second;
        };
        // Every loss, where the user reads the trace (issue 23: none is silent): per launch, or
        // every warp with --all.
        const auto dropped = byLaunch(list("iket_dropped_warps"), a.kernel);
        const auto outside = byLaunch(list("iket_out_of_range"), a.kernel);
        const auto unbalanced = byLaunch(list("iket_unbalanced"), a.kernel);
        const std::string recorderLost = a.kernel < 0 ? recorderLosses(meta) : std::string();
        if (!dropped.empty() || !outside.empty() || !recorderLost.empty())
            std::printf("events lost:\n%s", recorderLost.c_str());
        for (const auto& l : dropped)
            std::printf("  %s: %lld events dropped by %zu warp(s) that ran out of slots (first: %s)\n", l.who.c_str(),
                l.counted, l.lines, l.first.c_str());
        for (const auto& l : outside)
            std::printf("  %s: %s had no slots and recorded nothing (outside the grid its Launch was sized for)\n",
                l.who.c_str(), l.first.c_str());
        if (!unbalanced.empty()) {
            std::printf("unbalanced ranges:\n");
            if (a.all)
                std::printf("%s\n", list("iket_unbalanced").c_str());
            else
                for (const auto& l : unbalanced)
                    std::printf("  %s: %zu warp(s), first: %s\n", l.who.c_str(), l.lines, l.first.c_str());
        }
        if (a.all && !dropped.empty())
            std::printf("warps that ran out of slots (events dropped):\n%s\n", list("iket_dropped_warps").c_str());
        // What ingest's alignment to the kernels did (iket_clock has the details): events whose GPU
        // timer position lay outside their kernel were moved; any still outside would mean the
        // trace spans longer than the kernel.
        const auto moved = meta.find("iket_events_moved_into_kernel");
        const auto outsideKernel = meta.find("iket_events_outside_kernel");
        const auto events = meta.find("iket_events");
        if (moved != meta.end() && outsideKernel != meta.end() && events != meta.end())
            std::printf("kernel alignment: %s of %s events moved into their kernel, %s still outside\n",
                moved->second.c_str(), events->second.c_str(), outsideKernel->second.c_str());
        const auto droppedTotal = meta.find("iket_dropped_events");
        if (droppedTotal != meta.end() && droppedTotal->second != "0")
            std::printf("%s events were dropped (warps ran out of slots)\n", droppedTotal->second.c_str());
        const auto outsideTotal = meta.find("iket_out_of_range_warps");
        if (outsideTotal != meta.end() && outsideTotal->second != "0")
            std::printf("%s warps recorded nothing (outside their Launch's grid)\n", outsideTotal->second.c_str());
        if (!a.all && (!unbalanced.empty() || !dropped.empty()))
            std::printf("(--all lists every warp)\n");
    }
    return 0;
}

ws::cli::CommandRegistrar registrar(
    {"46-warp-roles", [](CLI::App& app, int& exitCode) {
         auto* cmd = app.add_subcommand("warp-roles",
             "In-kernel trace summary per kernel and warp role: phase mean/p95 durations, share of time waiting, "
             "unbalanced ranges");
         auto args = std::make_shared<WarpRolesArgs>();
         cmd->add_option("session", args->session, "Session file (.wscope)")->required()->check(CLI::ExistingFile);
         cmd->add_option("--kernel", args->kernel, "Only this kernel (launch id)");
         cmd->add_flag("--csv", args->csv, "CSV instead of text");
         cmd->add_flag(
             "--all", args->all, "List every warp that lost events or left ranges open, not one line per launch");
         cmd->callback([args, &exitCode] { exitCode = run(*args); });
     }});

} // namespace

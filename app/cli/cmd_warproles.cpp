// SPDX-License-Identifier: MIT
// warpscope-cli warp-roles FILE: the in-kernel trace of a session per kernel and warp role:
// mean and p95 duration of each phase, share of time spent waiting, and the warps whose
// ranges did not balance.
#include "command.h"

#include "core/iket/warprolesummary.h"
#include "core/store/sessionreader.h"

#include <cstdio>
#include <memory>
#include <string>

namespace {

struct WarpRolesArgs {
    std::string session;
    int64_t kernel = -1;
    bool csv = false;
};

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

int run(const WarpRolesArgs& a)
{
    const ws::SessionReader reader(a.session);
    ws::SessionData data;
    data.strings = reader.readStrings();
    data.warpEvents = reader.readWarpEvents();
    if (data.warpEvents.empty()) {
        std::printf(
            "%s: no in-kernel trace (instrument a kernel with warpscope/iket.cuh and record it)\n", a.session.c_str());
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
        const auto it = meta.find("iket_unbalanced");
        if (it != meta.end())
            std::printf("unbalanced ranges:\n%s\n", it->second.c_str());
        // What ingest's alignment to the kernels did (iket_clock has the details): events whose GPU
        // timer position lay outside their kernel were moved; any still outside would mean the
        // trace spans longer than the kernel.
        const auto moved = meta.find("iket_events_moved_into_kernel");
        const auto outside = meta.find("iket_events_outside_kernel");
        const auto events = meta.find("iket_events");
        if (moved != meta.end() && outside != meta.end() && events != meta.end())
            std::printf("kernel alignment: %s of %s events moved into their kernel, %s still outside\n",
                moved->second.c_str(), events->second.c_str(), outside->second.c_str());
        const auto dropped = meta.find("iket_dropped_events");
        if (dropped != meta.end() && dropped->second != "0")
            std::printf("%s events were dropped (warps ran out of slots)\n", dropped->second.c_str());
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
         cmd->callback([args, &exitCode] { exitCode = run(*args); });
     }});

} // namespace

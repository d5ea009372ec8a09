// SPDX-License-Identifier: MIT
#include "core/iket/iketingest.h"

#include "core/iket/warpdecoder.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace ws::iket {

namespace {

// Runs job(0) .. job(n - 1) on up to `threads` threads, the caller's among them; the first
// exception (out of memory on a huge trace) is rethrown here once every thread has stopped.
void runParallel(size_t n, unsigned threads, const std::function<void(size_t)>& job)
{
    std::atomic<size_t> next {0};
    std::mutex failed;
    std::exception_ptr error;
    const auto work = [&] {
        for (size_t i; (i = next++) < n;) {
            try {
                job(i);
            } catch (...) {
                const std::lock_guard lock(failed);
                if (!error)
                    error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

struct Decoded {
    DecodedLaunch launch;
    size_t begin = 0; // its events in the session's vector
    size_t count = 0;
};

// Every launch decoded, its events appended to `events` in launch order, and its buffer's events
// released. The strings are interned first, in launch order, so that decoding only reads the
// string table and the launches can decode on threads of their own (bench_iket_ingest: a launch
// of 2.4M device events is about 0.15 s of one core).
std::vector<Decoded> decodeAll(std::vector<LaunchBuffer>& launches, const std::vector<const KernelRecord*>& kernels,
    StringTable& strings, std::vector<WarpEvent>& events)
{
    std::vector<LaunchStrings> names;
    names.reserve(launches.size());
    for (const auto& launch : launches)
        names.push_back(internStrings(launch, strings));
    std::vector<Decoded> out(launches.size());
    const unsigned threads = static_cast<unsigned>(
        std::min<size_t>(launches.size(), std::clamp(std::thread::hardware_concurrency(), 1u, 8u)));
    if (threads <= 1) {
        size_t most = events.size();
        for (const auto& launch : launches)
            most += rowsAtMost(launch);
        events.reserve(most); // millions of events: written once, never regrown
        for (size_t i = 0; i < launches.size(); ++i) {
            out[i].begin = events.size();
            out[i].launch = decodeLaunchInto(launches[i], kernels[i], names[i], strings, events);
            out[i].count = events.size() - out[i].begin;
            std::vector<raw::IketEvent>().swap(launches[i].events);
        }
        return out;
    }
    std::vector<std::vector<WarpEvent>> perLaunch(launches.size());
    runParallel(launches.size(), threads, [&](size_t i) {
        perLaunch[i].reserve(rowsAtMost(launches[i]));
        out[i].launch = decodeLaunchInto(launches[i], kernels[i], names[i], strings, perLaunch[i]);
        std::vector<raw::IketEvent>().swap(launches[i].events);
    });
    size_t total = events.size();
    for (const auto& v : perLaunch)
        total += v.size();
    events.reserve(total);
    for (size_t i = 0; i < launches.size(); ++i) {
        out[i].begin = events.size();
        out[i].count = perLaunch[i].size();
        events.insert(events.end(), perLaunch[i].begin(), perLaunch[i].end());
        std::vector<WarpEvent>().swap(perLaunch[i]);
    }
    return out;
}

} // namespace

void LaunchCollector::add(const std::string& path, const raw::FileHeader& header, std::string_view payload,
    std::string label, std::string_view names, std::vector<std::string>& warnings)
{
    LaunchBuffer launch;
    const std::string error = parseLaunch(payload, std::move(label), names, launch);
    if (!error.empty()) {
        warnings.push_back(path + ": " + error + " (skipped)");
        return;
    }
    launch.pid = header.pid;
    launch.realtimeMinusMonotonicNs = header.anchorRealtimeNs - header.anchorMonotonicNs;
    m_launches.push_back(std::move(launch));
}

void LaunchCollector::addPart(const std::string& path, const raw::FileHeader& header, std::string&& payload,
    std::string label, std::string_view names, std::vector<std::string>& warnings)
{
    const int64_t pid = header.pid;
    const std::string error = m_parts.add(pid, std::move(payload), std::move(label), names);
    if (!error.empty()) {
        warnings.push_back(path + ": " + error + " (skipped)");
        return;
    }
    m_anchors[pid] = header.anchorRealtimeNs - header.anchorMonotonicNs;
}

void LaunchCollector::finish(SessionData& session, std::vector<std::string>& warnings)
{
    // Split launches whose parts all arrived join the others; the rest are reported, with the
    // events they lost, never shown as whole.
    std::vector<std::string> joinErrors;
    for (auto& launch : m_parts.takeComplete(joinErrors)) {
        launch.realtimeMinusMonotonicNs = m_anchors[launch.pid];
        m_launches.push_back(std::move(launch));
    }
    for (const auto& e : joinErrors)
        warnings.push_back(e + " (skipped)");
    uint64_t lostInParts = 0;
    const std::vector<std::string> incomplete = m_parts.incomplete(lostInParts);
    for (const auto& line : incomplete)
        warnings.push_back(line);
    if (!incomplete.empty() || !joinErrors.empty()) {
        session.meta["iket_incomplete_launches"] = std::to_string(incomplete.size() + joinErrors.size());
        session.meta["iket_lost_events"] = std::to_string(lostInParts);
    }
    if (m_launches.empty())
        return;
    int64_t nextId = 1;
    for (const auto& e : session.warpEvents)
        nextId = std::max(nextId, e.id + 1);
    uint64_t events = 0;
    uint64_t dropped = 0;
    uint64_t truncated = 0;
    uint64_t outOfRange = 0;
    int unmatched = 0;
    int aligned = 0;
    int interpolated = 0;
    uint32_t warpsOnGlobaltimer = 0;
    uint32_t warpsWithOwnRate = 0;
    double nsPerCycle = 0;
    int64_t worstShift = 0;
    uint64_t moved = 0;
    uint64_t outside = 0;
    std::string shifts;
    uint64_t step = 0;
    std::string unbalancedText;
    std::string droppedText;
    std::string outOfRangeText;
    size_t unbalancedWarps = 0;
    std::vector<const KernelRecord*> kernels;
    kernels.reserve(m_launches.size());
    for (const auto& launch : m_launches)
        kernels.push_back(findKernel(session, launch));
    const std::vector<Decoded> all = decodeAll(m_launches, kernels, session.strings, session.warpEvents);
    for (size_t l = 0; l < m_launches.size(); ++l) {
        const LaunchBuffer& launch = m_launches[l];
        const KernelRecord* kernel = kernels[l];
        unmatched += kernel ? 0 : 1;
        const DecodedLaunch& d = all[l].launch;
        const size_t decoded = all[l].count;
        for (size_t i = all[l].begin; i < all[l].begin + decoded; ++i)
            session.warpEvents[i].id = nextId++;
        events += decoded;
        dropped += d.dropped;
        truncated += launch.truncatedEvents;
        outOfRange += launch.outOfRangeWarps;
        aligned += d.clock.kernelAligned ? 1 : 0;
        interpolated += d.clock.clockInterpolated ? 1 : 0;
        warpsOnGlobaltimer += d.clock.warpsOnGlobaltimer;
        warpsWithOwnRate += d.clock.warpsWithOwnRate;
        if (d.clock.nsPerCycle > 0)
            nsPerCycle = d.clock.nsPerCycle;
        moved += d.clock.eventsMovedIntoKernel;
        outside += d.clock.eventsOutsideKernel;
        if (d.clock.kernelAligned)
            shifts += (shifts.empty() ? "" : ",") + std::to_string(d.kernelId) + ":"
                + std::to_string(d.clock.kernelShiftNs);
        if (std::llabs(d.clock.kernelShiftNs) > std::llabs(worstShift))
            worstShift = d.clock.kernelShiftNs;
        if (d.clock.globaltimerStepNs && (!step || d.clock.globaltimerStepNs < step))
            step = d.clock.globaltimerStepNs;
        const std::string who = (launch.label.empty() ? std::string("launch") : launch.label)
            + (kernel ? " (kernel #" + std::to_string(kernel->id) + ")" : std::string(" (kernel not found)"));
        for (const auto& u : d.unbalanced) {
            ++unbalancedWarps;
            unbalancedText += (unbalancedText.empty() ? "" : "\n") + who + ": " + u.text();
        }
        if (!d.unbalanced.empty())
            warnings.push_back("in-kernel trace " + who + ": ranges do not balance on "
                + std::to_string(d.unbalanced.size()) + " warp(s), first: " + d.unbalanced.front().text());
        if (d.clock.eventsOutsideKernel > 0)
            warnings.push_back("in-kernel trace " + who + ": " + std::to_string(d.clock.eventsOutsideKernel) + " of "
                + std::to_string(decoded) + " events lie outside the kernel even after alignment (they span "
                + std::to_string(d.clock.rawSpanNs) + " ns, the kernel " + std::to_string(kernel->end - kernel->start)
                + " ns: the GPU timer and CUPTI disagree)");
        if (launch.outOfRangeWarps > 0) {
            // Warps whose index lies past the buffer's (the Launch was sized for a smaller grid or
            // block than the kernel ran with) have no slots: they record nothing, and only their
            // number is known.
            const uint64_t blocks = uint64_t {launch.grid[0]} * launch.grid[1] * launch.grid[2];
            std::string ran;
            if (kernel) {
                const int64_t kernelBlocks = int64_t {kernel->gridX} * kernel->gridY * kernel->gridZ;
                const int64_t threads = int64_t {kernel->blockX} * kernel->blockY * kernel->blockZ;
                ran = "; the kernel ran " + std::to_string(kernelBlocks) + " blocks of "
                    + std::to_string((threads + 31) / 32) + " warps";
            }
            outOfRangeText += (outOfRangeText.empty() ? "" : "\n") + who + ": " + std::to_string(launch.outOfRangeWarps)
                + " warps";
            warnings.push_back("in-kernel trace " + who + ": " + std::to_string(launch.outOfRangeWarps)
                + " warp(s) had no slots and recorded nothing: its ws::iket::Launch was sized for "
                + std::to_string(blocks) + " blocks of " + std::to_string(launch.warpsPerBlock) + " warps" + ran
                + " (give the Launch the kernel's grid and block)");
        }
        if (d.dropped > 0) {
            // Which warps: every one in the session's meta, the first few in the warning.
            std::string list;
            int listed = 0;
            int short_ = 0;
            for (uint32_t w = 0; w < launch.totalWarps(); ++w) {
                if (launch.counts[w] <= launch.eventsPerWarp)
                    continue;
                ++short_;
                const std::string one = "block " + std::to_string(w / launch.warpsPerBlock) + " warp "
                    + std::to_string(w % launch.warpsPerBlock) + " ("
                    + std::to_string(launch.counts[w] - launch.eventsPerWarp) + ")";
                droppedText += (droppedText.empty() ? "" : "\n") + who + ": " + one;
                if (listed++ < 8)
                    list += (list.empty() ? "" : ", ") + one;
            }
            warnings.push_back("in-kernel trace " + who + ": " + std::to_string(d.dropped) + " events dropped by "
                + std::to_string(short_) + " warp(s) that ran out of slots: " + list + (short_ > 8 ? ", ..." : "")
                + " (raise eventsPerWarp)");
        }
    }
    if (unmatched > 0)
        warnings.push_back("in-kernel trace: " + std::to_string(unmatched) + " of " + std::to_string(m_launches.size())
            + " launches matched no recorded kernel; their events keep kernel id 0");
    session.meta["iket_launches"] = std::to_string(m_launches.size());
    session.meta["iket_events"] = std::to_string(events);
    session.meta["iket_dropped_events"] = std::to_string(dropped + truncated);
    if (!droppedText.empty())
        session.meta["iket_dropped_warps"] = droppedText;
    session.meta["iket_out_of_range_warps"] = std::to_string(outOfRange);
    if (!outOfRangeText.empty())
        session.meta["iket_out_of_range"] = outOfRangeText;
    session.meta["iket_unbalanced_warps"] = std::to_string(unbalancedWarps);
    if (!unbalancedText.empty())
        session.meta["iket_unbalanced"] = unbalancedText;
    session.meta["iket_unmatched_launches"] = std::to_string(unmatched);
    session.meta["iket_events_moved_into_kernel"] = std::to_string(moved);
    session.meta["iket_events_outside_kernel"] = std::to_string(outside);
    session.meta["iket_kernel_shifts_ns"] = shifts;
    session.meta["iket_clock"] = "globaltimer minus the process's realtime-monotonic anchor; " + std::to_string(aligned)
        + " of " + std::to_string(m_launches.size())
        + " launches aligned to their kernel's CUPTI interval (largest correction " + std::to_string(worstShift)
        + " ns; " + std::to_string(moved) + " of " + std::to_string(events) + " events moved into their kernel, "
        + std::to_string(outside) + " still outside); globaltimer step " + std::to_string(step) + " ns"
        + (interpolated ? "; clock64 interpolation in " + std::to_string(interpolated) + " launches" : "")
        + (nsPerCycle > 0 ? "; compact events: SM clock " + std::to_string(nsPerCycle) + " ns per cycle, "
                    + std::to_string(warpsWithOwnRate) + " warps timed by their own clock rate, "
                    + std::to_string(warpsOnGlobaltimer) + " warps kept on globaltimer (their clock64 strayed)"
                          : "");
}

} // namespace ws::iket

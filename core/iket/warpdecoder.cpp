// SPDX-License-Identifier: MIT
#include "core/iket/warpdecoder.h"

#include "core/iket/compactevents.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <span>
#include <tuple>

namespace ws::iket {

namespace {

using raw::IketKind;

TimeNs median(std::vector<TimeNs>& v)
{
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// How finely globaltimer advances: the greatest common divisor of the steps between a warp's
// consecutive values (every value is a multiple of the tick).
uint64_t globaltimerStep(const LaunchBuffer& launch)
{
    uint64_t step = 0;
    for (uint32_t w = 0; w < launch.totalWarps(); ++w) {
        const uint64_t first = launch.firstEvent[w];
        for (uint64_t i = first + 1; i < first + launch.stored(w); ++i) {
            const uint64_t a = launch.events[i - 1].globaltimer;
            const uint64_t b = launch.events[i].globaltimer;
            // A step the tick already divides leaves the gcd as it is: skip the gcd.
            if (a != 0 && b > a && (step == 0 || (b - a) % step != 0))
                step = std::gcd(step, b - a);
        }
    }
    return step;
}

// Device time of every event, in globaltimer ns. With a coarse globaltimer: per SM, clock64
// against globaltimer by least squares (clock64 is per SM), intercept the median residual plus
// half a step (globaltimer truncates).
// WARPSCOPE_IKET_CLOCK64_ONLY: events carry clock64 only, and each warp has anchor events with
// both timers (when its profiler starts and ends). Its events are placed by the line through
// its anchors; a warp with a single anchor uses the median rate of the others. Returns whether
// any warp was timed so.
bool anchoredTimes(const LaunchBuffer& launch, std::vector<TimeNs>& t)
{
    struct Line {
        uint64_t gt = 0;
        uint64_t clock = 0;
        double nsPerCycle = 0;
    };
    std::vector<std::pair<uint32_t, Line>> warps;
    std::vector<double> rates;
    for (uint32_t w = 0; w < launch.totalWarps(); ++w) {
        const uint64_t first = launch.firstEvent[w];
        const raw::IketEvent* a = nullptr;
        const raw::IketEvent* b = nullptr;
        for (uint64_t i = first; i < first + launch.stored(w); ++i) {
            if (launch.events[i].kind != static_cast<uint8_t>(IketKind::Anchor))
                continue;
            (a ? b : a) = &launch.events[i];
        }
        if (!a)
            continue;
        Line line {a->globaltimer, a->clock, 0};
        if (b && b->clock > a->clock && b->globaltimer > a->globaltimer) {
            line.nsPerCycle
                = static_cast<double>(b->globaltimer - a->globaltimer) / static_cast<double>(b->clock - a->clock);
            rates.push_back(line.nsPerCycle);
        }
        warps.emplace_back(w, line);
    }
    if (warps.empty())
        return false;
    std::sort(rates.begin(), rates.end());
    const double typical = rates.empty() ? 0 : rates[rates.size() / 2];
    for (auto& [w, line] : warps) {
        const double rate = line.nsPerCycle > 0 ? line.nsPerCycle : typical;
        const uint64_t first = launch.firstEvent[w];
        for (uint64_t i = first; i < first + launch.stored(w); ++i) {
            const raw::IketEvent& e = launch.events[i];
            if (e.globaltimer != 0 && e.kind == static_cast<uint8_t>(IketKind::Anchor))
                continue;
            const double dc = static_cast<double>(e.clock) - static_cast<double>(line.clock);
            t[i] = static_cast<TimeNs>(line.gt) + static_cast<TimeNs>(std::llround(rate * dc));
        }
    }
    return true;
}

// The ns per cycle around event i of a warp (events [first, first + n)) from the globaltimer
// readings before and after it, widened to at least kLocalRateSpanNs so the readings' 32 ns ticks
// stay small against the span; `fallback` when the warp has no reading on one side.
double localRate(const LaunchBuffer& launch, uint64_t first, uint64_t n, uint64_t i, double fallback)
{
    constexpr uint64_t kLocalRateSpanNs = 1000;
    const auto reading = [&](uint64_t k) { return launch.events[k].globaltimer != 0; };
    uint64_t a = i;
    uint64_t b = i;
    const auto back = [&] {
        for (uint64_t k = a; k-- > first;)
            if (reading(k))
                return a = k, true;
        return false;
    };
    const auto ahead = [&] {
        for (uint64_t k = b + 1; k < first + n; ++k)
            if (reading(k))
                return b = k, true;
        return false;
    };
    if (!back() || !ahead())
        return fallback;
    while (launch.events[b].globaltimer - launch.events[a].globaltimer < kLocalRateSpanNs) {
        const bool earlier = back();
        const bool later = ahead();
        if (!earlier && !later)
            break;
    }
    if (launch.events[b].clock <= launch.events[a].clock
        || launch.events[b].globaltimer <= launch.events[a].globaltimer)
        return fallback;
    return static_cast<double>(launch.events[b].globaltimer - launch.events[a].globaltimer)
        / static_cast<double>(launch.events[b].clock - launch.events[a].clock);
}

// Events from the compact (version 2 and 3) buffers: each warp's clock64 is exact within the warp;
// %globaltimer was read at its anchors and, unless clock64-only, at every event but the pops of
// version 3 buffers. Durations come
// from clock64 (sub-ns resolution, where globaltimer ticks in 32 ns steps), placement from
// globaltimer: one clock rate for the launch (the SMs share their clock), measured over every
// warp's span (sum of globaltimer spans over sum of clock spans), and per warp the offset that
// puts its clock on its globaltimer readings (median residual plus half a tick: the timer
// truncates). A warp whose readings stray from that line by more than kStrayNs (the SM clock
// changed speed during the kernel) keeps globaltimer for its events that have it: each such event
// stays inside its own globaltimer tick, placed there by the clock cycles since the warp's previous
// event, so events closer than a tick keep the order the warp wrote them in (issue 23: ranges of
// 30 ns back to back sorted out of order when every event of a tick sat at its middle); its events
// without a reading follow the previous event by the cycles in between.
void compactTimes(const LaunchBuffer& launch, uint64_t step, std::vector<TimeNs>& t, ClockMapping& clock)
{
    // Per warp: its rate over its span. The launch's rate is the median over the warps that span
    // at least half the longest (long spans resolve the rate finely; the median ignores a warp
    // whose SM changed its clock).
    std::vector<std::pair<double, double>> rates; // (globaltimer span, ns per cycle)
    double longest = 0;
    for (uint32_t w = 0; w < launch.totalWarps(); ++w) {
        const uint64_t first = launch.firstEvent[w];
        const raw::IketEvent* a = nullptr;
        const raw::IketEvent* b = nullptr;
        for (uint64_t i = first; i < first + launch.stored(w); ++i) {
            if (launch.events[i].globaltimer == 0)
                continue;
            (a ? b : a) = &launch.events[i];
        }
        if (a && b && b->clock > a->clock && b->globaltimer > a->globaltimer) {
            const auto span = static_cast<double>(b->globaltimer - a->globaltimer);
            rates.emplace_back(span, span / static_cast<double>(b->clock - a->clock));
            longest = std::max(longest, span);
        }
    }
    std::vector<double> candidates;
    for (const auto& [span, rate] : rates)
        if (span >= longest / 2)
            candidates.push_back(rate);
    std::sort(candidates.begin(), candidates.end());
    // Without two readings in any warp the rate is unknown: 2 GHz, the order of every Hopper's clock.
    const double nsPerCycle = candidates.empty() ? 0.5 : candidates[candidates.size() / 2];
    clock.nsPerCycle = nsPerCycle;
    const TimeNs half = static_cast<TimeNs>(step / 2);
    std::vector<double> residual;
    for (uint32_t w = 0; w < launch.totalWarps(); ++w) {
        const uint64_t first = launch.firstEvent[w];
        const uint64_t n = launch.stored(w);
        // A warp whose readings span long enough has its own rate (an SM's clock64 may run at
        // its own speed: seen on the H200 for a group of SMs); else the launch's.
        double rate = nsPerCycle;
        const raw::IketEvent* a = nullptr;
        const raw::IketEvent* b = nullptr;
        for (uint64_t i = first; i < first + n; ++i)
            if (launch.events[i].globaltimer != 0)
                (a ? b : a) = &launch.events[i];
        if (a && b && b->clock > a->clock && b->globaltimer >= a->globaltimer + kOwnRateSpanNs) {
            rate = static_cast<double>(b->globaltimer - a->globaltimer) / static_cast<double>(b->clock - a->clock);
            ++clock.warpsWithOwnRate;
        }
        residual.clear();
        for (uint64_t i = first; i < first + n; ++i) {
            const raw::IketEvent& e = launch.events[i];
            if (e.globaltimer != 0)
                residual.push_back(
                    static_cast<double>(static_cast<int64_t>(e.globaltimer - launch.events[first].globaltimer))
                    - rate * static_cast<double>(static_cast<int64_t>(e.clock - launch.events[first].clock)));
        }
        if (residual.empty())
            continue; // no reading at all: nothing places this warp (t keeps 0)
        std::vector<double> sorted = residual;
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
        const double offset = sorted[sorted.size() / 2];
        double stray = 0;
        for (const double r : residual)
            stray = std::max(stray, std::fabs(r - offset));
        const bool keepGlobaltimer = stray > kStrayNs && residual.size() > 2;
        clock.warpsOnGlobaltimer += keepGlobaltimer ? 1 : 0;
        // Offsets from the warp's first reading in double, the reading itself in integer ns (a
        // double holds ~1e18 ns only to 128 ns).
        const auto base = static_cast<TimeNs>(launch.events[first].globaltimer);
        bool placed = false;          // keepGlobaltimer: an event of this warp has a time yet
        uint64_t nextReading = first; // keepGlobaltimer: the next event with a reading from here
        for (uint64_t i = first; i < first + n; ++i) {
            const raw::IketEvent& e = launch.events[i];
            if (keepGlobaltimer && (placed || e.globaltimer != 0)) {
                // After the warp's first placed event every event follows the one before it by the
                // cycles in between, at the clock's rate around it (the warp's clock changed speed,
                // so neither its line nor its mean rate holds here).
                TimeNs at = 0;
                if (placed) {
                    const auto since = static_cast<double>(static_cast<int64_t>(e.clock - launch.events[i - 1].clock));
                    at = t[i - 1]
                        + static_cast<TimeNs>(
                            std::llround(localRate(launch, first, n, i, rate) * std::max(since, 0.0)));
                }
                const auto tickSpan = static_cast<TimeNs>(step > 0 ? step - 1 : 0);
                if (e.globaltimer != 0) {
                    // With a reading: inside its own tick (at the tick's middle for the first).
                    const auto tick = static_cast<TimeNs>(e.globaltimer);
                    at = placed ? std::clamp(at, tick, tick + tickSpan) : tick + half;
                } else {
                    // Without one (a pop paired with its push, a clock64-only event): before the
                    // next reading's tick ends, one ns left for each event up to it, so no drift
                    // carries on past the readings.
                    nextReading = std::max(nextReading, i);
                    while (nextReading < first + n && launch.events[nextReading].globaltimer == 0)
                        ++nextReading;
                    if (nextReading < first + n)
                        at = std::min(at,
                            static_cast<TimeNs>(launch.events[nextReading].globaltimer) + tickSpan
                                - static_cast<TimeNs>(nextReading - i));
                }
                // Written later, so later: at least 1 ns after the previous event even where the
                // clamp would tie them.
                t[i] = placed ? std::max(at, t[i - 1] + 1) : at;
                placed = true;
                continue;
            }
            const auto cycles = static_cast<double>(static_cast<int64_t>(e.clock - launch.events[first].clock));
            t[i] = base + static_cast<TimeNs>(std::llround(offset + rate * cycles)) + half;
        }
    }
}

bool fromCompact(const LaunchBuffer& launch)
{
    return !launch.events.empty() && launch.events.front().reserved == kFromCompact;
}

std::vector<TimeNs> deviceTimes(const LaunchBuffer& launch, uint64_t step, ClockMapping& clock)
{
    bool& interpolated = clock.clockInterpolated;
    std::vector<TimeNs> t(launch.events.size());
    for (size_t i = 0; i < t.size(); ++i)
        t[i] = static_cast<TimeNs>(launch.events[i].globaltimer);
    interpolated = false;
    if (fromCompact(launch)) {
        compactTimes(launch, step, t, clock);
        interpolated = true;
        return t;
    }
    if (anchoredTimes(launch, t)) {
        interpolated = true;
        return t;
    }
    if (step < kCoarseGlobaltimerNs)
        return t;
    std::map<uint16_t, std::vector<size_t>> perSm;
    for (size_t i = 0; i < t.size(); ++i)
        perSm[launch.events[i].sm].push_back(i);
    for (const auto& [sm, idx] : perSm) {
        double meanC = 0;
        double meanG = 0;
        for (const size_t i : idx) {
            meanC += static_cast<double>(launch.events[i].clock);
            meanG += static_cast<double>(launch.events[i].globaltimer);
        }
        meanC /= static_cast<double>(idx.size());
        meanG /= static_cast<double>(idx.size());
        double sxy = 0;
        double sxx = 0;
        for (const size_t i : idx) {
            const double dc = static_cast<double>(launch.events[i].clock) - meanC;
            sxy += dc * (static_cast<double>(launch.events[i].globaltimer) - meanG);
            sxx += dc * dc;
        }
        const double nsPerCycle = sxx > 0 ? sxy / sxx : 0;
        // Spans shorter than a few steps say nothing about the rate: keep globaltimer there.
        if (nsPerCycle < 0.05 || nsPerCycle > 10)
            continue;
        std::vector<TimeNs> residual;
        residual.reserve(idx.size());
        for (const size_t i : idx)
            residual.push_back(static_cast<TimeNs>(static_cast<double>(launch.events[i].globaltimer)
                - nsPerCycle * (static_cast<double>(launch.events[i].clock) - meanC)));
        const TimeNs intercept = median(residual) + static_cast<TimeNs>(step / 2);
        for (const size_t i : idx)
            t[i] = intercept + static_cast<TimeNs>(nsPerCycle * (static_cast<double>(launch.events[i].clock) - meanC));
        interpolated = true;
    }
    return t;
}

// Counts, over the decoded events, what the kernel alignment moved and what it could not place
// inside the kernel; the raw position of an event is its aligned one minus the shift.
void countKernelFit(DecodedLaunch& out, std::span<const WarpEvent> events, const KernelRecord* kernel)
{
    if (events.empty())
        return;
    const TimeNs shift = out.clock.kernelShiftNs;
    TimeNs lo = events.front().begin;
    TimeNs hi = events.front().end;
    for (const WarpEvent& e : events) {
        lo = std::min(lo, e.begin);
        hi = std::max(hi, e.end);
        if (!out.clock.kernelAligned)
            continue;
        const auto inside = [kernel](TimeNs b, TimeNs en) { return b >= kernel->start && en <= kernel->end; };
        out.clock.eventsMovedIntoKernel += !inside(e.begin - shift, e.end - shift) && inside(e.begin, e.end) ? 1 : 0;
        out.clock.eventsOutsideKernel += inside(e.begin, e.end) ? 0 : 1;
    }
    out.clock.rawSpanNs = hi - lo;
}

struct Open {
    StringId name = 0;
    TimeNs begin = 0;
    StringId role = 0;
    int32_t sm = 0;
};

} // namespace

std::string UnbalancedWarp::text() const
{
    std::string s = "block " + std::to_string(block) + " warp " + std::to_string(warp);
    if (!role.empty())
        s += " (" + role + ")";
    s += ":";
    const auto part = [&s](int n, const char* what) {
        if (n > 0)
            s += " " + std::to_string(n) + " " + what + ",";
    };
    part(unmatchedPops, "range_pop without a push");
    part(unclosedPushes, "range_push never popped");
    part(unmatchedEnds, "range_end without a start");
    part(unclosedStarts, "range_start never ended");
    if (s.back() == ',')
        s.pop_back();
    if (truncated)
        s += " (the warp ran out of event slots: its last events were dropped)";
    return s;
}

const KernelRecord* findKernel(const SessionData& session, const LaunchBuffer& launch)
{
    const ApiCallRecord* call = nullptr;
    for (const auto& a : session.apiCalls) {
        if (a.pid != launch.pid || a.tid != launch.tid || a.start < launch.armedNs)
            continue;
        const std::string& name = session.str(a.name);
        if (!name.starts_with("cudaLaunch") && !name.starts_with("cuLaunch"))
            continue;
        if (!call || a.start < call->start)
            call = &a;
    }
    const KernelRecord* best = nullptr;
    for (const auto& k : session.kernels) {
        if (k.pid != launch.pid)
            continue;
        if (call) {
            if (k.correlationId == call->correlationId)
                return &k;
        } else if (k.start >= launch.armedNs && (!best || k.start < best->start)) {
            best = &k;
        }
    }
    return best;
}

DecodedLaunch decodeLaunch(const LaunchBuffer& launch, const KernelRecord* kernel, StringTable& strings)
{
    std::vector<WarpEvent> events;
    DecodedLaunch out = decodeLaunchInto(launch, kernel, strings, events);
    out.events = std::move(events);
    return out;
}

DecodedLaunch decodeLaunchInto(
    const LaunchBuffer& launch, const KernelRecord* kernel, StringTable& strings, std::vector<WarpEvent>& events)
{
    return decodeLaunchInto(launch, kernel, internStrings(launch, strings), strings, events);
}

LaunchStrings internStrings(const LaunchBuffer& launch, StringTable& strings)
{
    LaunchStrings out;
    out.names.reserve(launch.names.size());
    for (const auto& n : launch.names)
        out.names.push_back(strings.intern(n));
    const auto nameOf = [&](uint16_t id) {
        if (id < out.names.size())
            return out.names[id];
        const auto it = out.unlisted.find(id);
        return it != out.unlisted.end() ? it->second : out.unlisted[id] = strings.intern("name #" + std::to_string(id));
    };
    out.firstRole.assign(launch.totalWarps(), 0);
    for (uint32_t w = 0; w < launch.totalWarps(); ++w) {
        const uint64_t first = launch.firstEvent[w];
        const uint64_t n = launch.stored(w);
        if (n == 0)
            continue;
        // A warp's role: the name of its latest role() call; before the first one, the first.
        StringId role = 0;
        for (uint64_t i = first; i < first + n && !role; ++i)
            if (launch.events[i].kind == static_cast<uint8_t>(IketKind::Role))
                role = nameOf(launch.events[i].name);
        if (!role)
            role = strings.intern("warp " + std::to_string(w % launch.warpsPerBlock));
        out.firstRole[w] = role;
        // Then the names its events take, in the order decoding reads them (only ids past the
        // list intern anything).
        for (uint64_t i = first; i < first + n; ++i) {
            const raw::IketEvent& ev = launch.events[i];
            const auto kind = static_cast<IketKind>(ev.kind);
            if (ev.name >= out.names.size()
                && (kind == IketKind::Role || kind == IketKind::Push || kind == IketKind::Start
                    || kind == IketKind::Mark))
                nameOf(ev.name);
        }
    }
    return out;
}

size_t rowsAtMost(const LaunchBuffer& launch)
{
    // Every row begins at a push, a start or a mark; pops and ends only close them.
    size_t n = 0;
    for (const raw::IketEvent& e : launch.events) {
        const auto kind = static_cast<IketKind>(e.kind);
        n += kind == IketKind::Push || kind == IketKind::Start || kind == IketKind::Mark ? 1 : 0;
    }
    return n;
}

DecodedLaunch decodeLaunchInto(const LaunchBuffer& launch, const KernelRecord* kernel, const LaunchStrings& names,
    const StringTable& strings, std::vector<WarpEvent>& events)
{
    DecodedLaunch out;
    const size_t launchBegin = events.size();
    out.kernelId = kernel ? kernel->id : 0;
    out.stored = launch.events.size();
    out.dropped = launch.dropped();
    out.clock.globaltimerStepNs = globaltimerStep(launch);
    std::vector<TimeNs> t = deviceTimes(launch, out.clock.globaltimerStepNs, out.clock);

    // Onto the session clock: the anchor, then the kernel's own interval.
    out.clock.anchorShiftNs = -launch.realtimeMinusMonotonicNs;
    for (TimeNs& x : t)
        x += out.clock.anchorShiftNs;
    if (kernel && !t.empty() && kernel->end > kernel->start) {
        const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
        TimeNs shift = 0;
        // Longer than the kernel, or starting before it: align the starts.
        if (*hi - *lo > kernel->end - kernel->start || *lo < kernel->start)
            shift = kernel->start - *lo;
        else if (*hi > kernel->end)
            shift = kernel->end - *hi;
        for (TimeNs& x : t)
            x += shift;
        out.clock.kernelShiftNs = shift;
        out.clock.kernelAligned = true;
    }

    const auto nameOf = [&names](uint16_t id) { return names.nameOf(id); };

    // Per warp, reused from warp to warp (a launch has thousands of warps).
    std::vector<Open> stack;
    std::map<uint32_t, Open> started;
    std::vector<WarpEvent> async;
    std::vector<TimeNs> rowEnd;
    for (uint32_t w = 0; w < launch.totalWarps(); ++w) {
        const uint64_t first = launch.firstEvent[w];
        const uint64_t n = launch.stored(w);
        if (n == 0)
            continue;
        ++out.warpsWithEvents;
        const auto block = static_cast<int32_t>(w / launch.warpsPerBlock);
        const auto warp = static_cast<int32_t>(w % launch.warpsPerBlock);
        StringId role = names.firstRole[w];
        UnbalancedWarp bad;
        bad.block = static_cast<uint32_t>(block);
        bad.warp = static_cast<uint32_t>(warp);
        bad.truncated = launch.counts[w] > launch.eventsPerWarp;
        stack.clear();
        started.clear();
        async.clear();
        const size_t warpBegin = events.size();
        const auto emit = [&](WarpEventKind kind, const Open& o, TimeNs end, int32_t depth) {
            WarpEvent e;
            e.kernelId = out.kernelId;
            e.block = block;
            e.warp = warp;
            e.sm = o.sm;
            e.role = o.role;
            e.name = o.name;
            e.kind = kind;
            e.begin = o.begin;
            e.end = std::max(end, o.begin);
            e.depth = depth;
            (kind == WarpEventKind::AsyncRange ? async : events).push_back(e);
        };
        TimeNs last = 0;
        for (uint64_t i = first; i < first + n; ++i) {
            const raw::IketEvent& ev = launch.events[i];
            const TimeNs ts = t[i];
            last = std::max(last, ts);
            switch (static_cast<IketKind>(ev.kind)) {
            case IketKind::Role:
                role = nameOf(ev.name);
                break;
            case IketKind::Push:
                stack.push_back({nameOf(ev.name), ts, role, ev.sm});
                break;
            case IketKind::Pop:
                if (stack.empty()) {
                    ++bad.unmatchedPops;
                    break;
                }
                emit(WarpEventKind::Range, stack.back(), ts, static_cast<int32_t>(stack.size()) - 1);
                stack.pop_back();
                break;
            case IketKind::Start:
                started[ev.token] = {nameOf(ev.name), ts, role, ev.sm};
                break;
            case IketKind::End: {
                const auto it = started.find(ev.token);
                if (it == started.end()) {
                    ++bad.unmatchedEnds;
                    break;
                }
                emit(WarpEventKind::AsyncRange, it->second, ts, 0);
                started.erase(it);
                break;
            }
            case IketKind::Mark:
                emit(WarpEventKind::Mark, {nameOf(ev.name), ts, role, ev.sm}, ts, 0);
                break;
            default:
                break;
            }
        }
        bad.unclosedPushes = static_cast<int>(stack.size());
        bad.unclosedStarts = static_cast<int>(started.size());
        while (!stack.empty()) {
            emit(WarpEventKind::Range, stack.back(), last, static_cast<int32_t>(stack.size()) - 1);
            stack.pop_back();
        }
        for (const auto& [token, o] : started)
            emit(WarpEventKind::AsyncRange, o, last, 0);
        // Asynchronous ranges may overlap: each takes the lowest row free at its start.
        std::sort(async.begin(), async.end(),
            [](const WarpEvent& a, const WarpEvent& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
        rowEnd.clear();
        for (WarpEvent& e : async) {
            size_t row = 0;
            while (row < rowEnd.size() && rowEnd[row] > e.begin)
                ++row;
            if (row == rowEnd.size())
                rowEnd.push_back(e.end);
            else
                rowEnd[row] = e.end;
            e.depth = static_cast<int32_t>(row);
            events.push_back(e);
        }
        std::stable_sort(events.begin() + static_cast<std::ptrdiff_t>(warpBegin), events.end(),
            [](const WarpEvent& a, const WarpEvent& b) { return std::tie(a.begin, b.end) < std::tie(b.begin, a.end); });
        if (bad.unmatchedPops || bad.unclosedPushes || bad.unmatchedEnds || bad.unclosedStarts) {
            bad.role = strings.at(role);
            out.unbalanced.push_back(bad);
        }
    }
    countKernelFit(out, std::span<const WarpEvent>(events).subspan(launchBegin), kernel);
    return out;
}

} // namespace ws::iket

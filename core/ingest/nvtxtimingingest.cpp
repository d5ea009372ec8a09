// SPDX-License-Identifier: MIT
#include "core/ingest/nvtxtimingingest.h"

#include "core/bench/benchresult.h"
#include "core/raw/nvtxtiming.h"

#include <algorithm>
#include <set>

namespace ws {

void NvtxTimingIngest::addFile(const raw::RawFile& file)
{
    const int64_t pid = file.header().pid;
    for (const auto& f : file.frames()) {
        if (f.type != raw::RecordType::NvtxTiming)
            continue;
        const auto r = raw::readPayload<raw::NvtxTimingRecord>(f.payload);
        std::string_view name = raw::trailingBytes<raw::NvtxTimingRecord>(f.payload);
        while (!name.empty() && name.back() == '\0')
            name.remove_suffix(1);
        Range& range = m_ranges[{std::string(name), pid}];
        switch (static_cast<raw::NvtxTimingStatus>(r.status)) {
        case raw::NvtxTimingStatus::Ok:
            range.timed.push_back({r.instance, r.gpuNs});
            break;
        case raw::NvtxTimingStatus::NoContext:
            ++range.noContext;
            break;
        default:
            ++range.failed;
            break;
        }
    }
}

void NvtxTimingIngest::appendTo(SessionData& session, std::vector<std::string>& warnings) const
{
    if (m_ranges.empty())
        return;
    std::set<int64_t> pids;
    for (const auto& [key, range] : m_ranges)
        pids.insert(key.second);
    bench::BenchResult result;
    for (const auto& [key, range] : m_ranges) {
        const auto& [name, pid] = key;
        bench::BenchRunResult run;
        run.workload = name;
        run.implementation = kNvtxTimingImplementation;
        if (pids.size() > 1)
            run.implementation += " (pid " + std::to_string(pid) + ")";
        run.unit = "us";
        run.boundary = "NVTX range '" + name
            + "': CUDA events the recorder placed on the legacy default stream at push and at pop "
              "(GPU-stream time; covers work on the default and blocking streams, not on non-blocking streams)";
        run.options.timer = bench::TimerKind::CudaEventsPerCall;
        run.options.cache = bench::CachePolicy::Warm;
        run.options.repeat = 1;
        run.options.alternate = false;
        std::vector<Instance> timed = range.timed;
        // Records arrive in completion order; instances are numbered at push.
        std::stable_sort(
            timed.begin(), timed.end(), [](const Instance& a, const Instance& b) { return a.index < b.index; });
        run.options.rounds = static_cast<int>(timed.size());
        for (const auto& t : timed)
            run.rounds.push_back(static_cast<double>(t.gpuNs) / 1e3);
        if (range.noContext > 0)
            run.warnings.push_back(std::to_string(range.noContext)
                + " instance(s) not timed: no CUDA context was current on the thread at push");
        if (range.failed > 0)
            run.warnings.push_back(std::to_string(range.failed) + " instance(s) not timed: a CUDA event call failed");
        for (const auto& w : run.warnings) {
            std::string line = "NVTX timing of '";
            line += name;
            line += "' (pid " + std::to_string(pid) + "): ";
            line += w;
            warnings.push_back(std::move(line));
        }
        result.runs.push_back(std::move(run));
    }
    SessionData rows = bench::toSessionData(result);
    uint32_t offset = 0;
    for (const auto& r : session.benchRuns)
        offset = std::max(offset, r.id);
    for (auto& r : rows.benchRuns) {
        r.id += offset;
        session.benchRuns.push_back(std::move(r));
    }
    for (auto& s : rows.benchSamples) {
        s.runId += offset;
        session.benchSamples.push_back(s);
    }
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/bench/benchresult.h"

#include "core/bench/benchjson.h"

#include <algorithm>

namespace ws::bench {

SessionData toSessionData(const BenchResult& result)
{
    SessionData data;
    data.meta["kind"] = "bench";
    data.environment = result.environment;
    data.devices = result.devices;
    uint32_t id = 1;
    for (const auto& r : result.runs) {
        BenchRun run;
        run.id = id++;
        run.workload = r.workload;
        run.implementation = r.implementation;
        run.boundary = r.boundary;
        run.timer = std::string(timerKey(r.options.timer));
        run.cachePolicy = std::string(cachePolicyKey(r.options.cache));
        run.unit = r.unit;
        run.optionsJson = runExtrasToJson(r);
        run.workFlops = r.workFlops;
        run.workBytes = r.workBytes;
        for (size_t i = 0; i < r.rounds.size(); ++i)
            data.benchSamples.push_back({run.id, static_cast<int32_t>(i), -1, r.rounds[i]});
        for (size_t i = 0; i < r.calls.size(); ++i) {
            for (size_t c = 0; c < r.calls[i].size(); ++c)
                data.benchSamples.push_back({run.id, static_cast<int32_t>(i), static_cast<int32_t>(c), r.calls[i][c]});
        }
        data.benchRuns.push_back(std::move(run));
    }
    return data;
}

BenchResult benchResultFromSession(const SessionData& data, const std::string& source)
{
    if (data.benchRuns.empty())
        throw BenchFormatError(source + ": the session holds no benchmark runs");
    BenchResult result;
    result.environment = data.environment;
    result.devices = data.devices;
    for (const auto& row : data.benchRuns) {
        const std::string where = source + ": bench_run " + std::to_string(row.id);
        BenchRunResult r;
        r.workload = row.workload;
        r.implementation = row.implementation;
        r.boundary = row.boundary;
        r.unit = row.unit;
        r.workFlops = row.workFlops;
        r.workBytes = row.workBytes;
        runExtrasFromJson(row.optionsJson, r, where);
        // The columns are authoritative for timer and cache policy: they are what queries use.
        const auto timer = timerFromKey(row.timer);
        if (!timer)
            throw BenchFormatError(where + ": unknown timer '" + row.timer + "'");
        const auto cache = cachePolicyFromKey(row.cachePolicy);
        if (!cache)
            throw BenchFormatError(where + ": unknown cache policy '" + row.cachePolicy + "'");
        r.options.timer = *timer;
        r.options.cache = *cache;
        result.runs.push_back(std::move(r));
    }
    // Samples may be stored in any order; place each by (round, call).
    for (const auto& s : data.benchSamples) {
        auto it = std::find_if(
            data.benchRuns.begin(), data.benchRuns.end(), [&](const BenchRun& b) { return b.id == s.runId; });
        if (it == data.benchRuns.end())
            throw BenchFormatError(
                source + ": bench_sample refers to bench_run " + std::to_string(s.runId) + ", which does not exist");
        auto& r = result.runs[static_cast<size_t>(it - data.benchRuns.begin())];
        if (s.round < 0 || s.call < -1)
            throw BenchFormatError(source + ": bench_sample of run " + std::to_string(s.runId) + " has round "
                + std::to_string(s.round) + ", call " + std::to_string(s.call));
        const auto round = static_cast<size_t>(s.round);
        if (s.call == -1) {
            if (r.rounds.size() <= round)
                r.rounds.resize(round + 1, 0.0);
            r.rounds[round] = s.value;
        } else {
            if (r.calls.size() <= round)
                r.calls.resize(round + 1);
            auto& calls = r.calls[round];
            const auto call = static_cast<size_t>(s.call);
            if (calls.size() <= call)
                calls.resize(call + 1, 0.0);
            calls[call] = s.value;
        }
    }
    for (auto& r : result.runs) {
        if (!r.calls.empty() && r.calls.size() < r.rounds.size())
            r.calls.resize(r.rounds.size());
    }
    return result;
}

} // namespace ws::bench

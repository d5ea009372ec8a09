// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchresult.h"
#include "core/bench/benchworkload.h"

#include <optional>
#include <string>
#include <string_view>

namespace ws::bench {

// JSON form of a benchmark result. warpscope-bench-workloads writes it and warpscope-cli
// reads it back, so the CUDA process never touches the session file; it is also the content
// of bench_run.options_json (one run, without the columns and samples stored elsewhere).
std::string toJson(const BenchResult& result);
// Throws BenchFormatError naming `source` and the field that is wrong.
BenchResult benchResultFromJson(std::string_view text, const std::string& source);

// options_json of one run: everything except the columns of bench_run and the samples.
std::string runExtrasToJson(const BenchRunResult& run);
// Fills the fields runExtrasToJson wrote; the others of `run` are left alone.
void runExtrasFromJson(std::string_view text, BenchRunResult& run, const std::string& source);

// What warpscope-cli asks warpscope-bench-workloads to run (options already validated).
struct BenchRequest {
    WorkloadConfig workload;
    BenchOptions options;
    int device = 0;
    bool operator==(const BenchRequest&) const = default;
};
std::string requestToJson(const BenchRequest& request);
BenchRequest requestFromJson(std::string_view text, const std::string& source);

// Why warpscope-bench-workloads measured nothing. kind: "options", "correctness", "cuda",
// "no-device" or "internal".
struct BenchFailure {
    std::string kind;
    std::string message;
    bool operator==(const BenchFailure&) const = default;
};
std::string failureToJson(const BenchFailure& failure);
// nullopt when `text` is not a failure report (for example a result).
std::optional<BenchFailure> failureFromJson(std::string_view text);

} // namespace ws::bench

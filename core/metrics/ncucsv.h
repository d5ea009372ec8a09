// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws {

// One profiled kernel launch as Nsight Compute's CSV reports it.
struct NcuResult {
    int64_t id = 0; // ncu's result ID, in profiling order
    std::string kernelName;
    std::string blockSize; // as printed, e.g. "(384, 1, 1)"
    std::string gridSize;
    std::map<std::string, double> values; // metric name -> value in the unit of `units`
    std::map<std::string, std::string> units;
};

// Reads `ncu --csv` output as per-launch values: the raw page (`--page raw`: one column per
// metric, a units row, one row per launch; read with the importer's table reader,
// core/import/ncucsvtable.h, so profiler messages and program output anywhere are skipped) or
// the details page printed with `--print-metric-name name` (one row per launch and metric).
// Thousands separators in values are removed; "n/a" and empty cells are left out.
class NcuCsvReader {
public:
    // Throws std::runtime_error naming the file (and line) when the text is not ncu CSV.
    static std::vector<NcuResult> read(const std::string& path);
    static std::vector<NcuResult> parse(const std::string& text, const std::string& source);
};

} // namespace ws

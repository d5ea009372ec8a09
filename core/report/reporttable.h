// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ws {

// What a column holds; decides alignment, digit grouping and decimals when formatted.
enum class ColumnKind {
    Percent,   // double, one decimal, unit "%"
    Duration,  // int64 ns, or double ns rounded to 0.1 (Avg, Med, StdDev)
    Timestamp, // int64 ns
    Count,     // int64, digit-grouped in text tables
    Id,        // int64 process/thread/device id, never digit-grouped
    Text,
};

struct ReportColumn {
    std::string name; // "Total Time"
    std::string unit; // "ns", "%", or empty
    ColumnKind kind = ColumnKind::Text;

    // "Total Time (ns)": the header text every format uses, as `nsys stats` prints it.
    std::string header() const { return unit.empty() ? name : name + " (" + unit + ")"; }
};

// A NULL cell (monostate) is a value that does not exist, e.g. Queue Dur when the kernel
// started before its launch call returned.
using ReportCell = std::variant<std::monostate, int64_t, double, std::string>;

// A computed report as plain data, shared by the CLI formatters and the GUI's table models.
struct ReportTable {
    std::string id;    // "cuda_gpu_kern_sum"
    std::string title; // "CUDA GPU Kernel Summary"
    std::vector<ReportColumn> columns;
    std::vector<std::vector<ReportCell>> rows;

    int columnIndex(std::string_view columnName) const
    {
        for (size_t i = 0; i < columns.size(); ++i) {
            if (columns[i].name == columnName)
                return static_cast<int>(i);
        }
        return -1;
    }
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// The table of `ncu --csv --page raw` output: a header row (identification columns "ID" ...
// "CC", then one column per metric), a units row (empty for the identification columns),
// then one row per profiled kernel. The importer (ncuimporter) and the metrics comparison
// (core/metrics/ncucsv.h) both read ncu CSV through it. A header is a record whose first field
// is "ID" and that has a "Kernel Name" column (ncu's own, or a full-precision export of its
// report with fewer identification columns).
//
// Real output is not clean CSV: without --log-file, ncu's own "==PROF==" / "==WARNING==" lines
// and whatever the profiled program prints share stdout with the table. The reader keeps only
// lines that parse as CSV with the header's column count and an integer ID, so such lines are
// skipped (and counted) wherever they appear. Cell text is kept verbatim; numbers with
// thousands separators are the caller's business (parseNumber(..., true)).
struct NcuCsvTable {
    std::vector<std::string> columns;
    std::vector<std::string> units; // one per column; all empty when the output had no units row
    std::vector<std::vector<std::string>> rows;
    size_t skippedLines = 0; // non-table lines (profiler messages, program output)

    // Index of a column by exact name; nullopt when absent.
    std::optional<size_t> column(std::string_view name) const;
};

// Reads the table out of ncu's output. Throws std::invalid_argument with a short reason when no
// raw-page header is found (callers add the file name).
NcuCsvTable readNcuCsvTable(std::string_view text);

// One CSV record (RFC 4180 quoting, "" inside quotes); nullopt for a malformed line.
std::optional<std::vector<std::string>> splitNcuCsvLine(std::string_view line);

} // namespace ws

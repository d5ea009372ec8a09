// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparison.h"
#include "core/report/reporttable.h"

#include <ostream>
#include <string>

namespace ws::compare {

// The tables of a comparison, shared by the CLI formats and the GUI's exports. Times in ns.
ReportTable verdictTable(const Comparison& c);
ReportTable kernelTable(const Comparison& c); // matched, then only-in-A, then only-in-B
ReportTable benchTable(const Comparison& c);
ReportTable hypothesisTable(const Comparison& c);

enum class CompareFormat { Text, Csv, Json };

// Text: the verdict first (what CI logs show), then latency, benchmark runs, kernels (by
// absolute difference, largest first), unmatched kernels, hypotheses and notes. CSV: the tables
// above separated by blank lines. JSON: one object with every figure (NaN as null).
void writeComparison(std::ostream& out, const Comparison& c, CompareFormat format);

} // namespace ws::compare

// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/reporttable.h"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace ws {

// How `warpscope-cli stats` prints a report.
//   Table: aligned columns like `nsys stats` (numbers right-aligned with digit grouping,
//          "3,481,709.0"; ids ungrouped; NULL cells blank).
//   Csv:   a header row with units ("Total Time (ns)"), then raw values without grouping;
//          NULL is an empty field.
//   Json:  an array of objects keyed by the same headers; NULL is null.
enum class ReportFormat { Table, Csv, Json };

std::optional<ReportFormat> parseReportFormat(std::string_view name);

// One cell as text: integers plain, decimals with one digit, `groupDigits` adds thousands
// separators. NULL gives the empty string.
std::string formatCell(const ReportCell& cell, bool groupDigits = false);

void writeReportTable(std::ostream& out, const ReportTable& report);
void writeReportCsv(std::ostream& out, const ReportTable& report);
void writeReportJson(std::ostream& out, const ReportTable& report);
void writeReport(std::ostream& out, const ReportTable& report, ReportFormat format);

} // namespace ws

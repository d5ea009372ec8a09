// SPDX-License-Identifier: MIT
#include "core/report/reportformat.h"

#include "core/report/textescape.h"

#include <algorithm>
#include <cstdio>

namespace ws {

namespace {

bool isNumeric(ColumnKind kind)
{
    return kind != ColumnKind::Text;
}

bool groupsDigits(ColumnKind kind)
{
    return kind == ColumnKind::Duration || kind == ColumnKind::Timestamp || kind == ColumnKind::Count;
}

std::string groupThousands(const std::string& plain)
{
    // Group the integer part only: "-1234567.5" -> "-1,234,567.5".
    const size_t digitsBegin = (!plain.empty() && plain[0] == '-') ? 1 : 0;
    const size_t dot = plain.find('.');
    const size_t digitsEnd = dot == std::string::npos ? plain.size() : dot;
    std::string out = plain.substr(0, digitsBegin);
    for (size_t i = digitsBegin; i < digitsEnd; ++i) {
        if (i > digitsBegin && (digitsEnd - i) % 3 == 0)
            out += ',';
        out += plain[i];
    }
    out += plain.substr(digitsEnd);
    return out;
}

// Display width in characters: UTF-8 continuation bytes do not take a column.
size_t displayWidth(const std::string& s)
{
    return static_cast<size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void pad(std::string& line, size_t n)
{
    line.append(n, ' ');
}

} // namespace

std::optional<ReportFormat> parseReportFormat(std::string_view name)
{
    if (name == "table")
        return ReportFormat::Table;
    if (name == "csv")
        return ReportFormat::Csv;
    if (name == "json")
        return ReportFormat::Json;
    return std::nullopt;
}

std::string formatCell(const ReportCell& cell, bool groupDigits)
{
    std::string plain;
    if (const auto* i = std::get_if<int64_t>(&cell)) {
        plain = std::to_string(*i);
    } else if (const auto* d = std::get_if<double>(&cell)) {
        char buf[64];
        // Values are rounded to 0.1 already; "%.1f" only prints them (and never "-0.0").
        std::snprintf(buf, sizeof buf, "%.1f", *d == 0.0 ? 0.0 : *d);
        plain = buf;
    } else if (const auto* s = std::get_if<std::string>(&cell)) {
        return *s;
    } else {
        return {};
    }
    return groupDigits ? groupThousands(plain) : plain;
}

void writeReportTable(std::ostream& out, const ReportTable& report)
{
    const size_t n = report.columns.size();
    std::vector<std::string> headers(n);
    std::vector<size_t> widths(n);
    for (size_t c = 0; c < n; ++c) {
        headers[c] = report.columns[c].header();
        widths[c] = displayWidth(headers[c]);
    }
    std::vector<std::vector<std::string>> text;
    text.reserve(report.rows.size());
    for (const auto& row : report.rows) {
        std::vector<std::string> cells(n);
        for (size_t c = 0; c < n && c < row.size(); ++c) {
            cells[c] = formatCell(row[c], groupsDigits(report.columns[c].kind));
            widths[c] = std::max(widths[c], displayWidth(cells[c]));
        }
        text.push_back(std::move(cells));
    }
    const auto emit = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (size_t c = 0; c < n; ++c) {
            line += c == 0 ? " " : "  ";
            const size_t gap = widths[c] - displayWidth(cells[c]);
            if (isNumeric(report.columns[c].kind)) {
                pad(line, gap);
                line += cells[c];
            } else {
                line += cells[c];
                pad(line, gap);
            }
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << '\n';
    };
    emit(headers);
    std::vector<std::string> rules(n);
    for (size_t c = 0; c < n; ++c)
        rules[c] = std::string(widths[c], '-');
    emit(rules);
    for (const auto& cells : text)
        emit(cells);
}

void writeReportCsv(std::ostream& out, const ReportTable& report)
{
    std::string line;
    for (size_t c = 0; c < report.columns.size(); ++c) {
        if (c)
            line += ',';
        appendCsvField(line, report.columns[c].header());
    }
    out << line << '\n';
    for (const auto& row : report.rows) {
        line.clear();
        for (size_t c = 0; c < row.size(); ++c) {
            if (c)
                line += ',';
            appendCsvField(line, formatCell(row[c]));
        }
        out << line << '\n';
    }
}

void writeReportJson(std::ostream& out, const ReportTable& report)
{
    std::vector<std::string> keys;
    for (const auto& column : report.columns) {
        std::string key;
        appendJsonString(key, column.header());
        keys.push_back(std::move(key));
    }
    out << '[';
    std::string line;
    for (size_t r = 0; r < report.rows.size(); ++r) {
        const auto& row = report.rows[r];
        line = r ? ",\n  {" : "\n  {";
        for (size_t c = 0; c < row.size() && c < keys.size(); ++c) {
            if (c)
                line += ", ";
            line += keys[c];
            line += ": ";
            if (std::holds_alternative<std::monostate>(row[c]))
                line += "null";
            else if (const auto* s = std::get_if<std::string>(&row[c]))
                appendJsonString(line, *s);
            else
                line += formatCell(row[c]);
        }
        line += '}';
        out << line;
    }
    out << (report.rows.empty() ? "]\n" : "\n]\n");
}

void writeReport(std::ostream& out, const ReportTable& report, ReportFormat format)
{
    switch (format) {
    case ReportFormat::Table:
        writeReportTable(out, report);
        return;
    case ReportFormat::Csv:
        writeReportCsv(out, report);
        return;
    case ReportFormat::Json:
        writeReportJson(out, report);
        return;
    }
}

} // namespace ws

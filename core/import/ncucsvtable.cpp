// SPDX-License-Identifier: MIT
#include "core/import/ncucsvtable.h"

#include "core/import/numbertext.h"
#include "core/util/textlines.h"

#include <algorithm>
#include <stdexcept>

namespace ws {

std::optional<size_t> NcuCsvTable::column(std::string_view name) const
{
    for (size_t i = 0; i < columns.size(); ++i) {
        if (columns[i] == name)
            return i;
    }
    return std::nullopt;
}

std::optional<std::vector<std::string>> splitNcuCsvLine(std::string_view line)
{
    std::vector<std::string> fields;
    std::string field;
    size_t i = 0;
    const size_t n = line.size();
    while (true) {
        field.clear();
        if (i < n && line[i] == '"') {
            ++i;
            bool closed = false;
            while (i < n) {
                const char c = line[i++];
                if (c == '"') {
                    if (i < n && line[i] == '"') {
                        field.push_back('"');
                        ++i;
                    } else {
                        closed = true;
                        break;
                    }
                } else {
                    field.push_back(c);
                }
            }
            if (!closed)
                return std::nullopt;
            if (i < n && line[i] != ',')
                return std::nullopt; // text after a closing quote: not CSV
        } else {
            while (i < n && line[i] != ',') {
                if (line[i] == '"')
                    return std::nullopt; // a quote inside an unquoted field
                field.push_back(line[i++]);
            }
        }
        fields.push_back(field);
        if (i >= n)
            break;
        ++i; // the comma
        if (i == n) {
            fields.emplace_back(); // trailing empty field
            break;
        }
    }
    return fields;
}

namespace {

bool isHeader(const std::vector<std::string>& fields)
{
    return fields.size() >= 2 && fields[0] == "ID"
        && std::find(fields.begin(), fields.end(), "Kernel Name") != fields.end();
}

// The CSV record in a line. A program that prints without a final newline glues its text in
// front of ncu's next line, so when the line as a whole is not the record we look for, the
// text from each of the first few quotes is tried as well. `columns` = 0 while looking for
// the header.
std::optional<std::vector<std::string>> recordIn(std::string_view line, size_t columns)
{
    size_t from = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
        from = line.find('"', from);
        if (from == std::string_view::npos)
            return std::nullopt;
        auto fields = splitNcuCsvLine(line.substr(from));
        if (fields) {
            if (columns == 0 ? isHeader(*fields) : fields->size() == columns)
                return fields;
            if (from == 0 && columns == 0)
                return fields; // a clean CSV line that is not the header: let the caller count it
        }
        ++from;
    }
    return std::nullopt;
}

} // namespace

NcuCsvTable readNcuCsvTable(std::string_view text)
{
    NcuCsvTable table;
    bool haveHeader = false;
    bool unitsDone = false;
    TextLines lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (line.empty())
            continue;
        auto fields = recordIn(line, haveHeader ? table.columns.size() : 0);
        if (!fields) {
            ++table.skippedLines;
            continue;
        }
        if (!haveHeader) {
            if (isHeader(*fields)) {
                for (const auto& f : *fields) {
                    if (f == "Metric Name" || f == "Metric Value")
                        throw std::invalid_argument(
                            "ncu CSV of the details page; this importer reads the raw page: re-run with "
                            "--csv --page raw --print-units base");
                }
                table.columns = std::move(*fields);
                table.units.assign(table.columns.size(), std::string());
                haveHeader = true;
            } else {
                ++table.skippedLines;
            }
            continue;
        }
        if (fields->size() != table.columns.size()) {
            ++table.skippedLines;
            continue;
        }
        if ((*fields)[0].empty()) {
            if (!unitsDone && table.rows.empty())
                table.units = std::move(*fields);
            else
                ++table.skippedLines;
            unitsDone = true;
            continue;
        }
        if (*fields == table.columns) {
            continue; // the header repeated (one table per process)
        }
        if (!parseInteger((*fields)[0])) {
            ++table.skippedLines;
            continue;
        }
        unitsDone = true;
        table.rows.push_back(std::move(*fields));
    }
    if (!haveHeader)
        throw std::invalid_argument(
            "no ncu raw-page CSV header (\"ID\",...,\"Kernel Name\",...) found: expected the output of "
            "ncu --csv --page raw --print-units base");
    return table;
}

} // namespace ws

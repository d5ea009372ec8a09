// SPDX-License-Identifier: MIT
#include "core/metrics/ncucsv.h"

#include "core/import/ncucsvtable.h"
#include "core/import/numbertext.h"
#include "core/util/textlines.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ws {

namespace {

// A metric value: ncu prints big numbers with thousands separators and "n/a" where a metric
// does not apply (left out, as are empty cells).
std::optional<double> valueOf(std::string_view cell)
{
    while (!cell.empty() && cell.front() == ' ')
        cell.remove_prefix(1);
    while (!cell.empty() && cell.back() == ' ')
        cell.remove_suffix(1);
    if (cell.empty() || cell == "n/a")
        return std::nullopt;
    return parseNumber(cell, true);
}

using Records = std::vector<std::pair<int, std::vector<std::string>>>; // line number, fields

// When `text` is the details page: its header and the CSV records after it, with their line
// numbers (ncu's own "==PROF==" lines and program output are not records). nullopt for anything
// else, found at the first header, so a big raw page is not split twice.
std::optional<Records> detailsRecords(std::string_view text)
{
    Records out;
    TextLines lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (line.empty() || line.rfind("==", 0) == 0)
            continue;
        auto fields = splitNcuCsvLine(line);
        if (!fields)
            continue;
        if (out.empty()) {
            if (fields->empty() || (*fields)[0] != "ID")
                continue;
            const bool details = std::find(fields->begin(), fields->end(), "Metric Name") != fields->end()
                && std::find(fields->begin(), fields->end(), "Metric Value") != fields->end();
            if (!details)
                return std::nullopt;
        }
        out.emplace_back(lines.number(), std::move(*fields));
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

// The details page (`--page details --print-metric-name name`): one row per launch and metric,
// results told apart by ID.
std::vector<NcuResult> parseDetails(const Records& recs, const std::string& source)
{
    const std::vector<std::string>& header = recs.front().second;
    auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? header.size() : static_cast<size_t>(it - header.begin());
    };
    const size_t cId = column("ID"), cKernel = column("Kernel Name"), cBlock = column("Block Size"),
                 cGrid = column("Grid Size"), cMetric = column("Metric Name"), cUnit = column("Metric Unit"),
                 cValue = column("Metric Value");
    auto cell = [](const std::vector<std::string>& f, size_t c) { return c < f.size() ? f[c] : std::string(); };
    std::vector<NcuResult> results;
    std::map<int64_t, size_t> index;
    for (size_t i = 1; i < recs.size(); ++i) {
        const auto& [lineNo, f] = recs[i];
        if (f.size() < header.size())
            throw std::runtime_error(source + ":" + std::to_string(lineNo) + ": expected "
                + std::to_string(header.size()) + " fields, found " + std::to_string(f.size()));
        const int64_t id = parseInteger(cell(f, cId)).value_or(0);
        auto it = index.find(id);
        if (it == index.end()) {
            NcuResult r;
            r.id = id;
            r.kernelName = cell(f, cKernel);
            r.blockSize = cell(f, cBlock);
            r.gridSize = cell(f, cGrid);
            it = index.emplace(id, results.size()).first;
            results.push_back(std::move(r));
        }
        auto& r = results[it->second];
        const std::string name = cell(f, cMetric);
        if (const auto v = valueOf(cell(f, cValue))) {
            r.values[name] = *v;
            r.units[name] = cell(f, cUnit);
        }
    }
    return results;
}

} // namespace

std::vector<NcuResult> NcuCsvReader::parse(const std::string& text, const std::string& source)
{
    // The details page has a long form the raw-page table reader refuses.
    if (auto recs = detailsRecords(text))
        return parseDetails(*recs, source);

    // The raw page: the importer's table reader (program output anywhere, units row, repeated
    // headers), one result per row, one value per metric column.
    NcuCsvTable table;
    try {
        table = readNcuCsvTable(text);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(source + ": " + e.what());
    }
    if (table.rows.empty())
        throw std::runtime_error(source + ": the ncu CSV has a header but no result rows");
    auto at = [&](const char* name) { return table.column(name); };
    // Metric columns follow the identification columns, in whichever subset ncu printed.
    size_t firstMetric = 0;
    for (const char* id : {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
             "Block Size", "Grid Size", "Device", "CC"}) {
        if (const auto c = at(id))
            firstMetric = std::max(firstMetric, *c + 1);
    }
    auto cell = [](const std::vector<std::string>& row, std::optional<size_t> c) {
        return c && *c < row.size() ? row[*c] : std::string();
    };
    std::vector<NcuResult> results;
    results.reserve(table.rows.size());
    for (const auto& row : table.rows) {
        NcuResult r;
        r.id = parseInteger(cell(row, at("ID"))).value_or(0);
        r.kernelName = cell(row, at("Kernel Name"));
        r.blockSize = cell(row, at("Block Size"));
        r.gridSize = cell(row, at("Grid Size"));
        for (size_t c = firstMetric; c < table.columns.size(); ++c) {
            if (const auto v = valueOf(row[c])) {
                r.values[table.columns[c]] = *v;
                r.units[table.columns[c]] = table.units[c];
            }
        }
        results.push_back(std::move(r));
    }
    return results;
}

std::vector<NcuResult> NcuCsvReader::read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open ncu CSV");
    std::ostringstream buf;
    buf << in.rdbuf();
    return parse(buf.str(), path);
}

} // namespace ws

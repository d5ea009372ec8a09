// SPDX-License-Identifier: MIT
#include "metrics/ncucsv.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ws {

namespace {

// A CSV record may span lines when a quoted field holds a newline (ncu does not do this, but a
// kernel name could); join lines until the quotes balance.
bool nextRecord(std::istream& in, std::string& record, int& lineNo)
{
    record.clear();
    std::string line;
    bool open = false;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!record.empty())
            record += '\n';
        record += line;
        for (char c : line) {
            if (c == '"')
                open = !open;
        }
        if (!open)
            return true;
    }
    return !record.empty();
}

std::optional<double> parseValue(std::string s)
{
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    while (!s.empty() && s.front() == ' ')
        s.erase(s.begin());
    if (s.empty() || s == "n/a")
        return std::nullopt;
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

int64_t parseId(const std::string& s)
{
    int64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

} // namespace

std::vector<std::string> NcuCsvReader::splitRecord(const std::string& line)
{
    std::vector<std::string> out;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < line.size() && line[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.push_back(std::move(field));
            field.clear();
        } else {
            field += c;
        }
    }
    out.push_back(std::move(field));
    return out;
}

std::vector<NcuResult> NcuCsvReader::parse(const std::string& text, const std::string& source)
{
    std::istringstream in(text);
    std::string record;
    int lineNo = 0;
    std::vector<std::string> header;
    while (nextRecord(in, record, lineNo)) {
        if (record.rfind("\"ID\"", 0) == 0 || record.rfind("ID,", 0) == 0) {
            header = splitRecord(record);
            break;
        }
    }
    if (header.empty())
        throw std::runtime_error(source + ": no ncu CSV header (a line starting with \"ID\") found");
    auto column = [&](const char* name) -> int {
        auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : static_cast<int>(it - header.begin());
    };
    const int cId = column("ID");
    const int cKernel = column("Kernel Name");
    const int cBlock = column("Block Size");
    const int cGrid = column("Grid Size");
    const int cMetric = column("Metric Name");
    const int cUnit = column("Metric Unit");
    const int cValue = column("Metric Value");
    if (cKernel < 0)
        throw std::runtime_error(source + ":" + std::to_string(lineNo) + ": ncu CSV header has no \"Kernel Name\"");

    std::vector<NcuResult> results;
    auto cell = [](const std::vector<std::string>& f, int c) -> std::string {
        return c >= 0 && c < static_cast<int>(f.size()) ? f[static_cast<size_t>(c)] : std::string();
    };

    if (cMetric >= 0 && cValue >= 0) {
        // Long (details page) form: results are identified by ID.
        std::map<int64_t, size_t> index;
        while (nextRecord(in, record, lineNo)) {
            if (record.empty() || record.rfind("==", 0) == 0)
                continue;
            const auto f = splitRecord(record);
            if (f.size() < header.size())
                throw std::runtime_error(source + ":" + std::to_string(lineNo) + ": expected "
                    + std::to_string(header.size()) + " fields, found " + std::to_string(f.size()));
            const int64_t id = parseId(cell(f, cId));
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
            if (const auto v = parseValue(cell(f, cValue))) {
                r.values[name] = *v;
                r.units[name] = cell(f, cUnit);
            }
        }
        return results;
    }

    // Wide (raw page) form: the record after the header holds the units.
    const int firstMetric = std::max({cId, cKernel, cBlock, cGrid, column("CC"), column("Device"), column("Stream"),
                                column("Context"), column("Host Name"), column("Process Name"), column("Process ID")})
        + 1;
    std::vector<std::string> units;
    if (nextRecord(in, record, lineNo))
        units = splitRecord(record);
    while (nextRecord(in, record, lineNo)) {
        if (record.empty() || record.rfind("==", 0) == 0)
            continue;
        const auto f = splitRecord(record);
        if (f.size() != header.size())
            throw std::runtime_error(source + ":" + std::to_string(lineNo) + ": expected "
                + std::to_string(header.size()) + " fields, found " + std::to_string(f.size()));
        NcuResult r;
        r.id = parseId(cell(f, cId));
        r.kernelName = cell(f, cKernel);
        r.blockSize = cell(f, cBlock);
        r.gridSize = cell(f, cGrid);
        for (size_t c = static_cast<size_t>(firstMetric); c < header.size(); ++c) {
            if (const auto v = parseValue(f[c])) {
                r.values[header[c]] = *v;
                r.units[header[c]] = c < units.size() ? units[c] : std::string();
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

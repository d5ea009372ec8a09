// SPDX-License-Identifier: MIT
#include "core/metrics/knowndifferences.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ws {

namespace {

std::vector<std::string_view> splitTabs(std::string_view line)
{
    std::vector<std::string_view> out;
    size_t from = 0;
    while (true) {
        const size_t tab = line.find('\t', from);
        out.push_back(line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from));
        if (tab == std::string_view::npos)
            return out;
        from = tab + 1;
    }
}

template <typename T> bool number(std::string_view text, T& out)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

std::string figure(double percent)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, percent < 10 ? "%.1f %%" : "%.0f %%", percent);
    return buffer;
}

auto key(const KnownDifference& d)
{
    return std::tie(d.cacheControl, d.metric);
}

} // namespace

KnownDifferences KnownDifferences::parse(std::string_view text, const std::string& source)
{
    KnownDifferences out;
    size_t lineNo = 0;
    size_t from = 0;
    while (from < text.size()) {
        size_t end = text.find('\n', from);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(from, end - from);
        from = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty() || line.front() == '#')
            continue;
        const auto fail = [&](const std::string& what) {
            std::string message = source;
            message += ':';
            message += std::to_string(lineNo);
            message += ": ";
            message += what;
            throw std::runtime_error(message);
        };
        const auto f = splitTabs(line);
        if (f.size() != 7)
            fail("expected 7 tab-separated fields (cache, metric, kernels, of, median %, max %, cause), found "
                + std::to_string(f.size()));
        KnownDifference d;
        d.cacheControl = std::string(f[0]);
        d.metric = std::string(f[1]);
        if (d.cacheControl != "all" && d.cacheControl != "none")
            fail("cache control '" + d.cacheControl + "' is neither all nor none");
        if (d.metric.empty())
            fail("empty metric name");
        if (!number(f[2], d.kernels) || !number(f[3], d.of) || d.kernels < 1 || d.of < d.kernels)
            fail("kernel counts '" + std::string(f[2]) + "' of '" + std::string(f[3]) + "' are not 1 <= kernels <= of");
        if (!number(f[4], d.medianPercent) || !number(f[5], d.maxPercent) || d.medianPercent < 0
            || d.maxPercent < d.medianPercent)
            fail("percentages '" + std::string(f[4]) + "', '" + std::string(f[5]) + "' are not 0 <= median <= max");
        d.cause = std::string(f[6]);
        if (d.cause.empty())
            fail("empty cause (write 'not established')");
        out.m_rows.push_back(std::move(d));
    }
    std::sort(out.m_rows.begin(), out.m_rows.end(), [](const auto& a, const auto& b) { return key(a) < key(b); });
    const auto dup = std::adjacent_find(
        out.m_rows.begin(), out.m_rows.end(), [](const auto& a, const auto& b) { return key(a) == key(b); });
    if (dup != out.m_rows.end())
        throw std::runtime_error(
            source + ": " + dup->metric + " is listed twice for cache control " + dup->cacheControl);
    return out;
}

KnownDifferences KnownDifferences::readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

std::string KnownDifferences::fileIn(const std::string& sectionsDirectory)
{
    return sectionsDirectory + "/known-differences.tsv";
}

std::optional<KnownDifferences> KnownDifferences::readBeside(const std::string& sectionsDirectory, std::string& error)
{
    try {
        return readFile(fileIn(sectionsDirectory));
    } catch (const std::exception& e) {
        error = e.what();
        return std::nullopt;
    }
}

const KnownDifference* KnownDifferences::find(std::string_view cacheControl, std::string_view metric) const
{
    const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), std::pair(cacheControl, metric),
        [](const KnownDifference& d, const std::pair<std::string_view, std::string_view>& k) {
            return std::pair<std::string_view, std::string_view>(d.cacheControl, d.metric) < k;
        });
    if (it == m_rows.end() || it->cacheControl != cacheControl || it->metric != metric)
        return nullptr;
    return &*it;
}

std::string KnownDifferences::note(const KnownDifference& d)
{
    std::string out = "Differs from ncu (--cache-control " + d.cacheControl + "): on " + std::to_string(d.kernels)
        + " of " + std::to_string(d.of) + " fidelity-suite kernels (H200), by ";
    out += d.kernels == 1 ? figure(d.maxPercent) : figure(d.medianPercent) + " (median), up to " + figure(d.maxPercent);
    out += ". Cause: " + d.cause + ".";
    return out;
}

} // namespace ws

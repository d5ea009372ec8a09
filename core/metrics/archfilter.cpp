// SPDX-License-Identifier: MIT
#include "core/metrics/archfilter.h"

#include <charconv>
#include <climits>
#include <stdexcept>

namespace ws {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

int parseCc(std::string_view s, std::string_view whole)
{
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 10 || v > 999)
        throw std::invalid_argument("bad compute capability '" + std::string(s) + "' in arch filter '"
            + std::string(whole) + "' (expected major*10+minor such as 90)");
    return v;
}

} // namespace

ArchFilter ArchFilter::parse(std::string_view spec)
{
    ArchFilter f;
    spec = trim(spec);
    if (spec.empty() || spec == "*")
        return f;
    size_t pos = 0;
    while (pos <= spec.size()) {
        const size_t comma = spec.find(',', pos);
        const std::string_view item = trim(spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos));
        if (item.empty())
            throw std::invalid_argument("empty range in arch filter '" + std::string(spec) + "'");
        const size_t dash = item.find('-');
        Range r {};
        if (dash == std::string_view::npos) {
            r.lo = r.hi = parseCc(item, spec);
        } else {
            const auto lo = trim(item.substr(0, dash));
            const auto hi = trim(item.substr(dash + 1));
            if (lo.empty() && hi.empty())
                throw std::invalid_argument("range without bounds in arch filter '" + std::string(spec) + "'");
            r.lo = lo.empty() ? 0 : parseCc(lo, spec);
            r.hi = hi.empty() ? INT_MAX : parseCc(hi, spec);
            if (r.lo > r.hi)
                throw std::invalid_argument("descending range '" + std::string(item) + "' in arch filter");
        }
        f.m_ranges.push_back(r);
        if (comma == std::string_view::npos)
            break;
        pos = comma + 1;
    }
    return f;
}

bool ArchFilter::matches(int ccMajor, int ccMinor) const
{
    if (m_ranges.empty())
        return true;
    const int cc = ccMajor * 10 + ccMinor;
    for (const auto& r : m_ranges) {
        if (cc >= r.lo && cc <= r.hi)
            return true;
    }
    return false;
}

std::string ArchFilter::toString() const
{
    if (m_ranges.empty())
        return "*";
    std::string out;
    for (const auto& r : m_ranges) {
        if (!out.empty())
            out += ',';
        if (r.lo == r.hi) {
            out += std::to_string(r.lo);
            continue;
        }
        if (r.lo > 0)
            out += std::to_string(r.lo);
        out += '-';
        if (r.hi != INT_MAX)
            out += std::to_string(r.hi);
    }
    return out;
}

} // namespace ws

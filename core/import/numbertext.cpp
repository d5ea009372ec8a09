// SPDX-License-Identifier: MIT
#include "core/import/numbertext.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace ws {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::optional<int64_t> microsecondsToNs(std::string_view text)
{
    text = trim(text);
    if (text.empty())
        return std::nullopt;
    const bool negative = text.front() == '-';
    std::string_view s = text;
    if (negative || s.front() == '+')
        s.remove_prefix(1);
    size_t i = 0;
    // Accumulate in unsigned 128-bit-free arithmetic guarded against overflow.
    constexpr uint64_t kLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    uint64_t micros = 0;
    size_t intDigits = 0;
    for (; i < s.size() && isDigit(s[i]); ++i, ++intDigits) {
        const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
        if (micros > (kLimit - digit) / 10)
            return std::nullopt;
        micros = micros * 10 + digit;
    }
    uint64_t fraction = 0; // nanoseconds from the first three fraction digits
    int fractionDigits = 0;
    bool roundUp = false;
    size_t fracCount = 0;
    if (i < s.size() && s[i] == '.') {
        ++i;
        for (; i < s.size() && isDigit(s[i]); ++i, ++fracCount) {
            if (fractionDigits < 3) {
                fraction = fraction * 10 + static_cast<uint64_t>(s[i] - '0');
                ++fractionDigits;
            } else if (fractionDigits == 3) {
                roundUp = s[i] >= '5';
                fractionDigits = 4; // only the first dropped digit decides
            }
        }
    }
    if (intDigits == 0 && fracCount == 0)
        return std::nullopt;
    if (i != s.size()) {
        // Exponent or something odd: let the library parse it (precision is moot there).
        if (s[i] != 'e' && s[i] != 'E')
            return std::nullopt;
        double value = 0;
        const auto r = std::from_chars(text.data() + (text.front() == '+' ? 1 : 0), text.data() + text.size(), value);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(value))
            return std::nullopt;
        const double ns = std::round(value * 1000.0);
        if (std::fabs(ns) >= 9.2e18)
            return std::nullopt;
        return static_cast<int64_t>(ns);
    }
    for (int k = std::min(fractionDigits, 3); k < 3; ++k)
        fraction *= 10;
    if (micros > (kLimit - 999) / 1000)
        return std::nullopt;
    uint64_t ns = micros * 1000 + fraction + (roundUp ? 1 : 0);
    const int64_t value = static_cast<int64_t>(ns);
    return negative ? -value : value;
}

std::optional<int64_t> parseInteger(std::string_view text)
{
    text = trim(text);
    if (text.empty())
        return std::nullopt;
    if (text.front() == '+')
        text.remove_prefix(1);
    int64_t value = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (r.ec != std::errc())
        return std::nullopt;
    std::string_view rest(r.ptr, static_cast<size_t>(text.data() + text.size() - r.ptr));
    if (rest.empty())
        return value;
    if (rest.front() != '.')
        return std::nullopt;
    rest.remove_prefix(1);
    for (char c : rest) {
        if (c != '0')
            return std::nullopt;
    }
    return value;
}

std::optional<double> parseNumber(std::string_view text, bool thousandsSeparators)
{
    text = trim(text);
    if (text.empty())
        return std::nullopt;
    std::string cleaned;
    if (thousandsSeparators && text.find(',') != std::string_view::npos) {
        // Accept "1,234" / "-12,345,678.5" but not "1,23" or "1,,234": a comma must be followed
        // by exactly three digits and sit in the integer part.
        size_t start = (text.front() == '-' || text.front() == '+') ? 1 : 0;
        size_t end = text.find_first_of(".eE", start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view integer = text.substr(start, end - start);
        size_t firstGroup = integer.find(',');
        if (firstGroup == 0 || firstGroup > 3)
            return std::nullopt;
        for (size_t pos = firstGroup; pos < integer.size(); pos += 4) {
            if (integer[pos] != ',' || pos + 4 > integer.size())
                return std::nullopt;
            for (size_t k = 1; k <= 3; ++k) {
                if (!isDigit(integer[pos + k]))
                    return std::nullopt;
            }
        }
        cleaned.reserve(text.size());
        for (char c : text) {
            if (c != ',')
                cleaned.push_back(c);
        }
        text = cleaned;
    }
    if (text.front() == '+')
        text.remove_prefix(1);
    double value = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

} // namespace ws

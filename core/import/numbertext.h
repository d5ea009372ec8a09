// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ws {

// Number parsing for text formats, exact where a double would not be.

// A decimal number of microseconds ("5085649816964.901", "-3", "1.5e3") to integer
// nanoseconds. Plain decimals are converted digit by digit, so 16-digit microsecond stamps keep
// their last nanosecond (a double would not); digits beyond the nanosecond are rounded half
// away from zero. nullopt when the text is not a number or the result does not fit in int64.
std::optional<int64_t> microsecondsToNs(std::string_view text);

// An integer ("42", "-1"); a decimal with a zero fraction ("42.0") is accepted.
std::optional<int64_t> parseInteger(std::string_view text);

// A floating-point number. With `thousandsSeparators`, "1,234,567.89" is accepted (commas only
// between groups of exactly three digits in the integer part), as ncu prints big values.
std::optional<double> parseNumber(std::string_view text, bool thousandsSeparators = false);

} // namespace ws

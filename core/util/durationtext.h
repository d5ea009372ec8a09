// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace ws {

// Durations as people type them: "250", "250ns", "1.5 us", "1.5µs", "2ms", "0.5s" (no unit:
// nanoseconds), rounded to the nearest nanosecond; a leading minus is allowed. nullopt for
// anything else. The CLI's --range and the app's --view/--range read time this way.
std::optional<int64_t> parseDuration(std::string_view text);

// "FROM:TO", two durations (e.g. "1.5ms:2ms"); nullopt when either part is not a duration or
// TO is not after FROM (an empty span would mean "everything" to a time window).
std::optional<std::pair<int64_t, int64_t>> parseDurationSpan(std::string_view text);

} // namespace ws

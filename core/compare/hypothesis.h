// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ws::compare {

// A prediction written before looking at B's numbers: "this change moves METRIC in DIRECTION
// (by about SIZE %)". Stored with session B (meta key "compare.hypotheses", JSON) so the
// prediction travels with the run it is about. Subjects:
//   latency                 the comparison's latency (bench medians or per-iteration GPU time)
//   time@KERNEL             median duration of the kernel whose name contains KERNEL
//   METRIC[@KERNEL]         an ncu metric of that kernel, or of every profiled launch without
//                           @KERNEL (summed for amounts, averaged over time for rates and %)
struct Hypothesis {
    enum class Direction { Up, Down, Same };
    std::string subject; // "latency", "time" or an ncu metric name
    std::string kernel;  // substring of a kernel name; empty for the whole session
    Direction direction = Direction::Down;
    std::optional<double> sizePct; // predicted magnitude in percent (positive)
    bool operator==(const Hypothesis&) const = default;
};

const char* directionName(Hypothesis::Direction d); // "up", "down", "same"

// "SUBJECT[@KERNEL]:DIRECTION[:SIZE[%]]", e.g. "latency:down:10", "dram__bytes.sum@relu:down".
// Throws std::invalid_argument naming what is wrong.
Hypothesis parseHypothesis(const std::string& text);
std::string formatHypothesis(const Hypothesis& h);

inline constexpr const char* kHypothesesMetaKey = "compare.hypotheses";
std::string hypothesesToJson(const std::vector<Hypothesis>& list);
// Throws std::invalid_argument for malformed JSON (message says where).
std::vector<Hypothesis> hypothesesFromJson(const std::string& json);

// Stores the hypotheses in a session file's meta table without touching any other table: the
// file is copied beside itself, the copy's meta row replaced, and the copy renamed over the
// original, so a viewer that has the old file open keeps reading consistent data. Throws
// SessionError naming the file (not a session, not writable...).
void saveHypotheses(const std::string& sessionPath, const std::vector<Hypothesis>& list);

} // namespace ws::compare

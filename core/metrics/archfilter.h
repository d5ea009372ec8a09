// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ws {

// Which compute capabilities a metric applies to, as ranges of major*10+minor ("75-86,89-100",
// "90", "90-", "-80"). Empty = every architecture. Metric names differ between architectures
// (e.g. the _v2 tensor metrics of sm_89), so section files list alternatives per range.
class ArchFilter {
public:
    ArchFilter() = default;
    // Throws std::invalid_argument with the reason when `spec` is malformed.
    static ArchFilter parse(std::string_view spec);

    bool matches(int ccMajor, int ccMinor) const;
    bool matchesAll() const { return m_ranges.empty(); }
    // The spec in canonical form ("*" for every architecture); parse(toString()) round-trips.
    std::string toString() const;

    bool operator==(const ArchFilter&) const = default;

private:
    struct Range {
        int lo;
        int hi;
        bool operator==(const Range&) const = default;
    };
    std::vector<Range> m_ranges;
};

} // namespace ws

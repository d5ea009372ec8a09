// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/archfilter.h"
#include "core/metrics/metricexpression.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// One line of a section: a metric to collect or compute, with how to show it.
struct SectionItem {
    enum class Kind {
        Counter,   // collected by the range profiler under its ncu name
        Launch,    // computed from the launch configuration and the occupancy calculator
        Breakdown, // expands on the target's chip to the counters of a throughput metric
        Derived,   // evaluated from other metrics after collection
    };
    Kind kind = Kind::Counter;
    std::string name;
    std::string label;
    std::string unit; // empty: the unit CUPTI reports
    ArchFilter arch;
    MetricExpression expression; // Derived only
    int line = 0;                // in the section file, for messages
};

struct SectionGroup {
    std::string title;
    std::vector<SectionItem> items;
};

// A section as defined by one resources/sections/*.section file (format: README.md there).
struct SectionDefinition {
    std::string id; // --section name, e.g. SpeedOfLight
    std::string title;
    int order = 0;
    std::vector<std::string> sets;
    std::string description;
    std::vector<SectionGroup> groups;
    std::string fileName;

    bool inSet(std::string_view set) const;
};

// A malformed section file; the message names the file and line.
class SectionFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class SectionParser {
public:
    // `fileName` is used in error messages only.
    static SectionDefinition parse(std::string_view text, const std::string& fileName);
    static SectionDefinition parseFile(const std::string& path);
};

} // namespace ws

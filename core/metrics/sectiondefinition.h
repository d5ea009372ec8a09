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

// One row of a details panel, from a `metric` or `derived` line inside a `panel` block: what it
// reads and how to show it. Panel rows only show; what a profile collects is the groups' lines.
struct PanelRow {
    // Where a value comes from: the profile's stored metrics, the kernel record (the launch
    // configuration, the occupancy calculator, the traced duration), or the profile with the
    // record standing in for what it did not store.
    enum class Source { Profile, Record, ProfileThenRecord };
    std::string name;  // the metric read, or the derived row's own name
    std::string label; // as the panel shows it
    std::string unit;  // display unit
    std::string tip;   // empty: the metric's name and its description from the session
    int digits = 4;    // significant digits shown
    double divide = 1; // shown value = value in its base unit (ns, bytes, Hz, ...) / divide
    Source source = Source::Profile;
    bool derived = false;
    MetricExpression expression; // derived rows
    MetricExpression fallback;   // `else=`: evaluated when the row has no value; empty text = none
    int line = 0;
};

// A `panel <panel> | <heading>` block: a heading row and the rows under it.
struct PanelBlock {
    std::string panel; // launch, throughput, scheduler, memory
    std::string heading;
    std::vector<PanelRow> rows;
};

// A section as defined by one resources/sections/*.section file (format: README.md there).
struct SectionDefinition {
    std::string id; // --section name, e.g. SpeedOfLight
    std::string title;
    int order = 0;
    std::vector<std::string> sets;
    std::string description;
    std::vector<SectionGroup> groups;
    std::vector<PanelBlock> panels; // in file order
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
    // The details panels a `panel` block may name.
    static const std::vector<std::string>& panelNames();
    // `fileName` is used in error messages only.
    static SectionDefinition parse(std::string_view text, const std::string& fileName);
    static SectionDefinition parseFile(const std::string& path);
};

} // namespace ws

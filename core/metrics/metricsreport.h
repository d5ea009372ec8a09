// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/reporttable.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ws {

class KnownDifferences;
class SessionReader;

// What `warpscope-cli metrics` prints: a session's profiled launches with their metric values,
// grouped by section as ncu's details page groups them, so a profile taken on a headless GPU
// server can be read there. A value is printed as it is stored (the unit CUPTI reports, the
// shortest text that reads back as the stored double), with what measured it (the run, its
// passes and cache control) and, where the fidelity suite found that metric off ncu's under the
// run's cache control, the known difference (KnownDifferences), never an adjusted value.
struct MetricsReport {
    struct Row {
        std::string label; // "Duration": the section file's label
        std::string name;  // "gpu__time_duration.sum"
        std::string unit;
        double value = 0;
        std::string knownDifference; // KnownDifferences::note, or empty
    };
    struct Section {
        std::string id; // "SpeedOfLight"
        std::vector<Row> rows;
    };
    struct Launch {
        int64_t kernelId = 0;       // the measured launch (kernel.id)
        int64_t tracedKernelId = 0; // the traced launch it is linked to (kernel_link); 0: none
        uint32_t runId = 1;
        std::string kernel;      // demangled name (mangled when there is none)
        std::string shape;       // "grid (2, 66, 1), block (384, 1, 1), 168 registers/thread"
        std::string measurement; // describeProfileRun of the run: passes, cache control, clocks
        std::vector<Section> sections;
    };
    std::vector<Launch> launches;

    // Which launches and sections: empty lists select all. `kernelName` is --kernel-name's form:
    // NAME (equal to the mangled, demangled or short name) or regex:R (searched in all three).
    struct Selection {
        std::string kernelName;
        std::vector<int64_t> kernelIds;
        std::vector<std::string> sections;
        uint32_t runId = 0; // only the launches this run measured; 0: every run
    };
    // The measured launches (profile runs, imported ncu reports), in id order; a --kernel-id
    // selects a launch by its own id or by that of the traced launch it is linked to.
    // Throws SessionError naming the file, std::regex_error for a bad regex:R.
    static MetricsReport read(
        const SessionReader& reader, const Selection& selection, const KnownDifferences* differences = nullptr);

    // Per launch a header (id, kernel, shape, run, measurement) and per section a table of label,
    // unit and value (4 significant digits, whole numbers from 1000 on with thousands separators;
    // table() keeps every digit); "≈" marks a known difference, explained under the table.
    void writeDetails(std::ostream& out) const;
    // One row per launch and metric (Kernel ID, Run, Traced Kernel ID, Kernel, Section, Metric, Name,
    // Unit, Value, Known Difference), for writeReport's csv and json.
    ReportTable table() const;
};

} // namespace ws

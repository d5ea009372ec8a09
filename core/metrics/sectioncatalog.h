// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/sectiondefinition.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// What one profile run collects, resolved from sections, sets and --metrics. Architecture
// filters stay unresolved: only the injection library inside the target knows the device.
struct MetricRequest {
    struct Counter {
        std::string name;
        ArchFilter arch;
        bool breakdown = false; // expand to the throughput's constituent counters first
        bool operator==(const Counter&) const = default;
    };
    std::vector<Counter> counters;
    std::vector<SectionItem> launchMetrics;
    std::vector<SectionItem> derivedMetrics;
    std::vector<std::string> sectionIds;

    // Every metric name the request can produce before breakdown expansion, for --list-metrics.
    std::vector<std::string> allNames() const;
};

// All section definitions of a directory, sorted by their `order`.
class SectionCatalog {
public:
    SectionCatalog() = default;
    explicit SectionCatalog(std::vector<SectionDefinition> sections);

    // Reads every *.section file of `dir`. Throws SectionFileError naming the file and line.
    static SectionCatalog loadDirectory(const std::string& dir);
    // The directory to load: $WS_SECTIONS_DIR, else <exe dir>/../share/warpscope/sections when it
    // exists (installed), else the source tree's resources/sections.
    static std::string defaultDirectory(const std::string& executablePath);

    const std::vector<SectionDefinition>& sections() const { return m_sections; }
    // Case-insensitive lookup by identifier.
    const SectionDefinition* find(std::string_view id) const;
    // Every set named by some section, sorted.
    std::vector<std::string> setNames() const;

    // Sections named explicitly plus every section of the given sets, each once, by order.
    // Throws std::invalid_argument naming an unknown section or set and listing the known ones.
    std::vector<const SectionDefinition*> select(
        const std::vector<std::string>& ids, const std::vector<std::string>& sets) const;

    // The request for those sections plus extra metric names (`breakdown:<name>` allowed; names
    // of launch metrics known to any section are computed rather than collected).
    MetricRequest request(
        const std::vector<const SectionDefinition*>& sections, const std::vector<std::string>& extraMetrics) const;

    struct Placement {
        const SectionDefinition* section = nullptr;
        const SectionItem* item = nullptr;
    };
    // The first section (by order) that shows the metric, and the line that names it.
    // Constituents of a breakdown are not named in any section: ProfileIngest places them with
    // the breakdown they were expanded from.
    std::optional<Placement> placement(std::string_view metricName) const;

    // The `panel` blocks of one details panel (launch, throughput, scheduler, memory): sections
    // by order, blocks in file order. The panel shows their rows as they come.
    std::vector<const PanelBlock*> panelBlocks(std::string_view panel) const;

private:
    std::vector<SectionDefinition> m_sections;
};

} // namespace ws

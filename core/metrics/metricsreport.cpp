// SPDX-License-Identifier: MIT
#include "core/metrics/metricsreport.h"

#include "core/metrics/knowndifferences.h"
#include "core/metrics/profileconfig.h"
#include "core/metrics/profiledescription.h"
#include "core/metrics/sessionmeta.h"
#include "core/store/sessionreader.h"
#include "core/util/numbertext.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <regex>
#include <set>

namespace ws {

namespace {

std::string shapeOf(const KernelRecord& k)
{
    const auto triple = [](int32_t x, int32_t y, int32_t z) {
        return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
    };
    std::string out = "grid " + triple(k.gridX, k.gridY, k.gridZ) + ", block " + triple(k.blockX, k.blockY, k.blockZ);
    if (k.clusterX > 0)
        out += ", cluster " + triple(k.clusterX, k.clusterY, k.clusterZ);
    if (k.registersPerThread > 0)
        out += ", " + std::to_string(k.registersPerThread) + " registers/thread";
    return out;
}

// --kernel-name's test, the profiler's: its regular expression (kernelNameRegex) found in the
// mangled, demangled or short name.
class NameFilter {
public:
    explicit NameFilter(const std::string& spec)
    {
        if (!spec.empty())
            m_regex.emplace(kernelNameRegex(spec), std::regex::ECMAScript);
    }
    bool matches(std::initializer_list<const std::string*> names) const
    {
        return !m_regex || std::any_of(names.begin(), names.end(), [this](const std::string* n) {
            return !n->empty() && std::regex_search(*n, *m_regex);
        });
    }

private:
    std::optional<std::regex> m_regex;
};

// A value as a person reads it in the details view (csv and json keep the stored double):
// from 1000 on a whole number with thousands separators, below that four significant digits.
std::string readableValue(double v)
{
    if (!std::isfinite(v))
        return shortestText(v);
    if (std::fabs(v) >= 1000 && std::fabs(v) < 1e15) {
        const auto whole = static_cast<long long>(std::llround(v));
        std::string digits = std::to_string(whole < 0 ? -whole : whole);
        for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
            digits.insert(static_cast<size_t>(at), ",");
        return (whole < 0 ? "-" : "") + digits;
    }
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 4);
    return ec == std::errc() ? std::string(buf, end) : shortestText(v);
}

} // namespace

MetricsReport MetricsReport::read(
    const SessionReader& reader, const Selection& selection, const KnownDifferences* differences)
{
    const NameFilter names(selection.kernelName);
    const std::set<int64_t> ids(selection.kernelIds.begin(), selection.kernelIds.end());
    const std::set<std::string> sections(selection.sections.begin(), selection.sections.end());
    const StringTable strings = reader.readStrings();
    const std::vector<MetricDef> defs = reader.readMetricDefs();
    std::map<uint32_t, const MetricDef*> defById;
    for (const MetricDef& d : defs)
        defById[d.id] = &d;
    const std::vector<RunInfo> runs = reader.readRuns();
    const std::map<std::string, std::string> sessionMeta = reader.meta();

    // Every measured launch once, with its own values: readMetricsByKernel shows one profile per
    // traced launch, and a session may hold several of the same launch (a profile and PC sampling).
    struct Measured {
        int64_t measuredKernelId = 0;
        int64_t kernelId = 0; // the traced launch it is linked to, else itself
        uint32_t runId = 1;
        std::vector<std::pair<uint32_t, double>> values;
    };
    std::map<int64_t, Measured> byLaunch;
    for (const KernelMetric& m : reader.readKernelMetrics()) {
        Measured& v = byLaunch[m.kernelId];
        v.measuredKernelId = v.kernelId = m.kernelId;
        v.runId = m.runId;
        v.values.emplace_back(m.metricId, m.value);
    }
    for (const KernelLink& link : reader.readKernelLinks()) {
        if (const auto it = byLaunch.find(link.kernelId); it != byLaunch.end())
            it->second.kernelId = link.traceKernelId;
    }
    MetricsReport report;
    for (const auto& entry : byLaunch) {
        const Measured& measured = entry.second;
        if ((!ids.empty() && !ids.contains(measured.measuredKernelId) && !ids.contains(measured.kernelId))
            || (selection.runId != 0 && measured.runId != selection.runId))
            continue;
        // The measured launch itself (readMeasuredKernels lists the traced one instead).
        const std::optional<KernelRecord> k = reader.readKernel(measured.measuredKernelId);
        if (!k)
            continue;
        const std::string& mangled = strings.at(k->mangledName);
        const std::string& demangled = strings.at(k->demangledName);
        const std::string& shortName = strings.at(k->shortName);
        if (!names.matches({&mangled, &demangled, &shortName}))
            continue;
        Launch launch;
        launch.kernelId = measured.measuredKernelId;
        launch.tracedKernelId = measured.kernelId != measured.measuredKernelId ? measured.kernelId : 0;
        launch.runId = measured.runId;
        launch.kernel = !demangled.empty() ? demangled : !mangled.empty() ? mangled : shortName;
        launch.shape = shapeOf(*k);
        const auto meta = runMeasurementMeta(runs, measured.runId, sessionMeta);
        launch.measurement = describeProfileRun(meta);
        const auto cache = meta.find(metakey::kProfileCacheControl);
        // Sections in the order of their metric definitions (the profiler writes them so).
        std::vector<std::pair<uint32_t, double>> values = measured.values;
        std::sort(values.begin(), values.end());
        for (const auto& [defId, value] : values) {
            const auto def = defById.find(defId);
            if (def == defById.end() || (!sections.empty() && !sections.contains(def->second->section)))
                continue;
            const MetricDef& d = *def->second;
            auto section = std::find_if(
                launch.sections.begin(), launch.sections.end(), [&](const Section& s) { return s.id == d.section; });
            if (section == launch.sections.end())
                section = launch.sections.insert(launch.sections.end(), Section {d.section, {}});
            Row row {d.description.empty() ? d.name : d.description, d.name, d.unit, value, {}};
            if (differences && cache != meta.end()) {
                if (const KnownDifference* known = differences->find(cache->second, d.name))
                    row.knownDifference = KnownDifferences::note(*known);
            }
            section->rows.push_back(std::move(row));
        }
        if (!launch.sections.empty())
            report.launches.push_back(std::move(launch));
    }
    return report;
}

void MetricsReport::writeDetails(std::ostream& out) const
{
    for (const Launch& l : launches) {
        out << "  " << l.kernel << "\n";
        out << "    kernel id " << l.kernelId << ", run " << l.runId
            << (l.tracedKernelId ? ", the traced launch " + std::to_string(l.tracedKernelId) : std::string()) << ", "
            << l.shape << "\n";
        if (!l.measurement.empty())
            out << "    " << l.measurement << "\n";
        for (const Section& s : l.sections) {
            size_t labelWidth = std::string_view("Metric Name").size();
            size_t unitWidth = std::string_view("Metric Unit").size();
            size_t valueWidth = std::string_view("Metric Value").size();
            std::vector<std::string> texts;
            for (const Row& r : s.rows) {
                texts.push_back((r.knownDifference.empty() ? "" : "≈ ") + readableValue(r.value));
                labelWidth = std::max(labelWidth, r.label.size());
                unitWidth = std::max(unitWidth, r.unit.size());
                valueWidth = std::max(valueWidth, texts.back().size());
            }
            const auto line
                = [&](const std::string& label, const std::string& unit, const std::string& value, size_t valueBytes) {
                      out << "    " << label << std::string(labelWidth - label.size() + 1, ' ') << unit
                          << std::string(unitWidth - unit.size() + 1, ' ')
                          << std::string(valueWidth > valueBytes ? valueWidth - valueBytes : 0, ' ') << value << "\n";
                  };
            out << "\n    Section: " << s.id << "\n";
            const std::string rule
                = std::string(labelWidth, '-') + " " + std::string(unitWidth, '-') + " " + std::string(valueWidth, '-');
            out << "    " << rule << "\n";
            line("Metric Name", "Metric Unit", "Metric Value", 12);
            out << "    " << rule << "\n";
            std::vector<std::string> notes;
            for (size_t i = 0; i < s.rows.size(); ++i) {
                // "≈" is three bytes and one column wide.
                const size_t columns = texts[i].size() - (s.rows[i].knownDifference.empty() ? 0 : 2);
                line(s.rows[i].label, s.rows[i].unit, texts[i], columns);
                if (!s.rows[i].knownDifference.empty())
                    notes.push_back(s.rows[i].label + ": " + s.rows[i].knownDifference);
            }
            out << "    " << rule << "\n";
            for (const std::string& n : notes)
                out << "    ≈ " << n << "\n";
        }
        out << "\n";
    }
}

ReportTable MetricsReport::table() const
{
    ReportTable t;
    t.id = "kernel_metrics";
    t.title = "Kernel Metrics";
    t.columns = {{"Kernel ID", "", ColumnKind::Id}, {"Run", "", ColumnKind::Id},
        {"Traced Kernel ID", "", ColumnKind::Id}, {"Kernel", "", ColumnKind::Text}, {"Section", "", ColumnKind::Text},
        {"Metric", "", ColumnKind::Text}, {"Name", "", ColumnKind::Text}, {"Unit", "", ColumnKind::Text},
        {"Value", "", ColumnKind::Text}, {"Known Difference", "", ColumnKind::Text}};
    for (const Launch& l : launches) {
        for (const Section& s : l.sections) {
            for (const Row& r : s.rows)
                t.rows.push_back({l.kernelId, static_cast<int64_t>(l.runId),
                    l.tracedKernelId ? ReportCell(l.tracedKernelId) : ReportCell(), l.kernel, s.id, r.label, r.name,
                    r.unit, shortestText(r.value), r.knownDifference});
        }
    }
    return t;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/throughputpanel.h"

#include "core/metrics/metricnames.h"
#include "core/metrics/profileingest.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/plotstyle.h"
#include "ui/panels/sectionrows.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace ws {

namespace {

constexpr std::string_view kElapsedPct = metric::kElapsedPctSuffix;

// Speed-of-light header metrics: shown as the SOL bars, never again as breakdown rows.
const std::set<std::string>& headerMetrics()
{
    static const std::set<std::string> names = {
        metric::kSmThroughput,
        metric::kMemoryThroughput,
        metric::kDramThroughput,
        metric::kL1Throughput,
        metric::kL2Throughput,
        metric::kMemBusy,
        metric::kMaxBandwidth,
        metric::kMemPipesBusy,
        metric::kSmBusy,
        metric::kIssueSlotsBusy,
    };
    return names;
}

// "sm__pipe_alu_cycles_active..." -> "alu"; "sm__inst_executed_pipe_lsu..." -> "lsu".
std::string pipeKey(const std::string& name, ThroughputPanel::Family family)
{
    const std::string prefix
        = family == ThroughputPanel::Family::PipeCycles ? metric::kPipeCyclesPrefix : metric::kPipeInstructionsPrefix;
    const std::string rest = name.substr(prefix.size());
    if (family == ThroughputPanel::Family::PipeCycles)
        return rest.substr(0, rest.find(metric::kPipeCyclesInfix));
    return rest.substr(0, rest.find('.'));
}

} // namespace

bool ThroughputPanel::inFamily(const std::string& m, Family family, const std::string& section)
{
    if (!section.empty()) {
        const bool pipes = family == Family::PipeCycles || family == Family::PipeInstructions;
        if (section != (pipes ? "ComputeWorkloadAnalysis" : "SpeedOfLight"))
            return false;
        if (!pipes && (inFamily(m, Family::PipeCycles) || inFamily(m, Family::PipeInstructions))) {
            // A pipe counter listed as a throughput constituent belongs to the breakdown.
            return family == Family::ComputeBreakdown && !headerMetrics().count(m);
        }
    }
    const bool elapsed = m.size() > kElapsedPct.size() && m.ends_with(kElapsedPct);
    switch (family) {
    case Family::PipeCycles:
        return elapsed && m.starts_with(metric::kPipeCyclesPrefix)
            && m.find(metric::kPipeCyclesInfix) != std::string::npos;
    case Family::PipeInstructions:
        return elapsed && m.starts_with(metric::kPipeInstructionsPrefix);
    case Family::ComputeBreakdown:
        if (!elapsed || headerMetrics().count(m) || inFamily(m, Family::PipeCycles)
            || inFamily(m, Family::PipeInstructions))
            return false;
        return m.starts_with("sm__") || m.starts_with("smsp__") || m.starts_with("idc__");
    case Family::MemoryBreakdown:
        if (!elapsed || headerMetrics().count(m))
            return false;
        return m.starts_with("l1tex__") || m.starts_with("lts__") || m.starts_with("dram__") || m.starts_with("fbpa__")
            || m.starts_with("gpu__") || m.starts_with("ltc__");
    }
    return false;
}

ThroughputPanel::ThroughputPanel(KernelFocus* focus, QWidget* parent)
    : DetailsPanel(focus, QStringLiteral("throughputPanel"), parent)
    , m_sol(addPlot(QStringLiteral("speed-of-light"), 0, 0, 1, 2))
    , m_compute(addPlot(QStringLiteral("compute-throughput-breakdown"), 1, 0))
    , m_memory(addPlot(QStringLiteral("memory-throughput-breakdown"), 1, 1))
    , m_pipeCycles(addPlot(QStringLiteral("pipe-utilization-active-cycles"), 2, 0))
    , m_pipeInst(addPlot(QStringLiteral("pipe-utilization-instructions"), 2, 1))
{
    m_sol->setMinimumHeight(230);
    for (QCustomPlot* p : {m_compute, m_memory, m_pipeCycles, m_pipeInst})
        p->setMinimumHeight(300);
    refresh();
}

void ThroughputPanel::rebuild()
{
    const auto& session = m_focus->data();
    // The table: the `panel throughput` blocks of the section files (SpeedOfLight,
    // ComputeWorkloadAnalysis), then the breakdown and pipe families. Those stay built here:
    // which units they list depends on the chip and the profile (a breakdown expands at
    // collection time), and they are sorted by value, the busiest first.
    std::vector<MetricRow> rows = sectionRows("throughput", m_shown, session.get());

    // Every figure of the families, for the table and the charts.
    auto collect = [&](Family family) {
        std::set<std::string> names;
        for (const ShownKernel& k : m_shown) {
            if (!k.profiled)
                continue;
            for (const auto& [name, entry] : k.profiled->metrics.all()) {
                const MetricDef* def = session ? session->metrics.definition(name) : nullptr;
                if (inFamily(name, family, def ? def->section : std::string()))
                    names.insert(name);
            }
        }
        // Largest first (by the largest value over the shown kernels).
        std::vector<std::pair<double, std::string>> ordered;
        for (const std::string& n : names) {
            double best = 0;
            for (const ShownKernel& k : m_shown) {
                if (k.profiled)
                    best = std::max(best, k.profiled->metrics.get(n).value_or(0));
            }
            ordered.emplace_back(best, n);
        }
        std::stable_sort(
            ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        // Units idle in every shown kernel say nothing: leave them out of table and chart.
        std::vector<std::string> out;
        for (auto& o : ordered) {
            if (o.first >= 0.05)
                out.push_back(std::move(o.second));
        }
        return out;
    };
    auto labelOf = [&](const std::string& name, Family family) {
        if (family == Family::PipeCycles || family == Family::PipeInstructions) {
            if (session)
                // A profile session labels pipes as its section does ("Tensor (FP, incl. HGMMA)").
                if (const MetricDef* d = session->metrics.definition(name);
                    d && !d->description.empty() && d->description.size() < 40)
                    return QString::fromStdString(d->description);
            QString key = QString::fromStdString(pipeKey(name, family)).toUpper();
            return key.replace(QLatin1Char('_'), QLatin1Char(' '));
        }
        return QString::fromStdString(ProfileIngest::breakdownLabel(name));
    };

    const auto compute = collect(Family::ComputeBreakdown);
    const auto memory = collect(Family::MemoryBreakdown);
    const auto pipeCycles = collect(Family::PipeCycles);
    const auto pipeInst = collect(Family::PipeInstructions);
    auto addRows = [&](const QString& title, const std::vector<std::string>& names, Family family, size_t limit) {
        if (names.empty())
            return;
        rows.push_back(heading(title));
        for (size_t i = 0; i < std::min(limit, names.size()); ++i) {
            const std::string& n = names[i];
            MetricRow r = metricRow(QString::fromStdString(n), labelOf(n, family), tr("%"), 3);
            rows.push_back(r);
        }
    };
    addRows(tr("Compute throughput breakdown (% of each unit's peak, elapsed cycles; top 10)"), compute,
        Family::ComputeBreakdown, 10);
    addRows(tr("Memory throughput breakdown (% of each unit's peak, elapsed cycles; top 10)"), memory,
        Family::MemoryBreakdown, 10);
    addRows(tr("Pipe utilization: % of elapsed cycles the pipe was active"), pipeCycles, Family::PipeCycles, 99);
    addRows(tr("Pipe utilization: % of peak instructions executed over elapsed cycles"), pipeInst,
        Family::PipeInstructions, 99);
    table()->set(kernelColumns(), rows);

    const bool any = anyProfiled();
    const QString none = m_shown.isEmpty() ? tr("No kernel selected") : notCollectedText();
    // Speed of light bars.
    plotstyle::setTitle(m_sol, tr("GPU speed of light"),
        tr("% of each unit's own peak over the kernel's elapsed cycles: separate denominators, not shares of time"));
    if (!any) {
        plotstyle::showMessage(m_sol, none);
    } else {
        static const char* const kSol[][2] = {
            {metric::kSmThroughput, QT_TR_NOOP("Compute (SM)")},
            {metric::kMemoryThroughput, QT_TR_NOOP("Memory")},
            {metric::kDramThroughput, QT_TR_NOOP("DRAM")},
            {metric::kL1ThroughputActive, QT_TR_NOOP("L1/TEX (active cycles)")},
            {metric::kL2Throughput, QT_TR_NOOP("L2")},
        };
        plotstyle::BarChart chart;
        for (const auto& s : kSol)
            chart.categories << tr(s[1]);
        chart.valueLabel = tr("throughput (% of peak)");
        chart.valueMax = 112;
        chart.valueText = [](double v, int, int) { return QStringLiteral("%1%").arg(v, 0, 'f', 1); };
        QList<plotstyle::BarSeries> series;
        for (const ShownKernel& k : m_shown) {
            plotstyle::BarSeries bs {k.title, k.color, {}};
            for (const auto& s : kSol)
                bs.values << (k.profiled ? k.profiled->metrics.get(s[0]).value_or(std::nan("")) : std::nan(""));
            series << bs;
        }
        plotstyle::groupedBars(m_sol, chart, series);
    }

    auto familyChart = [&](QCustomPlot* plot, const QString& title, const QString& subtitle,
                           const std::vector<std::string>& names, Family family, size_t limit) {
        plotstyle::setTitle(plot, title, subtitle);
        if (!any) {
            plotstyle::showMessage(plot, none);
            return;
        }
        if (names.empty()) {
            plotstyle::showMessage(plot,
                tr("not in this profile (section %1)")
                    .arg(family == Family::ComputeBreakdown || family == Family::MemoryBreakdown
                            ? QStringLiteral("SpeedOfLight breakdown")
                            : QStringLiteral("ComputeWorkloadAnalysis")));
            return;
        }
        plotstyle::BarChart chart;
        const size_t n = std::min(limit, names.size());
        for (size_t i = 0; i < n; ++i)
            chart.categories << labelOf(names[i], family);
        chart.valueLabel = tr("% of peak");
        chart.valueMax = 112;
        chart.valueText = [](double v, int, int) { return QString::number(v, 'f', 1); };
        QList<plotstyle::BarSeries> series;
        for (const ShownKernel& k : m_shown) {
            plotstyle::BarSeries bs {k.title, k.color, {}};
            for (size_t i = 0; i < n; ++i)
                bs.values << (k.profiled ? k.profiled->metrics.get(names[i]).value_or(std::nan("")) : std::nan(""));
            series << bs;
        }
        plotstyle::groupedBars(plot, chart, series);
    };
    familyChart(m_compute, tr("Compute throughput breakdown"),
        tr("SM units behind Compute (SM), % of each one's peak; top %1").arg(std::min<size_t>(10, compute.size())),
        compute, Family::ComputeBreakdown, 10);
    familyChart(m_memory, tr("Memory throughput breakdown"),
        tr("memory units behind Memory, % of each one's peak; top %1").arg(std::min<size_t>(10, memory.size())), memory,
        Family::MemoryBreakdown, 10);
    familyChart(m_pipeCycles, tr("Pipe utilization (% of elapsed cycles)"),
        tr("cycles each pipe was active / elapsed cycles"), pipeCycles, Family::PipeCycles, 12);
    familyChart(m_pipeInst, tr("Pipe utilization (% of peak instructions executed)"),
        tr("instructions executed / the pipe's peak rate over elapsed cycles: a different denominator"), pipeInst,
        Family::PipeInstructions, 14);
}

} // namespace ws

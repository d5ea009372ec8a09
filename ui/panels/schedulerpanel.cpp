// SPDX-License-Identifier: MIT
#include "ui/panels/schedulerpanel.h"

#include "core/metrics/metricnames.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/plotstyle.h"
#include "ui/panels/sectionrows.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ws {

namespace {

std::optional<double> stallOf(const ShownKernel& k, const std::string& key)
{
    for (const StallReason& s : k.facts.stalls) {
        if (s.key == key)
            return s.cyclesPerIssue;
    }
    return std::nullopt;
}

// The denominator of a stall's share: all warp-cycles per issued instruction.
double totalCycles(const ShownKernel& k)
{
    if (k.facts.warpCyclesPerIssued && *k.facts.warpCyclesPerIssued > 0)
        return *k.facts.warpCyclesPerIssued;
    double t = 0;
    for (const StallReason& s : k.facts.stalls)
        t += s.cyclesPerIssue;
    return t;
}

} // namespace

SchedulerPanel::SchedulerPanel(KernelFocus* focus, QWidget* parent)
    : DetailsPanel(focus, QStringLiteral("schedulerPanel"), parent)
    , m_warps(addPlot(QStringLiteral("warps-per-scheduler"), 0, 0))
    , m_issue(addPlot(QStringLiteral("scheduler-issue"), 0, 1))
    , m_stalls(addPlot(QStringLiteral("warp-stall-reasons"), 1, 0, 1, 2))
{
    m_warps->setMinimumHeight(240);
    m_issue->setMinimumHeight(240);
    m_stalls->setMinimumHeight(380);
    refresh();
}

std::vector<std::string> SchedulerPanel::stallOrder() const
{
    std::map<std::string, double> best;
    for (const ShownKernel& k : m_shown) {
        for (const StallReason& s : k.facts.stalls)
            best[s.key] = std::max(best[s.key], s.cyclesPerIssue);
    }
    std::vector<std::pair<double, std::string>> ordered;
    ordered.reserve(best.size());
    for (const auto& [key, v] : best)
        ordered.emplace_back(v, key);
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    out.reserve(ordered.size());
    for (auto& o : ordered)
        out.push_back(o.second);
    return out;
}

void SchedulerPanel::rebuild()
{
    // The table: the `panel scheduler` blocks of the section files (SchedulerStats,
    // WarpStateStats), then the stall reasons. Those stay built here: they are a family sorted
    // by value, each with its share of all warp-cycles next to it, not fixed rows.
    std::vector<MetricRow> rows = sectionRows("scheduler", m_shown, m_focus->data().get());
    const std::vector<std::string> order = stallOrder();
    if (!order.empty())
        rows.push_back(heading(tr("Stall reasons (warp-cycles per issued instruction, share of all)")));
    for (const std::string& key : order) {
        MetricRow r = row(
            QString::fromStdString(stallLabel(key)), tr("warp-cycles/inst"),
            tr("smsp__average_warps_issue_stalled_%1_per_issue_active.ratio; the share is of all warp-cycles per "
               "issued instruction")
                .arg(QString::fromStdString(key)),
            [&key](const ShownKernel& k) { return stallOf(k, key); }, 4);
        for (const ShownKernel& k : m_shown) {
            const auto v = stallOf(k, key);
            const double total = totalCycles(k);
            r.texts.push_back(v && total > 0
                    ? QStringLiteral("%1  (%2%)").arg(panelformat::number(*v, 4)).arg(100.0 * *v / total, 0, 'f', 1)
                    : QString());
        }
        r.notes = knownDifferenceNotes(
            {"smsp__average_warps_issue_stalled_" + key + "_per_issue_active.ratio"}, m_shown, m_focus->data().get());
        rows.push_back(r);
    }
    table()->set(kernelColumns(), rows);

    const bool any = anyProfiled();
    const QString none = m_shown.isEmpty() ? tr("No kernel selected") : notCollectedText();
    auto metricValue = [](const ShownKernel& k, const char* name) {
        return k.profiled ? k.profiled->metrics.get(name).value_or(std::nan("")) : std::nan("");
    };

    plotstyle::setTitle(m_warps, tr("Warps per scheduler"),
        tr("average per active cycle: resident (active), ready (eligible), issued"));
    plotstyle::setTitle(m_issue, tr("Issue opportunities"), tr("% of active scheduler cycles"));
    plotstyle::setTitle(m_stalls, tr("Warp stall reasons"),
        tr("average warp-cycles per issued instruction (bars) and share of all warp-cycles (label)"));
    if (!any) {
        for (QCustomPlot* p : {m_warps, m_issue, m_stalls})
            plotstyle::showMessage(p, none);
        return;
    }
    {
        plotstyle::BarChart chart;
        static const char* const kWarps[][2] = {
            {metric::kSchedulerMaxWarps, QT_TR_NOOP("GPU maximum")},
            {metric::kSchedulerTheoreticalWarps, QT_TR_NOOP("Theoretical")},
            {metric::kSchedulerActiveWarps, QT_TR_NOOP("Active")},
            {metric::kSchedulerEligibleWarps, QT_TR_NOOP("Eligible")},
            {metric::kSchedulerIssuedWarps, QT_TR_NOOP("Issued")},
        };
        for (const auto& w : kWarps)
            chart.categories << tr(w[1]);
        chart.valueLabel = tr("warps per scheduler");
        chart.valueText = [](double v, int, int) { return panelformat::number(v, 3); };
        QList<plotstyle::BarSeries> series;
        for (const ShownKernel& k : m_shown) {
            plotstyle::BarSeries bs {k.title, k.color, {}};
            for (const auto& w : kWarps)
                bs.values << metricValue(k, w[0]);
            series << bs;
        }
        plotstyle::groupedBars(m_warps, chart, series);
    }
    {
        plotstyle::BarChart chart;
        chart.categories = {tr("No eligible warp"), tr("One or more eligible")};
        chart.valueLabel = tr("% of active cycles");
        chart.valueMax = 112;
        chart.valueText = [](double v, int, int) { return QStringLiteral("%1%").arg(v, 0, 'f', 1); };
        QList<plotstyle::BarSeries> series;
        for (const ShownKernel& k : m_shown)
            series << plotstyle::BarSeries {k.title, k.color,
                {k.facts.noEligiblePct.value_or(std::nan("")), k.facts.issueActivePct.value_or(std::nan(""))}};
        plotstyle::groupedBars(m_issue, chart, series);
    }
    if (order.empty()) {
        plotstyle::showMessage(m_stalls, tr("stall reasons not in this profile (section WarpStateStats)"));
        return;
    }
    plotstyle::BarChart chart;
    const size_t n = std::min<size_t>(order.size(), 14);
    for (size_t i = 0; i < n; ++i)
        chart.categories << QString::fromStdString(stallLabel(order[i]));
    chart.valueLabel = tr("warp-cycles per issued instruction");
    QList<plotstyle::BarSeries> series;
    std::vector<double> totals;
    for (const ShownKernel& k : m_shown) {
        plotstyle::BarSeries bs {k.title, k.color, {}};
        for (size_t i = 0; i < n; ++i)
            bs.values << stallOf(k, order[i]).value_or(std::nan(""));
        series << bs;
        totals.push_back(totalCycles(k));
    }
    chart.valueText = [totals](double v, int s, int) {
        const double total = totals[static_cast<size_t>(s)];
        return total > 0 ? QStringLiteral("%1 (%2%)").arg(panelformat::number(v, 3)).arg(100.0 * v / total, 0, 'f', 0)
                         : panelformat::number(v, 3);
    };
    plotstyle::groupedBars(m_stalls, chart, series);
}

} // namespace ws

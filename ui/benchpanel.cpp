// SPDX-License-Identifier: MIT
#include "ui/benchpanel.h"

#include "ui/panels/plotstyle.h"

#include "core/bench/benchreport.h"
#include "core/store/sessionerror.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <optional>
#include <tuple>

namespace ws {

namespace {

const QList<QColor>& seriesColors()
{
    static const QList<QColor> colors = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
        QColor(214, 39, 40), QColor(148, 103, 189), QColor(140, 86, 75)};
    return colors;
}

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString num(double v, int precision = 4)
{
    return QString::number(v, 'f', precision);
}

QString percent(double rel)
{
    return QString::number(rel * 100.0, 'f', 2) + QLatin1Char('%');
}

// Runs measured together share workload, size, element type, timer, cache policy and counts.
auto groupKey(const bench::BenchRunResult& r)
{
    return std::make_tuple(r.workload, r.size, r.dtype, static_cast<int>(r.options.timer),
        static_cast<int>(r.options.cache), r.options.repeat, r.options.rounds);
}

void styleAxes(QCustomPlot* plot)
{
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->legend->setFont(QFont(plot->font().family(), 8));
    // The legend goes in a row of its own under the axes, so it never hides a data point.
    auto* row = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, row);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    row->setMargins(QMargins(5, 0, 5, 5));
    row->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(2);
    plot->legend->setBorderPen(Qt::NoPen);
    plotstyle::followPalette(plot);
    plot->legend->setBorderPen(Qt::NoPen);
}

} // namespace

BenchPanel::BenchPanel(QWidget* parent)
    : QWidget(parent)
    , m_selector(new QComboBox(this))
    , m_note(new QLabel(this))
    , m_trend(new QCustomPlot(this))
    , m_distribution(new QCustomPlot(this))
    , m_summary(new QTextBrowser(this))
    , m_content(new QWidget(this))
{
    m_selector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_selector->setToolTip(tr("Runs measured together: workload, size, element type, timer and cache policy"));
    m_note->setWordWrap(true);
    m_note->setAlignment(Qt::AlignCenter);
    styleAxes(m_trend);
    styleAxes(m_distribution);
    m_trend->xAxis->setLabel(tr("round (warm-up chunks before 0)"));
    m_trend->legend->setVisible(true);
    m_trend->setMinimumHeight(160);
    m_distribution->setMinimumHeight(160);
    m_summary->setOpenExternalLinks(false);

    auto* plots = new QSplitter(Qt::Horizontal);
    plots->addWidget(m_trend);
    plots->addWidget(m_distribution);
    auto* vertical = new QSplitter(Qt::Vertical);
    vertical->addWidget(plots);
    vertical->addWidget(m_summary);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 2);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Benchmark:")));
    top->addWidget(m_selector, 1);
    auto* content = new QVBoxLayout(m_content);
    content->setContentsMargins(0, 0, 0, 0);
    content->addLayout(top);
    content->addWidget(vertical, 1);

    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(m_note);
    l->addWidget(m_content, 1);

    connect(m_selector, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i != m_current)
            showGroup(i);
    });
    clear();
}

void BenchPanel::clear()
{
    m_result = {};
    m_groups.clear();
    m_current = -1;
    {
        const QSignalBlocker block(m_selector);
        m_selector->clear();
    }
    m_trend->clearGraphs();
    m_trend->clearPlottables();
    m_distribution->clearPlottables();
    m_summary->clear();
    m_note->setText(tr("This session holds no benchmark runs. Record one with: warpscope-cli bench --workload "
                       "gemm -o FILE.wscope"));
    m_note->setVisible(true);
    m_content->setVisible(false);
}

void BenchPanel::setSession(const SessionData& session, const QString& source)
{
    if (session.benchRuns.empty()) {
        clear();
        return;
    }
    try {
        setResult(
            bench::benchResultFromSession(session, source.isEmpty() ? std::string("session") : source.toStdString()));
    } catch (const std::exception& e) {
        clear();
        m_note->setText(tr("The benchmark tables cannot be shown: %1").arg(QString::fromUtf8(e.what())));
    }
}

void BenchPanel::showOutcome(const BenchOutcome& outcome)
{
    if (outcome.result) {
        setResult(*outcome.result);
    } else {
        clear();
        if (!outcome.error.isEmpty())
            m_note->setText(tr("The benchmark tables cannot be shown: %1").arg(outcome.error));
    }
    emit loaded(groupCount());
}

void BenchPanel::setResult(bench::BenchResult result)
{
    clear();
    m_result = std::move(result);
    if (m_result.runs.empty())
        return;
    rebuildGroups();
    m_note->setVisible(false);
    m_content->setVisible(true);
    showGroup(0);
}

void BenchPanel::rebuildGroups()
{
    for (size_t i = 0; i < m_result.runs.size(); ++i) {
        const auto key = groupKey(m_result.runs[i]);
        auto it = std::find_if(m_groups.begin(), m_groups.end(),
            [&](const std::vector<size_t>& g) { return groupKey(m_result.runs[g.front()]) == key; });
        if (it == m_groups.end())
            m_groups.push_back({i});
        else
            it->push_back(i);
    }
    const QSignalBlocker block(m_selector);
    for (const auto& g : m_groups) {
        const auto& r = m_result.runs[g.front()];
        QStringList impls;
        for (size_t i : g)
            impls << q(m_result.runs[i].implementation);
        m_selector->addItem(QStringLiteral("%1 %2 %3 (%4) - %5, %6 cache")
                                .arg(q(r.workload))
                                .arg(r.size)
                                .arg(q(r.dtype), impls.join(QStringLiteral(", ")),
                                    q(std::string(bench::timerShortLabel(r.options.timer))),
                                    q(std::string(bench::cachePolicyKey(r.options.cache)))));
    }
}

void BenchPanel::showGroup(int index)
{
    if (index < 0 || index >= groupCount())
        return;
    m_current = index;
    if (m_selector->currentIndex() != index) {
        const QSignalBlocker block(m_selector);
        m_selector->setCurrentIndex(index);
    }
    const auto& runs = m_groups[static_cast<size_t>(index)];
    plotTrend(runs);
    plotDistribution(runs);
    m_summary->setHtml(summaryHtml(runs));
}

void BenchPanel::plotTrend(const std::vector<size_t>& runs)
{
    m_trend->clearGraphs();
    const auto& first = m_result.runs[runs.front()];
    const QString unit = q(first.unit);
    m_trend->yAxis->setLabel(tr("%1 [%2]").arg(q(std::string(bench::timerShortLabel(first.options.timer))), unit));
    for (size_t k = 0; k < runs.size(); ++k) {
        const auto& run = m_result.runs[runs[k]];
        const QColor color = seriesColors().at(static_cast<int>(k) % seriesColors().size());
        // Warm-up chunks at x = -n .. -1, dashed: the fall the warm-up absorbed.
        if (!run.warmupChunks.empty()) {
            auto* warm = m_trend->addGraph();
            // Warm-up chunks are timed as batches (back-to-back calls, no flush), whatever the
            // measured timer: the label says so, since they can sit below per-call values.
            warm->setName(tr("%1 warm-up (batch means)").arg(q(run.implementation)));
            QVector<double> x;
            QVector<double> y;
            const auto n = static_cast<int>(run.warmupChunks.size());
            for (int i = 0; i < n; ++i) {
                x << static_cast<double>(i - n);
                y << run.warmupChunks[static_cast<size_t>(i)];
            }
            warm->setData(x, y, true);
            QPen pen(color);
            pen.setStyle(Qt::DashLine);
            warm->setPen(pen);
        }
        auto* g = m_trend->addGraph();
        g->setName(tr("%1 round value").arg(q(run.implementation)));
        QVector<double> x;
        QVector<double> y;
        for (size_t r = 0; r < run.rounds.size(); ++r) {
            x << static_cast<double>(r);
            y << run.rounds[r];
        }
        g->setData(x, y, true);
        g->setPen(QPen(color, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    }
    m_trend->rescaleAxes();
    m_trend->xAxis->setRange(m_trend->xAxis->range().lower - 0.5, m_trend->xAxis->range().upper + 0.5);
    m_trend->yAxis->scaleRange(1.1, m_trend->yAxis->range().center());
    m_trend->replot();
}

void BenchPanel::plotDistribution(const std::vector<size_t>& runs)
{
    m_distribution->clearPlottables();
    const auto& first = m_result.runs[runs.front()];
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (size_t k = 0; k < runs.size(); ++k) {
        const auto& run = m_result.runs[runs[k]];
        const auto s = bench::summarize(run);
        auto* box = new QCPStatisticalBox(m_distribution->xAxis, m_distribution->yAxis);
        box->setName(q(run.implementation));
        const QColor color = seriesColors().at(static_cast<int>(k) % seriesColors().size());
        box->setBrush(QColor(color.red(), color.green(), color.blue(), 60));
        box->setPen(QPen(color));
        box->setOutlierStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, 4));
        // Whiskers at the 5th and 95th percentiles; the samples beyond them drawn as outliers.
        QVector<double> outliers;
        const auto collect = [&](double v) {
            if (v < s.stats.p05 || v > s.stats.p95)
                outliers << v;
        };
        if (run.calls.empty()) {
            std::for_each(run.rounds.begin(), run.rounds.end(), collect);
        } else {
            for (const auto& c : run.calls)
                std::for_each(c.begin(), c.end(), collect);
        }
        box->addData(
            static_cast<double>(k + 1), s.stats.p05, s.stats.p25, s.stats.median, s.stats.p75, s.stats.p95, outliers);
        ticker->addTick(static_cast<double>(k + 1), q(run.implementation));
    }
    m_distribution->xAxis->setTicker(ticker);
    m_distribution->xAxis->setLabel(first.calls.empty() ? tr("round values (each a batch mean)")
                                                        : tr("per-call samples; box 25-75%, whiskers 5-95%"));
    m_distribution->yAxis->setLabel(
        tr("%1 [%2]").arg(q(std::string(bench::timerShortLabel(first.options.timer))), q(first.unit)));
    m_distribution->rescaleAxes();
    m_distribution->xAxis->setRange(0.3, static_cast<double>(runs.size()) + 0.7);
    m_distribution->yAxis->scaleRange(1.1, m_distribution->yAxis->range().center());
    m_distribution->replot();
}

QString BenchPanel::summaryHtml(const std::vector<size_t>& runs) const
{
    QString html;
    const auto env = [this](const char* key) {
        auto it = m_result.environment.find(key);
        return it == m_result.environment.end() ? QString() : q(it->second);
    };
    const QString gpu = env("gpu.name");
    if (!gpu.isEmpty()) {
        html += QStringLiteral("<p><b>%1</b>").arg(gpu.toHtmlEscaped());
        const QString before = env("gpu.before.sm_clock_mhz");
        const QString after = env("gpu.after.sm_clock_mhz");
        if (!before.isEmpty())
            html += tr(" &middot; SM clock %1 MHz before, %2 MHz after").arg(before, after);
        const QString reasons = env("gpu.after.clock_event_reasons");
        if (!reasons.isEmpty() && reasons != QLatin1String("0x0"))
            html += tr(" &middot; clock event reasons %1 (clocks were limited)").arg(reasons);
        const QString driver = env("nvml.driver_version");
        if (!driver.isEmpty())
            html += tr(" &middot; driver %1").arg(driver);
        html += QStringLiteral("</p>");
    }
    for (size_t i : runs) {
        const auto& run = m_result.runs[i];
        const auto s = bench::summarize(run);
        const QString unit = q(run.unit).toHtmlEscaped();
        html += QStringLiteral("<h3>%1</h3>").arg(q(s.title).toHtmlEscaped());
        html += tr("<p><b>Timer:</b> %1 (<code>%2</code>)<br><b>Samples:</b> %3<br>")
                    .arg(q(s.timerLabel).toHtmlEscaped(), q(std::string(bench::timerKey(run.options.timer))),
                        q(s.basis).toHtmlEscaped());
        html += tr("<b>Median %1 %2</b> &middot; mean %3 &middot; min %4 &middot; max %5 &middot; CoV %6<br>")
                    .arg(num(s.stats.median), unit, num(s.stats.mean), num(s.stats.min), num(s.stats.max),
                        percent(s.stats.cov));
        html += tr("Rounds: CoV %1, drift %2 (first quarter vs rest %3)<br>")
                    .arg(percent(s.roundStats.cov), QString::fromLatin1(bench::trendName(s.drift.trend)),
                        percent(s.drift.earlyVsRest));
        html += tr("Warm-up: %1 calls in %2 ms</p>").arg(run.warmupCalls).arg(num(run.warmupElapsedMs, 1));
        for (const auto& t : s.throughput) {
            html += tr("<p><b>%1 %2</b> (%3 throughput)<br><code>%4</code></p>")
                        .arg(num(t.value, 1), q(t.unit),
                            t.kind == bench::ThroughputKind::Kernel ? tr("kernel") : tr("effective"),
                            q(t.formula).toHtmlEscaped());
        }
        if (run.check.performed) {
            html += tr("<p><b>Check:</b> %1, %2 of %3 elements against %4 (rtol %5, atol %6, max abs error %7)</p>")
                        .arg(run.check.passed ? tr("passed") : tr("FAILED"))
                        .arg(run.check.checked)
                        .arg(run.check.total)
                        .arg(q(run.check.reference).toHtmlEscaped())
                        .arg(run.check.rtol)
                        .arg(run.check.atol)
                        .arg(run.check.maxAbsError, 0, 'g', 3);
        }
        html += tr("<p><b>Boundary:</b> %1</p>").arg(q(run.boundary).toHtmlEscaped());
        for (const auto& w : s.warnings)
            html += QStringLiteral("<p style=\"color:#b00000\"><b>%1</b> %2</p>")
                        .arg(tr("Warning:"), q(w).toHtmlEscaped());
    }
    return html;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/launchpanel.h"

#include "core/diagnosis/occupancycurves.h"
#include "core/metrics/metricnames.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/plotstyle.h"
#include "ui/panels/sectionrows.h"

#include <qcustomplot.h>

#include <cmath>
#include <map>

namespace ws {

namespace {

struct KernelOccupancy {
    bool valid = false;
    QString why; // when not valid
    ArchitectureLimits limits;
    OccupancyCurves curves;
    int smCount = 0;
};

KernelOccupancy occupancyOf(const PanelData& data, const ShownKernel& k)
{
    KernelOccupancy o;
    const DeviceInfo* device = data.device(k.config->deviceId);
    if (!device) {
        o.why = QObject::tr("no device record");
        return o;
    }
    if (!ArchitectureLimits::forDevice(*device, o.limits)) {
        o.why = QObject::tr("compute capability %1.%2 is not in the occupancy tables")
                    .arg(device->ccMajor)
                    .arg(device->ccMinor);
        return o;
    }
    if (k.config->blockThreads() <= 0) {
        o.why = QObject::tr("the record has no block size");
        return o;
    }
    o.smCount = device->smCount;
    o.curves = occupancyCurves(OccupancyCalculator(o.limits), occupancyInput(*k.config, o.limits));
    o.valid = true;
    return o;
}

void plotCurve(QCustomPlot* plot, const QList<ShownKernel>& shown, const std::vector<KernelOccupancy>& occ,
    const std::vector<OccupancyCurvePoint> OccupancyCurves::*member, double xScale,
    double currentX(const KernelOccupancy&), const QString& xLabel, const QString& unitText)
{
    plotstyle::clear(plot);
    double maxX = 0;
    int maxWarps = 0;
    struct Label {
        double x, y;
        QString text;
        QColor color;
    };
    std::vector<Label> labels;
    for (int i = 0; i < shown.size(); ++i) {
        const KernelOccupancy& o = occ[static_cast<size_t>(i)];
        if (!o.valid)
            continue;
        maxWarps = o.limits.maxWarpsPerSm;
        const auto& points = o.curves.*member;
        QVector<double> x;
        QVector<double> y;
        for (const auto& p : points) {
            x << p.x / xScale;
            y << p.occupancyPct;
            maxX = std::max(maxX, p.x / xScale);
        }
        QCPGraph* g = plot->addGraph();
        g->setName(shown[i].title);
        g->setPen(QPen(shown[i].color, 2));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setData(x, y, true);
        // The launch's own point.
        const double cx = currentX(o) / xScale;
        QCPGraph* mark = plot->addGraph();
        mark->removeFromLegend();
        mark->setLineStyle(QCPGraph::lsNone);
        mark->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(plotstyle::ink(plot), 1.5), shown[i].color, 11));
        mark->setData({cx}, {o.curves.current.occupancyPct});
        labels.push_back({cx, o.curves.current.occupancyPct,
            QStringLiteral("%1: %2 %3 → %4%")
                .arg(shown[i].title.section(QLatin1Char(' '), 0, 0))
                .arg(panelformat::number(cx, 4), unitText)
                .arg(o.curves.current.occupancyPct, 0, 'f', 1),
            shown[i].color.darker(140)});
    }
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(maxWarps > 0 ? QObject::tr("theoretical occupancy (%, of %1 warps/SM)").arg(maxWarps)
                                       : QObject::tr("theoretical occupancy (%)"));
    plot->xAxis->setRange(0, std::max(1.0, maxX * 1.02));
    plot->yAxis->setRange(0, 108);
    plotstyle::legendBelow(plot);
    plot->replot(); // lays out the axes so the labels can keep inside them
    for (size_t i = 0; i < labels.size(); ++i)
        plotstyle::pointLabel(plot, labels[i].x, labels[i].y, labels[i].text, labels[i].color, static_cast<int>(i));
    plot->replot();
}

} // namespace

LaunchPanel::LaunchPanel(KernelFocus* focus, QWidget* parent)
    : DetailsPanel(focus, QStringLiteral("launchPanel"), parent)
    , m_regs(addPlot(QStringLiteral("occupancy-vs-registers"), 0, 0))
    , m_block(addPlot(QStringLiteral("occupancy-vs-block-size"), 0, 1))
    , m_smem(addPlot(QStringLiteral("occupancy-vs-shared-memory"), 1, 0))
    , m_occupancy(addPlot(QStringLiteral("occupancy-theoretical-vs-achieved"), 1, 1))
{
    for (QCustomPlot* p : {m_regs, m_block, m_smem, m_occupancy})
        p->setMinimumHeight(330);
    refresh();
}

void LaunchPanel::rebuild()
{
    const auto& session = m_focus->data();
    std::vector<KernelOccupancy> occ;
    for (const ShownKernel& k : m_shown)
        occ.push_back(session ? occupancyOf(*session, k) : KernelOccupancy {});
    std::map<qint64, size_t> index;
    for (int i = 0; i < m_shown.size(); ++i)
        index[m_shown[i].kernelId] = static_cast<size_t>(i);
    auto o = [&](const ShownKernel& k) -> const KernelOccupancy& { return occ[index.at(k.kernelId)]; };
    auto metricOf = [](const ShownKernel& k, const char* name) -> std::optional<double> {
        return k.profiled ? k.profiled->metrics.get(name) : std::nullopt;
    };

    // The table: the `panel launch` blocks of the section files (LaunchStats, Occupancy).
    const std::vector<MetricRow> rows = sectionRows("launch", m_shown, session.get());
    table()->set(kernelColumns(), rows);

    // Curves.
    QString device;
    if (session && !m_shown.isEmpty())
        if (const DeviceInfo* d = session->device(m_shown.front().config->deviceId))
            device = QString::fromStdString(d->name);
    const QString sub = tr("occupancy calculator%1; the other resources stay at each launch's values")
                            .arg(device.isEmpty() ? QString() : QStringLiteral(", ") + device);
    if (m_shown.isEmpty()) {
        for (QCustomPlot* p : {m_regs, m_block, m_smem, m_occupancy})
            plotstyle::showMessage(p, tr("No kernel selected"));
        return;
    }
    plotstyle::setTitle(m_regs, tr("Theoretical occupancy vs registers per thread"), sub);
    plotCurve(
        m_regs, m_shown, occ, &OccupancyCurves::byRegisters, 1.0,
        [](const KernelOccupancy& k) { return static_cast<double>(k.curves.input.registersPerThread); },
        tr("registers per thread"), tr("regs"));
    plotstyle::setTitle(m_block, tr("Theoretical occupancy vs block size"), sub);
    plotCurve(
        m_block, m_shown, occ, &OccupancyCurves::byBlockSize, 1.0,
        [](const KernelOccupancy& k) { return static_cast<double>(k.curves.input.blockSize); }, tr("threads per block"),
        tr("threads"));
    plotstyle::setTitle(m_smem, tr("Theoretical occupancy vs shared memory per block"), sub);
    plotCurve(
        m_smem, m_shown, occ, &OccupancyCurves::bySharedMem, 1024.0,
        [](const KernelOccupancy& k) {
            return static_cast<double>(k.curves.input.staticSmemBytes + k.curves.input.dynamicSmemBytes);
        },
        tr("shared memory per block (KiB, static + dynamic)"), tr("KiB"));

    // Theoretical vs achieved.
    plotstyle::setTitle(m_occupancy, tr("Occupancy: theoretical vs achieved"),
        tr("% of the SM's warp slots; achieved is measured (n/c without metrics)"));
    QList<plotstyle::BarSeries> series;
    for (const ShownKernel& k : m_shown) {
        const double theo = o(k).valid ? o(k).curves.current.occupancyPct : std::nan("");
        const auto ach = metricOf(k, metric::kAchievedOccupancy);
        series.append({k.title, k.color,
            {metricOf(k, metric::kTheoreticalOccupancy).value_or(theo), ach.value_or(std::nan(""))}});
    }
    plotstyle::BarChart chart;
    chart.categories = {tr("Theoretical"), tr("Achieved")};
    chart.valueLabel = tr("occupancy (% of max warps per SM)");
    chart.valueMax = 115;
    chart.valueText = [](double v, int, int) { return QStringLiteral("%1%").arg(v, 0, 'f', 1); };
    plotstyle::groupedBars(m_occupancy, chart, series);
}

} // namespace ws

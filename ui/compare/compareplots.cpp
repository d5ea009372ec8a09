// SPDX-License-Identifier: MIT
#include "ui/compare/compareplots.h"

#include "core/metrics/kernelfacts.h"
#include "core/ranking/compactname.h"
#include "core/roofline/roofline.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/plotstyle.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace ws {

namespace {

const QColor kColorA(70, 110, 190);
const QColor kColorB(220, 120, 30);

QString fmt(double v, int digits)
{
    return QString::number(v, 'f', digits);
}

} // namespace

DistributionPlot::DistributionPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(plotstyle::makePlot(QStringLiteral("compareDistribution"), this))
{
    setObjectName(QStringLiteral("distributionPlot"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_plot);
    panelexport::addPlotExportMenu(m_plot, QStringLiteral("compare-distribution"));
}

void DistributionPlot::setData(const std::vector<double>& a, const std::vector<double>& b, const QString& what,
    const QString& unit, const compare::Verdict& verdict)
{
    plotstyle::clear(m_plot);
    const QString subtitle = verdict.kind == compare::VerdictKind::TooFewSamples
        ? QString::fromStdString(verdict.text)
        : tr("median B/A %1, 95% CI [%2, %3]\nMann-Whitney p = %4, n = %5 / %6: %7 (threshold %8%)")
              .arg(fmt(verdict.ratio.ratio, 4), fmt(verdict.ratio.low, 4), fmt(verdict.ratio.high, 4),
                  QString::number(verdict.test.pValue, 'g', 3))
              .arg(verdict.countA)
              .arg(verdict.countB)
              .arg(QString::fromLatin1(compare::verdictName(verdict.kind)))
              .arg(verdict.rule.thresholdPct, 0, 'f', 1);
    plotstyle::setTitle(m_plot, tr("%1: A vs B").arg(what), subtitle);
    if (a.empty() || b.empty()) {
        plotstyle::showMessage(m_plot, tr("No samples to compare."));
        return;
    }
    double lo = std::min(*std::min_element(a.begin(), a.end()), *std::min_element(b.begin(), b.end()));
    double hi = std::max(*std::max_element(a.begin(), a.end()), *std::max_element(b.begin(), b.end()));
    if (hi <= lo)
        hi = lo + 1;
    // Robust range: 1st to 99th percentile of the pooled samples, so one outlier does not
    // squeeze both distributions into a single bin (outliers land in the edge bins).
    std::vector<double> pooled(a);
    pooled.insert(pooled.end(), b.begin(), b.end());
    std::sort(pooled.begin(), pooled.end());
    if (pooled.size() >= 50) {
        lo = pooled[pooled.size() / 100];
        hi = pooled[pooled.size() - 1 - pooled.size() / 100];
        if (hi <= lo)
            hi = lo + 1;
    }
    const int bins = std::clamp(static_cast<int>(std::sqrt(double(pooled.size())) * 1.5), 10, 60);
    const double width = (hi - lo) / bins;
    const auto histogram = [&](const std::vector<double>& v) {
        QVector<double> share(bins, 0.0);
        for (double x : v) {
            const int i = std::clamp(static_cast<int>((x - lo) / width), 0, bins - 1);
            share[i] += 100.0 / static_cast<double>(v.size());
        }
        return share;
    };
    QVector<double> centers(bins);
    for (int i = 0; i < bins; ++i)
        centers[i] = lo + (i + 0.5) * width;
    double top = 0;
    const auto addSeries = [&](const std::vector<double>& v, const QColor& color, const QString& name) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(name);
        bars->setWidth(width);
        QColor fill = color;
        fill.setAlpha(110);
        bars->setBrush(fill);
        bars->setPen(QPen(color.darker(120), 1));
        const auto h = histogram(v);
        bars->setData(centers, h);
        top = std::max(top, *std::max_element(h.begin(), h.end()));
    };
    addSeries(a, kColorA, tr("A (baseline), n = %1").arg(a.size()));
    addSeries(b, kColorB, tr("B, n = %1").arg(b.size()));
    m_plot->xAxis->setLabel(tr("%1 (%2)").arg(what, unit));
    m_plot->yAxis->setLabel(tr("% of samples per bin"));
    m_plot->xAxis->setRange(lo - width, hi + width);
    m_plot->yAxis->setRange(0, top * 1.25);
    const auto medianLine = [&](double m, const QColor& color, const QString& label, int stack) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(m, 0);
        line->point2->setCoords(m, 1);
        line->setPen(QPen(color, 2, Qt::DashLine));
        plotstyle::pointLabel(m_plot, m, top * 1.15, label, color, stack);
    };
    medianLine(verdict.medianA, kColorA.darker(130), tr("median A %1").arg(fmt(verdict.medianA, 2)), 0);
    medianLine(verdict.medianB, kColorB.darker(130), tr("median B %1").arg(fmt(verdict.medianB, 2)), 1);
    plotstyle::legendBelow(m_plot, true);
    m_plot->replot();
}

RooflineComparePlot::RooflineComparePlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(plotstyle::makePlot(QStringLiteral("compareRoofline"), this))
{
    setObjectName(QStringLiteral("rooflineComparePlot"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_plot);
    panelexport::addPlotExportMenu(m_plot, QStringLiteral("compare-roofline"));
}

void RooflineComparePlot::setComparison(
    const compare::CompareSession* a, const compare::CompareSession* b, const compare::Comparison* comparison)
{
    plotstyle::clear(m_plot);
    m_arrows = 0;
    plotstyle::setTitle(m_plot, tr("Roofline: A → B"),
        tr("DRAM level, median of each kernel's profiled launches; roofs from B's device"));
    if (!a || !b || !comparison) {
        plotstyle::showMessage(m_plot, tr("No comparison loaded."));
        return;
    }
    if (a->metrics.empty() || b->metrics.empty()) {
        plotstyle::showMessage(m_plot,
            tr("Kernel metrics were not collected in %1.\nCollect them in both sessions for the roofline:\n"
               "right-click a kernel in the main window → Collect metrics for this launch.")
                .arg(a->metrics.empty() && b->metrics.empty() ? tr("A and B")
                                                              : (a->metrics.empty() ? tr("A") : tr("B"))));
        return;
    }
    const DeviceInfo device = !b->data.devices.empty() ? b->data.devices.front() : DeviceInfo {};
    const RooflineCeilings ceilings = RooflineCeilings::fromDevice(device);
    // One arrow per matched kernel; kernels only one side has get their point alone (a kernel
    // that a change removed, like a ReLU fused into a GEMM, is part of the picture).
    struct Arrow {
        std::optional<RooflinePoint> from, to;
        QString name;
    };
    std::vector<Arrow> arrows;
    const auto point = [&](const compare::CompareSession& s, int key, double medianNs) {
        if (key < 0)
            return std::optional<RooflinePoint>();
        const KernelFacts facts = kernelFacts(compare::keyMetrics(s, static_cast<uint32_t>(key)), medianNs);
        for (const RooflinePoint& p : rooflinePoints(0, facts, ceilings)) {
            if (p.level == MemoryLevel::Dram)
                return std::optional<RooflinePoint>(p);
        }
        return std::optional<RooflinePoint>();
    };
    for (const auto& row : comparison->kernels) {
        const auto pa = point(*a, row.keyA, row.medianA);
        const auto pb = point(*b, row.keyB, row.medianB);
        if ((row.matched() && pa && pb) || (!row.matched() && (pa || pb)))
            arrows.push_back({pa, pb, QString::fromStdString(compactKernelName(row.name, 32))});
    }
    if (arrows.empty()) {
        plotstyle::showMessage(m_plot, tr("No kernel has FLOP counts and DRAM bytes in the profiled launches."));
        return;
    }
    double xMin = 1e300, xMax = 0, yMin = 1e300, yMax = 0;
    for (const auto& ar : arrows) {
        for (const auto* p : {&ar.from, &ar.to}) {
            if (!*p)
                continue;
            xMin = std::min(xMin, (*p)->intensity / 4);
            xMax = std::max(xMax, (*p)->intensity * 4);
            yMin = std::min(yMin, (*p)->flopsPerS / 6);
            yMax = std::max(yMax, (*p)->flopsPerS * 4);
        }
    }
    double topPeak = 0;
    for (const ComputeCeiling& c : ceilings.compute)
        topPeak = std::max(topPeak, c.flopsPerS);
    if (topPeak > 0)
        yMax = std::max(yMax, topPeak * 2);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setLogBase(10);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("arithmetic intensity (FLOP / DRAM byte)"));
    m_plot->yAxis->setLabel(tr("performance (FLOP/s)"));
    m_plot->xAxis->setRange(xMin, xMax);
    m_plot->yAxis->setRange(yMin, yMax);
    // Roofs labelled on the plot, not in the legend: the DRAM slope and the compute roof of each
    // precision the kernels use.
    QFont small = m_plot->font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    const auto roofLabel = [&](double x, double y, const QString& text, const QColor& color, Qt::Alignment align) {
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(x, y);
        label->setPositionAlignment(align);
        label->setText(text);
        label->setColor(plotstyle::readable(m_plot, color));
        label->setFont(small);
    };
    // The compute roof of each precision the kernels use (e.g. BF16 tensor for a BF16 GEMM).
    std::vector<std::pair<double, QString>> roofs;
    for (const auto& ar : arrows) {
        const RooflinePoint& any = ar.to ? *ar.to : *ar.from;
        const auto peak = ceilings.peakFor(any.precision);
        if (!peak || std::any_of(roofs.begin(), roofs.end(), [&](const auto& r) { return r.first == *peak; }))
            continue;
        // The roof named for this precision, else the first of the same height.
        const ComputeCeiling* named = nullptr;
        for (const ComputeCeiling& c : ceilings.compute) {
            if (c.precision == any.precision || (!named && c.flopsPerS == *peak))
                named = &c;
            if (c.precision == any.precision)
                break;
        }
        roofs.emplace_back(*peak, named ? QString::fromStdString(named->label) : QString::fromStdString(any.precision));
    }
    double roofTop = 0;
    for (const auto& r : roofs)
        roofTop = std::max(roofTop, r.first);
    if (const auto bw = ceilings.bandwidthOf(MemoryLevel::Dram)) {
        const double xEnd = roofTop > 0 ? std::min(xMax, roofTop / *bw) : xMax;
        QCPGraph* g = m_plot->addGraph();
        g->setPen(QPen(QColor(150, 60, 40), 2));
        g->setData({xMin, xEnd}, {xMin * *bw, xEnd * *bw}, true);
        g->removeFromLegend();
        const double lx = std::max(xMin * 1.6, std::min(xEnd / 30, yMin * 4 / *bw));
        roofLabel(lx, lx * *bw, tr("DRAM %1/s").arg(panelformat::bytes(*bw)), QColor(150, 60, 40),
            Qt::AlignLeft | Qt::AlignBottom);
    }
    for (const auto& [peak, label] : roofs) {
        QCPGraph* g = m_plot->addGraph();
        g->setPen(QPen(plotstyle::readable(m_plot, QColor(60, 60, 90)), 1.6));
        g->setData({xMin, xMax}, {peak, peak}, true);
        g->removeFromLegend();
        roofLabel(xMax / 1.15, peak, label, plotstyle::readable(m_plot, QColor(60, 60, 90)),
            Qt::AlignRight | Qt::AlignBottom);
    }
    QCPGraph* pointsA = m_plot->addGraph();
    pointsA->setName(tr("A (baseline)"));
    pointsA->setLineStyle(QCPGraph::lsNone);
    pointsA->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kColorA.darker(120), kColorA, 9));
    QCPGraph* pointsB = m_plot->addGraph();
    pointsB->setName(tr("B"));
    pointsB->setLineStyle(QCPGraph::lsNone);
    pointsB->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kColorB, kColorB, 9));
    int stack = 0;
    for (const auto& ar : arrows) {
        if (ar.from)
            pointsA->addData(ar.from->intensity, ar.from->flopsPerS);
        if (ar.to)
            pointsB->addData(ar.to->intensity, ar.to->flopsPerS);
        const RooflinePoint& at = ar.to ? *ar.to : *ar.from;
        QString label;
        if (ar.from && ar.to) {
            auto* line = new QCPItemLine(m_plot);
            line->start->setCoords(ar.from->intensity, ar.from->flopsPerS);
            line->end->setCoords(ar.to->intensity, ar.to->flopsPerS);
            // No head on an arrow shorter than the head (under 2% of a decade on both log
            // axes): the two points say it all.
            const double dx = std::fabs(std::log10(ar.to->intensity / ar.from->intensity));
            const double dy = std::fabs(std::log10(ar.to->flopsPerS / ar.from->flopsPerS));
            if (std::max(dx, dy) > 0.02)
                line->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 10, 12));
            line->setPen(QPen(plotstyle::readable(m_plot, QColor(60, 60, 60)), 1.6));
            label = tr("%1 (%2% → %3% of roof)")
                        .arg(ar.name)
                        .arg(ar.from->pctOfRoof(), 0, 'f', 0)
                        .arg(ar.to->pctOfRoof(), 0, 'f', 0);
            ++m_arrows;
        } else {
            label = tr("%1 (only %2, %3% of roof)")
                        .arg(ar.name, ar.from ? tr("A") : tr("B"))
                        .arg(at.pctOfRoof(), 0, 'f', 0);
        }
        plotstyle::pointLabel(m_plot, at.intensity, at.flopsPerS, label, plotstyle::ink(m_plot), stack++);
    }
    plotstyle::legendBelow(m_plot, true);
    m_plot->replot();
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/memorypanel.h"

#include "core/metrics/metricnames.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/plotstyle.h"
#include "ui/panels/sectionrows.h"

#include <qcustomplot.h>

#include <cmath>

namespace ws {

namespace {

double nanIfMissing(const std::optional<double>& v, double scale = 1.0)
{
    return v ? *v / scale : std::nan("");
}

} // namespace

MemoryPanel::MemoryPanel(KernelFocus* focus, QWidget* parent)
    : DetailsPanel(focus, QStringLiteral("memoryPanel"), parent)
    , m_bytes(addPlot(QStringLiteral("memory-bytes-per-level"), 0, 0))
    , m_throughput(addPlot(QStringLiteral("memory-throughput-per-level"), 0, 1))
    , m_hits(addPlot(QStringLiteral("memory-hit-rates"), 1, 0))
    , m_sectors(addPlot(QStringLiteral("memory-sectors-per-request"), 1, 1))
{
    for (QCustomPlot* p : {m_bytes, m_throughput, m_hits, m_sectors})
        p->setMinimumHeight(250);
    refresh();
}

void MemoryPanel::rebuild()
{
    const auto& session = m_focus->data();
    // The table: the `panel memory` blocks of the section files (MemoryWorkloadAnalysis).
    table()->set(kernelColumns(), sectionRows("memory", m_shown, session.get()));

    const bool any = anyProfiled();
    const QString none = m_shown.isEmpty() ? tr("No kernel selected") : notCollectedText();
    plotstyle::setTitle(m_bytes, tr("Bytes moved per memory level"), tr("whole kernel, MB (10^6 bytes)"));
    plotstyle::setTitle(m_throughput, tr("Throughput per memory level"), QString());
    plotstyle::setTitle(m_hits, tr("Cache hit rates"), tr("% of sectors requested that hit"));
    plotstyle::setTitle(m_sectors, tr("Sectors per request (global memory)"),
        tr("32-byte sectors per warp-level request; 4 is ideal for 4-byte words"));
    if (!any) {
        for (QCustomPlot* p : {m_bytes, m_throughput, m_hits, m_sectors})
            plotstyle::showMessage(p, none);
        return;
    }
    const QStringList levels = {tr("L1/TEX"), tr("L2"), tr("DRAM read"), tr("DRAM write")};
    {
        plotstyle::BarChart chart;
        chart.categories = levels;
        chart.valueLabel = tr("MB moved");
        chart.valueText = [](double v, int, int) { return panelformat::number(v, 3); };
        QList<plotstyle::BarSeries> series;
        for (const ShownKernel& k : m_shown)
            series << plotstyle::BarSeries {k.title, k.color,
                {nanIfMissing(k.facts.l1Bytes, 1e6), nanIfMissing(k.facts.l2Bytes, 1e6),
                    nanIfMissing(k.facts.dramReadBytes, 1e6), nanIfMissing(k.facts.dramWriteBytes, 1e6)}};
        plotstyle::groupedBars(m_bytes, chart, series);
    }
    {
        // Peaks from the session's device record, in the subtitle and as a note per level.
        QStringList peaks;
        if (session && !m_shown.isEmpty()) {
            const RooflineCeilings c = session->ceilings(m_shown.front().config->deviceId);
            for (const MemoryCeiling& m : c.memory)
                peaks << QStringLiteral("%1 %2").arg(
                    QString::fromLatin1(memoryLevelName(m.level)), panelformat::bytesPerSecond(m.bytesPerS));
        }
        plotstyle::setTitle(m_throughput, tr("Throughput per memory level"),
            tr("GB/s, bytes / duration%1")
                .arg(peaks.isEmpty() ? QString() : tr("; device peaks: ") + peaks.join(QStringLiteral(", "))));
        plotstyle::BarChart chart;
        chart.categories = {tr("L1/TEX"), tr("L2"), tr("DRAM")};
        chart.valueLabel = tr("GB/s");
        chart.valueText = [](double v, int, int) { return panelformat::number(v, 4); };
        QList<plotstyle::BarSeries> series;
        for (const ShownKernel& k : m_shown) {
            auto gbps = [&](const std::optional<double>& b) { return nanIfMissing(k.facts.perSecond(b), 1e9); };
            series << plotstyle::BarSeries {
                k.title, k.color, {gbps(k.facts.l1Bytes), gbps(k.facts.l2Bytes), gbps(k.facts.dramBytes)}};
        }
        plotstyle::groupedBars(m_throughput, chart, series);
        // The device's peak bandwidth of each level, where it has one and it is not so far off
        // the scale that the bars would vanish, as a dashed mark across that level's bars.
        if (session && !m_shown.isEmpty()) {
            const RooflineCeilings c = session->ceilings(m_shown.front().config->deviceId);
            const std::pair<MemoryLevel, int> rowsOf[]
                = {{MemoryLevel::L1, 0}, {MemoryLevel::L2, 1}, {MemoryLevel::Dram, 2}};
            double top = m_throughput->xAxis->range().upper;
            for (const auto& [level, category] : rowsOf) {
                const auto bw = c.bandwidthOf(level);
                if (!bw || *bw / 1e9 > 3 * top)
                    continue;
                const double x = *bw / 1e9;
                top = std::max(top, x * 1.12);
                auto* mark = new QCPItemLine(m_throughput);
                mark->start->setCoords(x, category - 0.45);
                mark->end->setCoords(x, category + 0.45);
                mark->setPen(QPen(plotstyle::readable(m_throughput, QColor(60, 60, 60)), 1.5, Qt::DashLine));
                auto* label = new QCPItemText(m_throughput);
                label->setColor(plotstyle::ink(m_throughput));
                label->position->setCoords(x, category - 0.45);
                label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
                label->setText(tr("peak %1 ").arg(panelformat::bytesPerSecond(*bw)));
                QFont f = m_throughput->font();
                f.setPointSizeF(f.pointSizeF() * 0.8);
                label->setFont(f);
            }
            m_throughput->xAxis->setRange(0, top);
            m_throughput->replot();
        }
    }
    {
        plotstyle::BarChart chart;
        chart.categories = {tr("L1/TEX"), tr("L2")};
        chart.valueLabel = tr("hit rate (%)");
        chart.valueMax = 112;
        chart.valueText = [](double v, int, int) { return QStringLiteral("%1%").arg(v, 0, 'f', 1); };
        QList<plotstyle::BarSeries> series;
        for (const ShownKernel& k : m_shown)
            series << plotstyle::BarSeries {
                k.title, k.color, {nanIfMissing(k.facts.l1HitRatePct), nanIfMissing(k.facts.l2HitRatePct)}};
        plotstyle::groupedBars(m_hits, chart, series);
    }
    {
        plotstyle::BarChart chart;
        chart.categories = {tr("Global loads"), tr("Global stores")};
        chart.valueLabel = tr("sectors per request");
        chart.valueText = [](double v, int, int) { return panelformat::number(v, 3); };
        QList<plotstyle::BarSeries> series;
        double top = 4;
        for (const ShownKernel& k : m_shown) {
            const double ld = nanIfMissing(k.facts.globalLoadSectorsPerRequest());
            const double st = nanIfMissing(k.facts.globalStoreSectorsPerRequest());
            series << plotstyle::BarSeries {k.title, k.color, {ld, st}};
            for (double v : {ld, st})
                if (!std::isnan(v))
                    top = std::max(top, v);
        }
        chart.valueMax = top * 1.25;
        plotstyle::groupedBars(m_sectors, chart, series);
        // The ideal, as a labelled line.
        auto* ideal = new QCPItemStraightLine(m_sectors);
        ideal->point1->setCoords(4, 0);
        ideal->point2->setCoords(4, 1);
        ideal->setPen(QPen(plotstyle::readable(m_sectors, QColor(60, 60, 60)), 1, Qt::DashLine));
        auto* label = new QCPItemText(m_sectors);
        label->setColor(plotstyle::ink(m_sectors));
        label->position->setCoords(4, -0.45);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(tr(" ideal 4"));
        m_sectors->replot();
    }
}

} // namespace ws

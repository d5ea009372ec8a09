// SPDX-License-Identifier: MIT
#include "ui/panels/rooflinepanel.h"

#include "core/ranking/compactname.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/plotstyle.h"
#include "ui/session/kernelactions.h"
#include "ui/style/timeformat.h"

#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ws {

namespace {

QCPScatterStyle::ScatterShape shapeOf(MemoryLevel level)
{
    switch (level) {
    case MemoryLevel::Dram:
        return QCPScatterStyle::ssCircle; // filled with the brush (ssDisc would take the pen colour)
    case MemoryLevel::L2:
        return QCPScatterStyle::ssSquare;
    case MemoryLevel::L1:
        return QCPScatterStyle::ssTriangle;
    }
    return QCPScatterStyle::ssDisc;
}

QString levelLabel(MemoryLevel level)
{
    switch (level) {
    case MemoryLevel::Dram:
        return QObject::tr("DRAM (●)");
    case MemoryLevel::L2:
        return QObject::tr("L2 (■)");
    case MemoryLevel::L1:
        return QObject::tr("L1 (▲)");
    }
    return {};
}

QColor roofColor(MemoryLevel level)
{
    switch (level) {
    case MemoryLevel::Dram:
        return QColor(150, 60, 40);
    case MemoryLevel::L2:
        return QColor(170, 110, 20);
    case MemoryLevel::L1:
        return QColor(110, 110, 40);
    }
    return Qt::black;
}

} // namespace

RooflinePanel::RooflinePanel(KernelFocus* focus, QWidget* parent)
    : QWidget(parent)
    , m_focus(focus)
    , m_plot(plotstyle::makePlot(QStringLiteral("roofline"), this))
    , m_note(new QLabel(this))
{
    setObjectName(QStringLiteral("rooflinePanel"));
    m_note->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("rooflineNote"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_note);
    m_plot->setMouseTracking(true);
    panelexport::addPlotExportMenu(m_plot, QStringLiteral("roofline"),
        [this](QMenu& menu, const QPoint& pos) { fillContextMenu(menu, QPointF(pos)); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &RooflinePanel::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &RooflinePanel::onMousePress);
    connect(m_focus, &KernelFocus::changed, this, &RooflinePanel::rebuild);
    connect(m_focus->selection(), &SelectionModel::timeRangeChanged, this, &RooflinePanel::rebuild);
    rebuild();
}

QString RooflinePanel::describe(const RooflinePoint& p) const
{
    const auto& session = m_focus->data();
    const QString name = session ? session->kernelName(p.kernelId) : QString();
    QString s = QStringLiteral("<b>#%1 %2</b><br>%3 level: %4 FLOP/byte, %5")
                    .arg(p.kernelId)
                    .arg(QString::fromStdString(compactKernelName(name.toStdString(), 70)).toHtmlEscaped(),
                        QString::fromLatin1(memoryLevelName(p.level)), panelformat::number(p.intensity, 4),
                        panelformat::flopsPerSecond(p.flopsPerS));
    if (p.attainableFlopsPerS > 0)
        s += tr("<br>roof at this intensity %1 → <b>%2% of roof</b>")
                 .arg(panelformat::flopsPerSecond(p.attainableFlopsPerS))
                 .arg(p.pctOfRoof(), 0, 'f', 1);
    s += tr("<br>%1 (%2) in %3 moving %4 at %5")
             .arg(panelformat::flop(p.flop), QString::fromStdString(p.precision),
                 formatDuration(static_cast<TimeNs>(p.seconds * 1e9)), panelformat::bytes(p.bytes),
                 QString::fromLatin1(memoryLevelName(p.level)));
    s += tr("<br><i>click to select this kernel</i>");
    return s;
}

void RooflinePanel::rebuild()
{
    plotstyle::clear(m_plot);
    m_points.clear();
    m_highlighted.clear();
    m_ceilings = {};
    const auto& session = m_focus->data();
    plotstyle::setTitle(
        m_plot, tr("Roofline"), tr("FLOP/s vs FLOP per byte, per memory level\nroofs from the session's device"));
    if (!session || session->launches.empty()) {
        plotstyle::showMessage(m_plot, session ? tr("No kernel launches in this session.") : m_focus->emptyText());
        m_note->clear();
        return;
    }
    if (!session->hasMetrics()) {
        plotstyle::showMessage(m_plot,
            tr("No kernel metrics in this session:\nright-click a kernel →\nCollect metrics for this launch\n"
               "(--set full measures the roofline)"));
        m_note->setText(tr("The roofline needs FLOP counts and bytes per memory level from a profile run."));
        return;
    }
    // Points of the profiled launches inside the time window.
    const TimeRange range = m_focus->selection()->timeRange();
    const TimeWindow window = range.isEmpty() ? TimeWindow {} : TimeWindow {range.begin, range.end};
    uint32_t deviceId = 0;
    bool deviceSet = false;
    std::map<std::string, int> whyNot;
    int profiledInWindow = 0;
    for (const SessionMetrics::Kernel& k : session->metrics.kernels()) {
        const KernelLaunchTable::Launch* l = session->launches.find(k.launch.id);
        if (!l || !(window.isEmpty() || window.overlaps(l->start, l->end)))
            continue;
        ++profiledInWindow;
        if (!deviceSet) {
            deviceId = l->deviceId;
            deviceSet = true;
            m_ceilings = session->ceilings(deviceId);
        }
        std::string why;
        const auto pts = rooflinePoints(k.launch.id, session->facts(k.launch.id), m_ceilings, &why);
        if (pts.empty())
            ++whyNot[why];
        m_points.insert(m_points.end(), pts.begin(), pts.end());
    }

    // Axis ranges from the points and the roofs.
    double xMin = 1e-2, xMax = 1e4, yMin = 1e11, yMax = 1e12;
    double topPeak = 0;
    for (const ComputeCeiling& c : m_ceilings.compute)
        topPeak = std::max(topPeak, c.flopsPerS);
    if (topPeak > 0)
        yMax = topPeak * 3;
    for (const RooflinePoint& p : m_points) {
        xMin = std::min(xMin, p.intensity / 3);
        xMax = std::max(xMax, p.intensity * 3);
        yMin = std::min(yMin, p.flopsPerS / 5);
        yMax = std::max(yMax, p.flopsPerS * 3);
    }
    for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis}) {
        a->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        a->setTicker(ticker);
        a->setNumberFormat(QStringLiteral("eb"));
        a->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("arithmetic intensity (FLOP / byte moved at the level)"));
    m_plot->yAxis->setLabel(tr("performance (FLOP/s)"));
    m_plot->xAxis->setRange(xMin, xMax);
    m_plot->yAxis->setRange(yMin, yMax);

    // Roofs: each memory roof rises until it meets the highest compute roof; each compute roof
    // runs from where it meets the DRAM roof to the right edge.
    const std::optional<double> dram = m_ceilings.bandwidthOf(MemoryLevel::Dram);
    for (const MemoryCeiling& m : m_ceilings.memory) {
        const double xEnd = topPeak > 0 ? std::min(xMax, topPeak / m.bytesPerS) : xMax;
        QCPGraph* g = m_plot->addGraph();
        g->setName(QString::fromStdString(m.label));
        g->setPen(QPen(plotstyle::readable(m_plot, roofColor(m.level)), m.level == MemoryLevel::Dram ? 2.2 : 1.4,
            m.level == MemoryLevel::Dram ? Qt::SolidLine : Qt::DashLine));
        g->setData({xMin, xEnd}, {xMin * m.bytesPerS, xEnd * m.bytesPerS}, true);
        g->removeFromLegend();
        auto* label = new QCPItemText(m_plot);
        const double lx = std::max(xMin * 1.6, std::min(xEnd / 30, yMin * 4 / m.bytesPerS));
        label->position->setCoords(lx, lx * m.bytesPerS);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setText(QString::fromStdString(m.label));
        label->setColor(plotstyle::readable(m_plot, roofColor(m.level)));
        QFont f = m_plot->font();
        f.setPointSizeF(f.pointSizeF() * 0.8);
        label->setFont(f);
    }
    // Roofs of equal height (BF16 and FP16 tensor) are one line with one label.
    std::vector<std::pair<double, QString>> roofs;
    for (const ComputeCeiling& c : m_ceilings.compute) {
        const QString label = QString::fromStdString(c.label);
        if (!roofs.empty() && roofs.back().first == c.flopsPerS) {
            const QString name = label.section(QStringLiteral("  "), 0, 0);
            roofs.back().second.replace(QStringLiteral("  "), QStringLiteral(" = ") + name + QStringLiteral("  "));
        } else {
            roofs.emplace_back(c.flopsPerS, label);
        }
    }
    for (size_t i = 0; i < roofs.size(); ++i) {
        const double peak = roofs[i].first;
        const double xStart = dram ? std::max(xMin, peak / *dram) : xMin;
        QCPGraph* g = m_plot->addGraph();
        g->setPen(QPen(plotstyle::readable(m_plot, QColor(60, 60, 90)), i == 0 ? 2.0 : 1.2,
            i == 0 ? Qt::SolidLine : Qt::DashLine));
        g->setData({xStart, xMax}, {peak, peak}, true);
        g->removeFromLegend();
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(xMax / 1.15, peak);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        label->setText(roofs[i].second);
        label->setColor(plotstyle::readable(m_plot, QColor(60, 60, 90)));
        QFont f = m_plot->font();
        f.setPointSizeF(f.pointSizeF() * 0.8);
        label->setFont(f);
    }

    // All points, small and grey-blue, one graph per level (the shape says the level).
    for (MemoryLevel level : {MemoryLevel::Dram, MemoryLevel::L2, MemoryLevel::L1}) {
        QVector<double> x, y;
        for (const RooflinePoint& p : m_points) {
            if (p.level == level) {
                x << p.intensity;
                y << p.flopsPerS;
            }
        }
        QCPGraph* g = m_plot->addGraph();
        g->setName(tr("%1 all launches").arg(levelLabel(level)));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(shapeOf(level), QColor(90, 110, 140), QColor(150, 170, 200, 160), 7));
        g->setData(x, y);
        if (x.isEmpty())
            g->removeFromLegend();
    }
    // The shown kernels: large, in their colours, joined across levels and labelled.
    struct Label {
        double x, y;
        QString text;
        QColor color;
    };
    std::vector<Label> labels;
    int colorIndex = 0;
    for (const KernelFocus::Column& c : m_focus->columns()) {
        const QColor color = panelformat::seriesColor(colorIndex++);
        std::vector<const RooflinePoint*> mine;
        for (const RooflinePoint& p : m_points) {
            if (p.kernelId == c.kernelId)
                mine.push_back(&p);
        }
        if (mine.empty())
            continue;
        m_highlighted.push_back(c.kernelId);
        QCPGraph* line = m_plot->addGraph();
        line->setPen(QPen(color, 1.2, Qt::DotLine));
        line->removeFromLegend();
        QVector<double> lx, ly;
        for (const RooflinePoint* p : mine) {
            lx << p->intensity;
            ly << p->flopsPerS;
        }
        line->setData(lx, ly, false);
        line->setLineStyle(QCPGraph::lsLine);
        for (const RooflinePoint* p : mine) {
            QCPGraph* g = m_plot->addGraph();
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(shapeOf(p->level), QPen(plotstyle::ink(m_plot), 1.5), color, 13));
            g->setData({p->intensity}, {p->flopsPerS});
            if (p == mine.front())
                g->setName(QStringLiteral("#%1 %2")
                               .arg(c.kernelId)
                               .arg(QString::fromStdString(
                                   compactKernelName(session->kernelName(c.kernelId).toStdString(), 30))));
            else
                g->removeFromLegend();
        }
        const RooflinePoint* first = mine.front();
        QString text
            = QStringLiteral("#%1 %2")
                  .arg(c.kernelId)
                  .arg(QString::fromStdString(compactKernelName(session->kernelName(c.kernelId).toStdString(), 30)));
        if (first->attainableFlopsPerS > 0)
            text += tr("\n%1: %2% of roof")
                        .arg(QString::fromLatin1(memoryLevelName(first->level)))
                        .arg(first->pctOfRoof(), 0, 'f', 0);
        labels.push_back({first->intensity, first->flopsPerS, text, color.darker(150)});
    }
    plotstyle::legendBelow(m_plot, true);
    m_plot->replot(); // lays the axes out so the labels can stay inside them
    for (size_t i = 0; i < labels.size(); ++i)
        plotstyle::pointLabel(m_plot, labels[i].x, labels[i].y, labels[i].text, labels[i].color, static_cast<int>(i));
    m_plot->replot();

    QStringList note;
    note << tr("%1 profiled launches%2, %3 points.")
                .arg(profiledInWindow)
                .arg(window.isEmpty() ? QString() : tr(" in the range selection"))
                .arg(m_points.size());
    for (const auto& [why, n] : whyNot)
        note << tr("%1 without a point: %2.").arg(n).arg(QString::fromStdString(why));
    if (!m_ceilings.missing.empty()) {
        QStringList missing;
        for (const std::string& m : m_ceilings.missing)
            missing << QString::fromStdString(m);
        note << tr("No roof for %1 (not in the device record).").arg(missing.join(QStringLiteral(", ")));
    }
    // Where the shown kernels' points come from (a profile run's launch linked to the traced one),
    // or that the selected launch has none.
    for (const KernelFocus::Column& c : m_focus->columns()) {
        const QString from = session->metricsProvenance(c.kernelId);
        note << QStringLiteral("#%1: %2.").arg(c.kernelId).arg(from.isEmpty() ? PanelData::notProfiledText() : from);
    }
    m_note->setText(note.join(QLatin1Char(' ')));
}

int RooflinePanel::pointAt(const QPointF& pixel, double radius) const
{
    int best = -1;
    double bestDistance = radius;
    for (size_t i = 0; i < m_points.size(); ++i) {
        const double px = m_plot->xAxis->coordToPixel(m_points[i].intensity);
        const double py = m_plot->yAxis->coordToPixel(m_points[i].flopsPerS);
        const double d = std::hypot(px - pixel.x(), py - pixel.y());
        if (d <= bestDistance) {
            bestDistance = d;
            best = static_cast<int>(i);
        }
    }
    return best;
}

bool RooflinePanel::clickAt(const QPointF& pixel)
{
    const int i = pointAt(pixel);
    if (i < 0)
        return false;
    const qint64 id = m_points[static_cast<size_t>(i)].kernelId;
    m_focus->selectKernel(id);
    emit kernelActivated(id);
    return true;
}

void RooflinePanel::fillContextMenu(QMenu& menu, const QPointF& pixel)
{
    const int i = pointAt(pixel);
    if (i < 0 || !m_kernelActions)
        return;
    const auto& session = m_focus->data();
    // Points belong to traced launches (a profile run's metrics show on the launch they link to).
    const qint64 id = session ? session->shownLaunch(m_points[static_cast<size_t>(i)].kernelId)
                              : m_points[static_cast<size_t>(i)].kernelId;
    m_kernelActions->addTo(&menu, id);
    menu.addSeparator();
}

void RooflinePanel::onMouseMove(QMouseEvent* e)
{
    const int i = pointAt(e->position());
    if (i < 0) {
        QToolTip::hideText();
        m_plot->setCursor(Qt::ArrowCursor);
        return;
    }
    m_plot->setCursor(Qt::PointingHandCursor);
    QToolTip::showText(e->globalPosition().toPoint(), describe(m_points[static_cast<size_t>(i)]), m_plot);
}

void RooflinePanel::onMousePress(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton)
        clickAt(e->position());
}

void RooflinePanel::setKernelActions(KernelActions* actions)
{
    m_kernelActions = actions;
}

} // namespace ws

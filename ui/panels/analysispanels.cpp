// SPDX-License-Identifier: MIT
#include "ui/panels/analysispanels.h"

#include "ui/panels/diagnosispanel.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/launchpanel.h"
#include "ui/panels/memorypanel.h"
#include "ui/panels/rooflinepanel.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/sourcepanel.h"
#include "ui/panels/statspanel.h"
#include "ui/panels/throughputpanel.h"
#include "ui/session/sessiondocument.h"
#include "ui/session/sessionsnapshot.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

#include <cmath>
#include <qcustomplot.h>

namespace ws {

AnalysisPanels::AnalysisPanels(SelectionModel* selection, QWidget* parent)
    : QObject(parent)
    , m_focus(new KernelFocus(selection, this))
    , m_ranking(new KernelRankingPanel(m_focus, parent))
    , m_stats(new StatsPanel(m_focus, parent))
    , m_launch(new LaunchPanel(m_focus, parent))
    , m_throughput(new ThroughputPanel(m_focus, parent))
    , m_scheduler(new SchedulerPanel(m_focus, parent))
    , m_memory(new MemoryPanel(m_focus, parent))
    , m_roofline(new RooflinePanel(m_focus, parent))
    , m_diagnosis(new DiagnosisPanel(m_focus, parent))
    , m_source(new SourcePanel(m_focus, parent))
{
    for (QWidget* w : std::initializer_list<QWidget*> {
             m_ranking, m_stats, m_launch, m_throughput, m_scheduler, m_memory, m_roofline, m_diagnosis, m_source})
        w->hide();
    // A bar of the warp-state chart picks that stall reason in the Source panel, which then
    // highlights the instructions and lines where it dominates (bars are in stallOrder()).
    connect(m_scheduler->stallPlot(), &QCustomPlot::plottableClick, this,
        [this](QCPAbstractPlottable* plottable, int dataIndex, QMouseEvent*) {
            auto* bars = qobject_cast<QCPBars*>(plottable);
            if (!bars || !m_source || dataIndex < 0 || dataIndex >= bars->data()->size())
                return;
            const auto order = m_scheduler->stallOrder();
            const auto key = static_cast<size_t>(std::lround(bars->data()->at(dataIndex)->key));
            if (key < order.size())
                m_source->setStallReason(QString::fromStdString(order[key]));
        });
    connect(m_ranking, &KernelRankingPanel::kernelActivated, this, &AnalysisPanels::reveal);
    connect(m_roofline, &RooflinePanel::kernelActivated, this, &AnalysisPanels::reveal);
}

AnalysisPanels::~AnalysisPanels()
{
    // Panels first: their views emit selection signals while they are torn down, and those
    // reach the focus, which is deleted after this body.
    delete m_ranking.data();
    delete m_stats.data();
    delete m_launch.data();
    delete m_throughput.data();
    delete m_scheduler.data();
    delete m_memory.data();
    delete m_roofline.data();
    delete m_diagnosis.data();
    delete m_source.data();
}

void AnalysisPanels::addDocks(QMainWindow* window, QMenu* viewMenu)
{
    auto dock = [&](const QString& title, const QString& name, QWidget* w) {
        auto* d = new QDockWidget(title, window);
        d->setObjectName(name);
        d->setWidget(w);
        w->show();
        window->addDockWidget(Qt::BottomDockWidgetArea, d);
        if (viewMenu)
            viewMenu->addAction(d->toggleViewAction());
        m_docks.append(d);
        return d;
    };
    if (viewMenu)
        viewMenu->addSection(tr("Kernel analysis"));
    QDockWidget* kernels = dock(tr("Kernels"), QStringLiteral("kernelRankingDock"), m_ranking);
    QDockWidget* stats = dock(tr("Stats"), QStringLiteral("statsDock"), m_stats);
    QDockWidget* launch = dock(tr("Launch and Occupancy"), QStringLiteral("launchDock"), m_launch);
    QDockWidget* throughput = dock(tr("Throughput"), QStringLiteral("throughputDock"), m_throughput);
    QDockWidget* scheduler = dock(tr("Scheduler and Warp States"), QStringLiteral("schedulerDock"), m_scheduler);
    QDockWidget* memory = dock(tr("Memory"), QStringLiteral("memoryDock"), m_memory);
    QDockWidget* roofline = dock(tr("Roofline"), QStringLiteral("rooflineDock"), m_roofline);
    QDockWidget* diagnosis = dock(tr("Diagnosis"), QStringLiteral("diagnosisDock"), m_diagnosis);
    QDockWidget* source = dock(tr("Source"), QStringLiteral("sourceDock"), m_source);
    // Split first: splitting a dock that is already in a tab group adds a tab instead.
    window->splitDockWidget(kernels, launch, Qt::Horizontal);
    window->splitDockWidget(launch, roofline, Qt::Horizontal);
    window->tabifyDockWidget(kernels, stats);
    window->tabifyDockWidget(launch, throughput);
    window->tabifyDockWidget(throughput, scheduler);
    window->tabifyDockWidget(scheduler, memory);
    window->tabifyDockWidget(memory, source);
    window->tabifyDockWidget(roofline, diagnosis);
    kernels->raise();
    launch->raise();
    roofline->raise();
}

void AnalysisPanels::setKernelActions(KernelActions* actions)
{
    if (m_ranking)
        m_ranking->setKernelActions(actions);
    if (m_roofline)
        m_roofline->setKernelActions(actions);
}

void AnalysisPanels::setDocument(SessionDocument* document)
{
    connect(document, &SessionDocument::panelDataLoading, m_focus, &KernelFocus::setLoading);
    connect(document, &SessionDocument::panelDataReady, this, &AnalysisPanels::setData);
    connect(document, &SessionDocument::panelDataFailed, this, [this](const QString& path, const QString& reason) {
        setData(nullptr, nullptr);
        emit loadFailed(path, reason);
    });
}

void AnalysisPanels::setData(std::shared_ptr<const PanelData> data, std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_focus->setData(std::move(data), std::move(snapshot));
    emit dataReady();
}

void AnalysisPanels::reveal(qint64 kernelId)
{
    const EventSelection e = m_focus->eventFor(kernelId);
    if (e.isValid())
        emit revealRequested(e);
}

} // namespace ws

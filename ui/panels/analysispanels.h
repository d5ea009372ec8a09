// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/diagnosispanel.h"
#include "ui/panels/kernelfocus.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/launchpanel.h"
#include "ui/panels/memorypanel.h"
#include "ui/panels/paneldata.h"
#include "ui/panels/rooflinepanel.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/sourcepanel.h"
#include "ui/panels/statspanel.h"
#include "ui/panels/throughputpanel.h"
#include "ui/session/sessionsnapshot.h"

#include <QObject>
#include <QPointer>

#include <memory>

class QDockWidget;
class QMainWindow;
class QMenu;
class QWidget;

namespace ws {

class KernelActions;
class SessionDocument;

// The kernel analysis panels as one unit the main window docks (docs/panels.md): the ranking,
// the stats tables, the four details panels, the roofline and the diagnosis, all following the
// shared SelectionModel through one KernelFocus. The panels' data comes from the window's
// SessionDocument, which reads it on a worker thread after each session it opens.
class AnalysisPanels : public QObject {
    Q_OBJECT
public:
    // Panels are created as hidden children of `parent` until addDocks() moves them into docks.
    // They are deleted with this object (before the focus they read), wherever they sit.
    AnalysisPanels(SelectionModel* selection, QWidget* parent);
    ~AnalysisPanels() override;

    // One dock per panel in the bottom area (ranking + stats, the details, roofline +
    // diagnosis as three tab groups side by side), each toggled from `viewMenu` (may be null).
    // Docks are named (objectName) so QMainWindow::saveState/restoreState keep the layout.
    void addDocks(QMainWindow* window, QMenu* viewMenu);
    QList<QDockWidget*> docks() const { return m_docks; }

    // The collect actions of the ranking's and the roofline's context menus (the timeline takes
    // its own: TimelineView::setKernelActions).
    void setKernelActions(KernelActions* actions);

    KernelFocus* focus() const { return m_focus; }
    KernelRankingPanel* ranking() const { return m_ranking; }
    StatsPanel* stats() const { return m_stats; }
    LaunchPanel* launch() const { return m_launch; }
    ThroughputPanel* throughput() const { return m_throughput; }
    SchedulerPanel* scheduler() const { return m_scheduler; }
    MemoryPanel* memory() const { return m_memory; }
    RooflinePanel* roofline() const { return m_roofline; }
    DiagnosisPanel* diagnosis() const { return m_diagnosis; }
    SourcePanel* source() const { return m_source; }

public slots:
    // Shows the panel data `document` reads for each session it opens (and says so while it
    // reads).
    void setDocument(ws::SessionDocument* document);
    // Data already read (tests, or a caller that has it).
    void setData(std::shared_ptr<const ws::PanelData> data, std::shared_ptr<const ws::SessionSnapshot> snapshot);

signals:
    // A panel asked to see a launch on the timeline (double-click in the ranking, click in the
    // roofline): connect to TimelineView::revealEvent.
    void revealRequested(const ws::EventSelection& event);
    void dataReady();
    void loadFailed(const QString& path, const QString& reason);

private:
    void reveal(qint64 kernelId);

    KernelFocus* m_focus;
    // QPointer: a dock may have deleted its panel already when the window goes away.
    QPointer<KernelRankingPanel> m_ranking;
    QPointer<StatsPanel> m_stats;
    QPointer<LaunchPanel> m_launch;
    QPointer<ThroughputPanel> m_throughput;
    QPointer<SchedulerPanel> m_scheduler;
    QPointer<MemoryPanel> m_memory;
    QPointer<RooflinePanel> m_roofline;
    QPointer<DiagnosisPanel> m_diagnosis;
    QPointer<SourcePanel> m_source;
    QList<QDockWidget*> m_docks;
};

} // namespace ws

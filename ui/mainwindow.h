// SPDX-License-Identifier: MIT
#pragma once

#include "ui/fleet/fleetwindow.h"
#include "ui/session/selectionmodel.h"
#include "ui/session/sessionsnapshot.h"

#include "ui/run/rundialog.h"
#include "ui/run/sessionrecipe.h"
#include "ui/session/kernelactions.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>

#include <QSet>

#include <functional>
#include <memory>

class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QTemporaryDir;
class QTreeView;
class QTreeWidget;

namespace ws {

class AnalysisPanels;
class BackgroundJob;
class RunConfirmation;
class RunQueue;
class BenchPanel;
class EventSearch;
class FocusFrame;
class LegendModel;
class SelectionPanel;
class SessionDocument;
class TimelineRowModel;
class TimelineView;

// The Warpscope window (docs/timeline.md, ui.md): the timeline in the centre, dockable
// panels around it (Tracks, Legend, Selection, Session; the View menu toggles them and the
// layout is saved), File > Open / Open Recent / Reload / Record / drag and drop, a search
// box with next / previous, and a status bar with the path, device, events, last frame time
// and the selection.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a session file (asynchronously). `displayName` is what the title shows.
    void openFile(const QString& path, const QString& displayName = {});
    // The window of the last fleet result opened (a .wsfleet file given to openFile), or null.
    FleetWindow* fleetWindow() const { return m_fleet; }
    // Opens the session embedded in the binary (:/demo/h200-gemm-relu.wscope) through a
    // temporary copy (SQLite needs a file). Returns false, and says why in the window, when
    // this build has none.
    bool openDemo();
    static QString demoResourcePath();

    SelectionModel* selection() const { return m_selection; }
    TimelineView* timelineView() const { return m_view; }
    TimelineRowModel* rowModel() const { return m_rows; }
    LegendModel* legendModel() const { return m_legend; }
    EventSearch* search() const { return m_search; }
    SessionDocument* document() const { return m_document; }
    std::shared_ptr<const SessionSnapshot> snapshot() const { return m_snapshot; }
    QMessageBox* errorDialog() const { return m_errorDialog; }
    QLineEdit* searchBox() const { return m_searchBox; }
    QString statusText() const;
    AnalysisPanels* analysisPanels() const { return m_analysis; }
    BenchPanel* benchPanel() const { return m_bench; }
    // The frame around the dock or timeline that has the keyboard focus.
    FocusFrame* focusFrame() const { return m_focusFrame; }

    // File > Run...: the Run dialog. The window keeps it, so its log is there when reopened.
    RunDialog* showRunDialog();
    RunDialog* runDialog() const { return m_runDialog; }

    // The one KernelActions of the window: the kernel views' "collect metrics / sample stall
    // reasons for this launch" items, acted on here (collectKernel).
    KernelActions* kernelActions() const { return m_kernelActions; }
    // What the open session's runs say: its recipe, whether it can be re-run, how its target
    // ended (read off the GUI thread after every load; recipeRead() when it arrives).
    const SessionRecipe& sessionRecipe() const { return m_recipe; }
    // Appends a profile run of one launch to the open session (`warpscope-cli collect`) after
    // the user confirmed the exact command, then reloads the session in place.
    void collectKernel(const ws::KernelCollectionRequest& request);
    // Run again (Ctrl+Shift+R): repeats the open session's recipe into a new file (`warpscope-cli
    // rerun OLD -o NEW`) after confirmation, opens NEW and compares it with OLD.
    void runAgain();
    // Reads the open session again after runs were appended to it: the timeline keeps its zoom
    // and position and the same event stays selected, so the panels fill for it.
    void reloadInPlace();
    // Decides on a RunConfirmation (tests answer here; by default it is exec()'d). Returning
    // false runs nothing.
    void setConfirmationHandler(std::function<bool(RunConfirmation&)> handler) { m_confirm = std::move(handler); }
    // The queue that runs "collect" and "rerun" (its output, state, cancel).
    RunQueue* runQueue() const { return m_runQueue; }
    // Next / previous occurrence of the search box's text (N / Shift+N).
    void findNext() { searchStep(true); }
    void findPrevious() { searchStep(false); }

signals:
    void sessionLoaded();
    void recipeRead();
    // A "collect" or "Run again" ended (ok: every step succeeded).
    void runEnded(bool ok, const QString& message);
    void sessionFailed(const QString& path, const QString& reason);

protected:
    bool event(QEvent* e) override;
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void createActions();
    void createDocks();
    void createStatusBar();
    void onLoaded(std::shared_ptr<const ws::SessionSnapshot> snapshot);
    void onFailed(const QString& path, const QString& reason, bool cancelled);
    void showError(const QString& title, const QString& text);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void updateStatus();
    void searchStep(bool forward);
    // "3 of 48 in 2 names": the last found occurrence's position and the query's counts.
    void showSearchInfo();
    void openDialog();
    void readRecipe();
    void onRecipeRead(const SessionRecipe& recipe);
    void wireKernelActions();
    bool confirm(const QString& what, const QList<QStringList>& commands, bool offerDontAsk);
    void startQueued(const QString& what, const QList<RunStep>& steps, std::function<void(bool ok)> done);
    void updateTitle();
    // The default arrangement's sizes: the panels share the width, and the timeline gets the
    // height its rows need (up to about half the window), the panels the rest.
    void applyDefaultDockSizes();
    void fitTimelineToRows();
    void resetLayout();
    // A fleet result (python/warpscope/fleet): its heatmap in a window of its own; a click there
    // opens that rank's session here with the step in view.
    void openFleet(const QString& path);

    SelectionModel* m_selection;
    TimelineRowModel* m_rows;
    LegendModel* m_legend;
    SessionDocument* m_document;
    EventSearch* m_search;
    TimelineView* m_view;
    SelectionPanel* m_selectionPanel = nullptr;
    QTreeWidget* m_sessionInfo = nullptr;
    AnalysisPanels* m_analysis = nullptr;
    BenchPanel* m_bench = nullptr;
    FocusFrame* m_focusFrame = nullptr;
    std::shared_ptr<const SessionSnapshot> m_snapshot;
    std::unique_ptr<QTemporaryDir> m_demoDir;
    QString m_openedPath; // what the user opened (Reload opens it again)
    QString m_openedName;
    bool m_defaultDockSizes = false; // no saved layout of this version: size the docks on first show
    bool m_fitTimeline = false;      // default sizes: the next session shown sizes the timeline to its rows
    QByteArray m_defaultLayout;      // the arrangement createDocks() made, for View > Reset layout

    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QLineEdit* m_searchBox = nullptr;
    QLabel* m_searchInfo = nullptr;
    qint64 m_searchOrdinal = 0; // position of the last occurrence found, 0 = none yet
    qint64 m_searchEvents = 0;
    int m_searchNames = 0;
    QLabel* m_pathLabel = nullptr;
    QLabel* m_deviceLabel = nullptr;
    QLabel* m_eventsLabel = nullptr;
    QLabel* m_frameLabel = nullptr;
    QLabel* m_selectionLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QPointer<QMessageBox> m_errorDialog;
    QPointer<RunDialog> m_runDialog;
    KernelActions* m_kernelActions = nullptr;
    RunQueue* m_runQueue = nullptr;
    BackgroundJob* m_recipeJob = nullptr;
    BackgroundJob* m_kernelJob = nullptr;
    SessionRecipe m_recipe;
    QSet<QString> m_trusted; // sessions whose "don't ask again" was ticked
    std::function<bool(RunConfirmation&)> m_confirm;
    QLabel* m_runLabel = nullptr;
    QLabel* m_targetLabel = nullptr;
    QPushButton* m_runCancel = nullptr;
    // Reloading after a run appended to the open session keeps the view and the selection.
    bool m_keepView = false;
    TimeRange m_keptRange;
    QPointer<FleetWindow> m_fleet;
    EventSelection m_keptEvent;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/mainwindow.h"

#include "ui/session/dialogdirectory.h"

#include "ui/benchpanel.h"
#include "ui/compare/comparewindow.h"
#include "ui/fleet/fleetwindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/rooflinepanel.h"
#include "ui/run/runconfirmation.h"
#include "ui/run/rundialog.h"
#include "ui/run/runqueue.h"
#include "ui/selectionpanel.h"
#include "ui/session/backgroundjob.h"
#include "ui/session/eventdetails.h"
#include "ui/session/sessiondocument.h"
#include "ui/style/elidedcelltooltip.h"
#include "ui/style/focusframe.h"
#include "ui/style/timeformat.h"
#include "ui/timeline/eventsearch.h"
#include "ui/timeline/legendmodel.h"
#include "ui/timeline/timelinekeyrouter.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QTreeWidget>

#include <algorithm>

namespace ws {

namespace {
constexpr int kMaxRecent = 10;
// Version of the saved dock layout: bump it whenever docks are added or renamed, so an older
// saved layout (which would leave new docks floating in odd places) gives way to the default.
// 3: the timeline is sized to its rows (issue 24), so layouts saved with its old 55 % give way.
constexpr int kLayoutVersion = 3;
// What any panel may be shrunk to (see createDocks).
constexpr QSize kDockMinimum(160, 90);
const char* kDemoResource = ":/demo/h200-gemm-relu.wscope";
} // namespace

namespace {

// The event `e` of an earlier read of the session in `m`: runs appended since may add lanes
// (a profiled process) before its lane, so it is found by its row (EventRef) at its start time.
std::optional<EventSelection> findEvent(const TimelineModel& m, const EventSelection& e)
{
    if (!e.isValid())
        return std::nullopt;
    const auto at = [&m, &e](size_t lane) -> std::optional<EventSelection> {
        const TimelineLane& l = m.lanes[lane];
        auto it = std::lower_bound(l.start.begin(), l.start.end(), e.start);
        for (; it != l.start.end() && *it == e.start; ++it) {
            const auto i = static_cast<size_t>(it - l.start.begin());
            if (l.ref[i] == e.ref) {
                EventSelection found = e;
                found.lane = static_cast<int>(lane);
                found.index = static_cast<quint32>(i);
                return found;
            }
        }
        return std::nullopt;
    };
    if (static_cast<size_t>(e.lane) < m.lanes.size())
        if (auto same = at(static_cast<size_t>(e.lane)))
            return same;
    for (size_t lane = 0; lane < m.lanes.size(); ++lane)
        if (auto found = at(lane))
            return found;
    return std::nullopt;
}

} // namespace

QString MainWindow::demoResourcePath()
{
    return QString::fromLatin1(kDemoResource);
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_selection(new SelectionModel(this))
    , m_rows(new TimelineRowModel(this))
    , m_legend(new LegendModel(this))
    , m_document(new SessionDocument(this))
    , m_search(new EventSearch(this))
    , m_view(new TimelineView(m_selection, m_rows, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(QStringLiteral("Warpscope"));
    setAcceptDrops(true);
    m_view->setObjectName(QStringLiteral("timeline"));
    m_view->setDetailsSource(m_document->details());
    m_view->setEmptyMessage(tr("No session open.\n\nFile > Open (Ctrl+O) opens a .wscope session, "
                               "File > Run (Ctrl+R) runs a CUDA program, or drop a session file here."));
    setCentralWidget(m_view);
    m_kernelActions = new KernelActions(this);
    m_kernelActions->setUnavailableReason(tr("no session open"));
    m_runQueue = new RunQueue(this);
    m_recipeJob = new BackgroundJob(BackgroundJob::pool("session-recipe", 1), this);
    m_kernelJob = new BackgroundJob(BackgroundJob::pool("session-recipe", 1), this);
    connect(m_kernelActions, &KernelActions::collectRequested, this, &MainWindow::collectKernel);

    createActions();
    createDocks();
    // Timeline keys work whatever has the focus (unless text is being typed), and the focus is
    // framed so it is visible where keys that stay local go (issue 24 item 1).
    new TimelineKeyRouter(m_view, this);
    m_view->setFocus(Qt::OtherFocusReason); // the keys work from the start
    m_focusFrame = new FocusFrame(this);
    m_focusFrame->addRegion(m_view);
    for (QDockWidget* d : findChildren<QDockWidget*>())
        m_focusFrame->addRegion(d);
    createStatusBar();
    wireKernelActions();

    connect(m_document, &SessionDocument::started, this, [this] {
        m_progress->setValue(0);
        m_progress->setFormat(tr("opening… %p%"));
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
    });
    connect(m_document, &SessionDocument::progress, this, [this](double f, const QString& phase) {
        m_progress->setValue(static_cast<int>(f * 1000));
        m_progress->setFormat(phase + QStringLiteral(" %p%"));
    });
    connect(m_document, &SessionDocument::loaded, this, &MainWindow::onLoaded);
    connect(m_document, &SessionDocument::failed, this, &MainWindow::onFailed);
    connect(m_cancel, &QPushButton::clicked, m_document, &SessionDocument::cancel);

    connect(m_view, &TimelineView::framePainted, this, &MainWindow::updateStatus);
    connect(m_selection, &SelectionModel::timeRangeChanged, this, &MainWindow::updateStatus);
    connect(m_selection, &SelectionModel::selectedEventChanged, this, &MainWindow::updateStatus);
    connect(m_selection, &SelectionModel::timeRangeChanged, m_legend, &LegendModel::setTimeRange);
    connect(m_view, &TimelineView::nextOccurrenceRequested, this, [this] { searchStep(true); });
    connect(m_view, &TimelineView::previousOccurrenceRequested, this, [this] { searchStep(false); });
    connect(m_search, &EventSearch::found, this, [this](const EventSelection& e) {
        m_selection->setSelectedEvent(e);
        // The hit framed with a tenth of margin each side (a mark, having no extent, centred).
        if (e.end > e.start) {
            m_view->fitEvent(e);
            m_view->scrollToLane(e.lane);
        } else {
            m_view->revealEvent(e);
        }
    });
    connect(m_search, &EventSearch::foundAt, this, [this](qint64 ordinal) {
        m_searchOrdinal = ordinal;
        showSearchInfo();
    });
    connect(m_search, &EventSearch::notFound, this,
        [this](const QString& q) { m_searchInfo->setText(tr("no \"%1\"").arg(q)); });
    connect(m_search, &EventSearch::queryCounted, this, [this](int names, qint64 events) {
        m_searchOrdinal = 0;
        m_searchNames = names;
        m_searchEvents = events;
        showSearchInfo();
    });

    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    m_defaultLayout = saveState(kLayoutVersion);
    m_defaultDockSizes = !restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    m_fitTimeline = m_defaultDockSizes;
    rebuildRecentMenu();
    updateStatus();
}

MainWindow::~MainWindow()
{
    m_document->cancel();
    SessionDocument::releaseLater(std::move(m_snapshot));
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    auto* reload = file->addAction(tr("Re&load"), this, [this] {
        if (!m_openedPath.isEmpty())
            openFile(m_openedPath, m_openedName);
    });
    reload->setShortcut(QKeySequence(Qt::Key_F5));
    file->addAction(tr("Open the &demo session"), this, &MainWindow::openDemo);
    // Before/after comparison in its own window: the open session is the baseline A.
    file->addAction(tr("&Compare With…"), this,
            [this] {
                QString a = m_openedPath;
                const QString filter = tr("Warpscope sessions (*.wscope);;All files (*)");
                const QString lastDir = QSettings().value(QStringLiteral("files/lastDir")).toString();
                if (a.isEmpty())
                    a = QFileDialog::getOpenFileName(
                        this, tr("Baseline session (A)"), dialogDirectory(QString(), lastDir), filter);
                const QString b = a.isEmpty()
                    ? QString()
                    : QFileDialog::getOpenFileName(this, tr("Compare with (B)"), dialogDirectory(a, lastDir), filter);
                if (b.isEmpty())
                    return;
                auto* w = new CompareWindow(this);
                w->setAttribute(Qt::WA_DeleteOnClose);
                w->open(a, b);
                w->show();
            })
        ->setObjectName(QStringLiteral("compareWithAction"));
    file->addSeparator();
    auto* run = file->addAction(tr("&Run…"), this, &MainWindow::showRunDialog);
    run->setObjectName(QStringLiteral("runAction"));
    run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    auto* again = file->addAction(tr("Run &again (compare with this session)"), this, &MainWindow::runAgain);
    again->setObjectName(QStringLiteral("runAgainAction"));
    again->setIconText(tr("Run again"));
    again->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    again->setToolTip(tr("Repeat every run of the open session into a new file and compare the two"));
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    auto* fit = m_viewMenu->addAction(tr("Fit &all"), m_view, &TimelineView::fitAll);
    fit->setShortcut(QKeySequence(Qt::Key_Home));
    fit->setShortcutContext(Qt::WidgetShortcut);
    m_viewMenu->addAction(tr("Zoom to &selection (F)"), m_view, &TimelineView::fitSelection);
    m_viewMenu->addAction(tr("Zoom &in (W)"), m_view, [this] { m_view->zoomBy(0.8); });
    m_viewMenu->addAction(tr("Zoom &out (S)"), m_view, [this] { m_view->zoomBy(1.25); });
    auto* back = m_viewMenu->addAction(tr("&Back"), m_selection, &SelectionModel::goBack);
    back->setShortcut(QKeySequence::Back);
    auto* forward = m_viewMenu->addAction(tr("&Forward"), m_selection, &SelectionModel::goForward);
    forward->setShortcut(QKeySequence::Forward);
    connect(m_selection, &SelectionModel::historyChanged, this, [this, back, forward] {
        back->setEnabled(m_selection->canGoBack());
        forward->setEnabled(m_selection->canGoForward());
    });
    m_viewMenu->addAction(tr("Clear selection (Esc)"), this, [this] {
        m_selection->clearTimeRange();
        m_selection->clearSelectedEvent();
    });
    // A developer's figure, not the user's: off unless asked for (remembered).
    auto* frameTimings = m_viewMenu->addAction(tr("Show frame timings (debug)"));
    frameTimings->setObjectName(QStringLiteral("showFrameTimings"));
    frameTimings->setCheckable(true);
    frameTimings->setChecked(QSettings().value(QStringLiteral("debug/frameTimings"), false).toBool());
    connect(frameTimings, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(QStringLiteral("debug/frameTimings"), on);
        m_frameLabel->setVisible(on);
        updateStatus();
    });
    // Dependency arrows between streams (DependencyPainter): on, offered when the session has any.
    auto* dependencies = m_viewMenu->addAction(tr("Dependency arrows between streams"));
    dependencies->setObjectName(QStringLiteral("showDependencies"));
    dependencies->setCheckable(true);
    dependencies->setChecked(m_view->dependenciesVisible());
    dependencies->setEnabled(false);
    connect(dependencies, &QAction::toggled, m_view, &TimelineView::setDependenciesVisible);
    const auto offerDependencies = [dependencies](const std::shared_ptr<const SessionSnapshot>& snapshot) {
        dependencies->setEnabled(snapshot && !snapshot->dependencies.empty());
    };
    connect(m_document, &SessionDocument::loaded, dependencies, offerDependencies);
    connect(m_document, &SessionDocument::reloaded, dependencies, offerDependencies);
    m_viewMenu->addAction(tr("Expand all rows"), this, [this] { m_rows->expandAll(true); });
    m_viewMenu->addAction(tr("Collapse all rows"), this, [this] { m_rows->expandAll(false); });
    m_viewMenu->addAction(tr("Show hidden rows"), m_rows, &TimelineRowModel::showAll);
    m_viewMenu->addSeparator();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard and mouse"), this, [this] {
        QMessageBox::information(this, tr("Timeline keys"),
            tr("<table>"
               "<tr><td><b>W / S, + / -, Ctrl+wheel</b></td><td>zoom in / out</td></tr>"
               "<tr><td><b>A / D, arrows, drag, Shift+wheel</b></td><td>pan</td></tr>"
               "<tr><td><b>Home</b></td><td>fit everything</td></tr>"
               "<tr><td><b>Shift+drag, drag in the ruler</b></td><td>select a time range (filters every "
               "panel)</td></tr>"
               "<tr><td><b>F</b></td><td>zoom to the selected range or event</td></tr>"
               "<tr><td><b>click / double-click</b></td><td>select / fit an event or a folded run</td></tr>"
               "<tr><td><b>Ctrl+F, N / Shift+N</b></td><td>search names, next / previous occurrence</td></tr>"
               "<tr><td><b>Esc</b></td><td>clear the selection</td></tr>"
               "<tr><td><b>right-click a row</b></td><td>hide, pin, move, collapse</td></tr>"
               "</table>"
               "<p>These keys reach the timeline whatever has the focus (a table, a panel), except while "
               "typing in a text field; Esc leaves the field. Home stays a table's first row unless the "
               "pointer is over the timeline. The focused panel is framed.</p>"));
    });
    help->addAction(tr("&About Warpscope"), this, [this] {
        QMessageBox::about(this, tr("About Warpscope"),
            tr("<b>Warpscope %1</b><br>CUDA kernel profiler: recorder, timeline and kernel analysis.")
                .arg(QStringLiteral(WS_VERSION)));
    });

    QToolBar* bar = addToolBar(tr("Search"));
    bar->setObjectName(QStringLiteral("searchToolBar"));
    bar->setMovable(false);
    m_searchBox = new QLineEdit(bar);
    m_searchBox->setObjectName(QStringLiteral("search"));
    m_searchBox->setPlaceholderText(tr("Search kernels / NVTX / API (Ctrl+F), Enter = next"));
    m_searchBox->setClearButtonEnabled(true);
    m_searchBox->setMaximumWidth(420);
    // Esc always leaves the text field: the keys that follow (F, W/A/S/D, N) go to the timeline.
    auto* leave = new QShortcut(QKeySequence(Qt::Key_Escape), m_searchBox, nullptr, nullptr, Qt::WidgetShortcut);
    connect(leave, &QShortcut::activated, this, [this] { m_view->setFocus(Qt::ShortcutFocusReason); });
    bar->addWidget(m_searchBox);
    bar->addAction(tr("◀"), this, [this] { searchStep(false); })->setToolTip(tr("Previous occurrence (Shift+N)"));
    bar->addAction(tr("▶"), this, [this] { searchStep(true); })->setToolTip(tr("Next occurrence (N)"));
    bar->addSeparator();
    bar->addAction(again);
    m_searchInfo = new QLabel(bar);
    m_searchInfo->setObjectName(QStringLiteral("searchInfo"));
    m_searchInfo->setMinimumWidth(160);
    bar->addWidget(m_searchInfo);
    auto* focusSearch = new QAction(this);
    focusSearch->setShortcut(QKeySequence::Find);
    connect(focusSearch, &QAction::triggered, this, [this] {
        m_searchBox->setFocus();
        m_searchBox->selectAll();
    });
    addAction(focusSearch);
    connect(m_searchBox, &QLineEdit::textChanged, m_search, &EventSearch::setQuery);
    connect(m_searchBox, &QLineEdit::returnPressed, this,
        [this] { searchStep(!(QApplication::keyboardModifiers() & Qt::ShiftModifier)); });
}

void MainWindow::createDocks()
{
    const auto dock = [this](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        m_viewMenu->addAction(d->toggleViewAction());
        return d;
    };

    auto* tracks = new QTreeView(this);
    tracks->setObjectName(QStringLiteral("tracksView"));
    tracks->setModel(m_rows);
    tracks->setUniformRowHeights(true);
    tracks->header()->setStretchLastSection(false);
    tracks->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tracks->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    connect(m_rows, &QAbstractItemModel::modelReset, tracks, &QTreeView::expandAll);
    connect(tracks, &QTreeView::doubleClicked, this, [this](const QModelIndex& i) {
        const int lane = i.siblingAtColumn(0).data(TimelineRowModel::LaneIndexRole).toInt();
        if (lane >= 0)
            m_view->scrollToLane(lane);
    });
    dock(tr("Tracks"), QStringLiteral("tracksDock"), tracks, Qt::LeftDockWidgetArea)->hide();

    auto* legend = new QTreeView(this);
    legend->setObjectName(QStringLiteral("legendView"));
    legend->setModel(m_legend);
    legend->setRootIsDecorated(false);
    legend->setUniformRowHeights(true);
    legend->header()->setStretchLastSection(false);
    legend->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    connect(legend, &QTreeView::activated, this, [this](const QModelIndex& i) {
        m_searchBox->setText(i.siblingAtColumn(0).data().toString());
        searchStep(true);
    });
    dock(tr("Legend"), QStringLiteral("legendDock"), legend, Qt::BottomDockWidgetArea);

    m_selectionPanel = new SelectionPanel(m_selection, m_document->details(), this);
    m_selectionPanel->setObjectName(QStringLiteral("selectionPanel"));
    dock(tr("Selection"), QStringLiteral("selectionDock"), m_selectionPanel, Qt::BottomDockWidgetArea);

    m_sessionInfo = new QTreeWidget(this);
    m_sessionInfo->setObjectName(QStringLiteral("sessionInfo"));
    m_sessionInfo->setColumnCount(2);
    m_sessionInfo->setHeaderLabels({tr("Key"), tr("Value")});
    m_sessionInfo->setRootIsDecorated(false);
    dock(tr("Session"), QStringLiteral("sessionDock"), m_sessionInfo, Qt::BottomDockWidgetArea);

    // The kernel analysis panels (docs/panels.md) fill the bottom area as in ui.md: ranking and
    // stats, the details side by side, roofline and diagnosis. The timeline's own docks join the
    // ranking's tab group so the timeline keeps most of the height.
    m_analysis = new AnalysisPanels(m_selection, this);
    m_analysis->addDocks(this, m_viewMenu);
    m_analysis->setDocument(m_document);
    connect(m_analysis, &AnalysisPanels::revealRequested, m_view, &TimelineView::revealEvent);

    m_bench = new BenchPanel(this);
    m_bench->setObjectName(QStringLiteral("benchPanel"));
    QDockWidget* bench = dock(tr("Benchmark"), QStringLiteral("benchDock"), m_bench, Qt::BottomDockWidgetArea);
    connect(m_document, &SessionDocument::benchReady, m_bench, &BenchPanel::showOutcome);

    const auto named = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    QDockWidget* kernels = named("kernelRankingDock");
    for (const char* name : {"selectionDock", "sessionDock", "legendDock"})
        tabifyDockWidget(kernels, named(name));
    tabifyDockWidget(named("diagnosisDock"), bench);
    kernels->raise();
    named("rooflineDock")->raise();

    // Each panel's minimum is the window's, not its content's: a long label, a plot's or a
    // filter count's size hint would otherwise push the window past 1366 px and move every
    // dock when its text changes. Content that needs more elides or scrolls inside its dock.
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        if (QWidget* content = d->widget())
            content->setMinimumSize(kDockMinimum);
    }

    // Narrow docks elide labels (the details tables give their width to the value columns
    // first): an elided cell's tooltip gives its whole text.
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        for (QAbstractItemView* v : d->findChildren<QAbstractItemView*>())
            ElidedCellToolTip::install(v);
    }

    // Re-enabling a closed dock from the View menu puts it back in its tab group: raise it, or
    // it comes back as a hidden tab and the click seems to do nothing.
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        connect(d->toggleViewAction(), &QAction::triggered, d, [d](bool on) {
            if (on)
                QTimer::singleShot(0, d, [d] {
                    if (d->isVisible() || !d->isHidden())
                        d->raise();
                });
        });
    }
    m_viewMenu->addSeparator();
    auto* reset = m_viewMenu->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
    reset->setObjectName(QStringLiteral("resetLayout"));
    reset->setToolTip(tr("Put every panel back where it starts, at its default size"));
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultLayout, kLayoutVersion);
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        if (d->isFloating())
            d->setFloating(false);
    }
    for (const char* name : {"kernelRankingDock", "launchDock", "rooflineDock"}) {
        if (auto* d = findChild<QDockWidget*>(QLatin1String(name)))
            d->raise();
    }
    m_fitTimeline = true;
    // Sizes once the restored arrangement is laid out.
    QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
}

void MainWindow::applyDefaultDockSizes()
{
    // ui.md's default: below the timeline the ranking, the details and the roofline share the
    // width 35 / 40 / 25; the timeline's height follows its rows (fitTimelineToRows).
    const auto named = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    QDockWidget* kernels = named("kernelRankingDock");
    QDockWidget* launch = named("launchDock");
    QDockWidget* roofline = named("rooflineDock");
    if (!kernels || !launch || !roofline)
        return;
    const int w = width();
    resizeDocks({kernels}, {height() * 45 / 100}, Qt::Vertical);
    resizeDocks({kernels, launch, roofline}, {w * 35 / 100, w * 40 / 100, w * 25 / 100}, Qt::Horizontal);
    fitTimelineToRows();
}

void MainWindow::fitTimelineToRows()
{
    auto* kernels = findChild<QDockWidget*>(QStringLiteral("kernelRankingDock"));
    if (!m_fitTimeline || !m_snapshot || !kernels || !isVisible() || kernels->isFloating())
        return;
    m_fitTimeline = false;
    // Timeline and bottom panels share this height; the timeline takes what its rows need plus
    // room for a scroll bar's worth of slack, and never more than 45 % of it: a session with
    // hundreds of rows scrolls inside the timeline instead of squeezing the panels.
    const int shared = m_view->height() + kernels->height();
    constexpr int kSlack = 16;
    const int timeline = std::clamp(m_view->rowsHeight() + kSlack, std::min(shared / 4, 160), shared * 45 / 100);
    // resizeDocks() sizes the tab group, tab bar included, so the dock comes out that much
    // shorter: measured once laid out (activate() applies it now), then corrected by what the
    // timeline still has too much.
    const int asked = kernels->height() + m_view->height() - timeline;
    resizeDocks({kernels}, {asked}, Qt::Vertical);
    layout()->activate();
    if (const int excess = m_view->height() - timeline; excess != 0) {
        resizeDocks({kernels}, {asked + excess}, Qt::Vertical);
        layout()->activate();
    }
}

void MainWindow::createStatusBar()
{
    m_pathLabel = new QLabel(this);
    m_deviceLabel = new QLabel(this);
    m_eventsLabel = new QLabel(this);
    m_frameLabel = new QLabel(this);
    m_frameLabel->setToolTip(tr("Last paint of the timeline, the slowest one since the session opened, and the "
                                "last off-thread frame build"));
    m_selectionLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(320);
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelLoading"));
    m_cancel->setVisible(false);
    statusBar()->addWidget(m_pathLabel, 1);
    statusBar()->addWidget(m_deviceLabel);
    statusBar()->addWidget(m_eventsLabel);
    statusBar()->addWidget(m_selectionLabel);
    m_targetLabel = new QLabel(this);
    m_targetLabel->setObjectName(QStringLiteral("targetProblem"));
    m_targetLabel->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold"));
    m_runLabel = new QLabel(this);
    m_runLabel->setObjectName(QStringLiteral("runProgress"));
    m_runCancel = new QPushButton(tr("Stop run"), this);
    m_runCancel->setObjectName(QStringLiteral("cancelRun"));
    m_runCancel->setVisible(false);
    connect(m_runCancel, &QPushButton::clicked, m_runQueue, &RunQueue::cancel);
    statusBar()->addWidget(m_targetLabel);
    statusBar()->addPermanentWidget(m_runLabel);
    statusBar()->addPermanentWidget(m_runCancel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_frameLabel);
    m_frameLabel->setVisible(QSettings().value(QStringLiteral("debug/frameTimings"), false).toBool());
}

QString MainWindow::statusText() const
{
    QStringList parts {m_pathLabel->text(), m_deviceLabel->text(), m_eventsLabel->text(), m_selectionLabel->text()};
    if (!m_frameLabel->isHidden())
        parts << m_frameLabel->text();
    return parts.join(QStringLiteral(" | "));
}

void MainWindow::updateStatus()
{
    if (!m_snapshot) {
        m_pathLabel->setText(
            m_document->isLoading() ? tr("opening %1").arg(m_document->currentPath()) : tr("no session"));
        m_deviceLabel->clear();
        m_eventsLabel->clear();
        m_frameLabel->clear();
        m_selectionLabel->clear();
        return;
    }
    m_pathLabel->setText(m_snapshot->displayName);
    m_pathLabel->setToolTip(m_snapshot->path);
    m_deviceLabel->setText(m_snapshot->deviceSummary());
    m_eventsLabel->setText(tr("%1 events").arg(formatCount(m_snapshot->eventCount())));
    m_frameLabel->setText(tr("frame %1 ms (worst %2, build %3)")
                              .arg(m_view->lastPaintMs(), 0, 'f', 1)
                              .arg(m_view->worstPaintMs(), 0, 'f', 1)
                              .arg(m_view->lastBuildMs(), 0, 'f', 1));
    QStringList sel;
    const TimeRange r = m_selection->timeRange();
    if (!r.isEmpty())
        sel << tr("range %1").arg(formatDuration(r.duration()));
    const EventSelection e = m_selection->selectedEvent();
    if (e.isValid())
        sel << QStringLiteral("%1 (%2)").arg(e.name.left(60), formatDuration(e.end - e.start));
    m_selectionLabel->setText(sel.join(QStringLiteral(" · ")));
}

void MainWindow::openDialog()
{
    QSettings s;
    const QString dir = dialogDirectory(m_openedPath, s.value(QStringLiteral("files/lastDir")).toString());
    const QString f = QFileDialog::getOpenFileName(this, tr("Open session"), dir,
        tr("Sessions and traces (*.wscope *.wsfleet *.sqlite *.json *.json.gz *.csv *.txt *.hatchet *.ncu-rep);;"
           "Warpscope sessions (*.wscope);;"
           "Nsight Systems SQLite export (*.sqlite);;"
           "PyTorch profiler / Chrome trace (*.json *.json.gz);;"
           "Nsight Compute CSV or report (*.csv *.txt *.ncu-rep);;"
           "Proton hatchet (*.hatchet *.json);;All files (*)"));
    if (f.isEmpty())
        return;
    s.setValue(QStringLiteral("files/lastDir"), QFileInfo(f).absolutePath());
    openFile(f);
}

void MainWindow::openFile(const QString& path, const QString& displayName)
{
    if (path.endsWith(QLatin1String(".wsfleet"), Qt::CaseInsensitive)) {
        openFleet(path);
        return;
    }
    m_openedPath = path;
    m_openedName = displayName;
    if (path.startsWith(QLatin1String(":/"))) {
        // A resource (the demo): SQLite needs a real file, so the loader copies it first.
        m_demoDir = std::make_unique<QTemporaryDir>();
        const QString copy = m_demoDir->filePath(QFileInfo(path).fileName());
        m_document->openCopy(path, copy, displayName.isEmpty() ? path : displayName);
    } else {
        m_document->open(QFileInfo(path).absoluteFilePath(), displayName);
    }
    updateStatus();
}

void MainWindow::openFleet(const QString& path)
{
    m_fleet = new FleetWindow(QFileInfo(path).absoluteFilePath(), this);
    connect(m_fleet, &FleetWindow::openStep, this, [this](const QString& session, TimeRange range) {
        // Like a reload after an appended run: onLoaded puts this range in view (none: a
        // metric without steps opens the rank's session as a whole).
        m_keepView = !range.isEmpty();
        m_keptRange = range;
        m_keptEvent = {};
        openFile(session);
    });
    m_fleet->show();
}

bool MainWindow::openDemo()
{
    if (!QFile::exists(demoResourcePath())) {
        m_view->setEmptyMessage(
            tr("No session open.\n\nThis build has no embedded demo session: resources/demo/h200-gemm-relu.wscope "
               "(a real recording of a GEMM + ReLU workload on an NVIDIA H200) was not in the source tree when "
               "it was built.\n\nFile > Open (Ctrl+O) opens a .wscope session, File > Run (Ctrl+R) runs a CUDA "
               "program, or drop a session file here."));
        return false;
    }
    openFile(demoResourcePath(), tr("demo: H200 GEMM + ReLU (embedded)"));
    return true;
}

void MainWindow::onLoaded(std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    auto old = std::move(m_snapshot);
    m_snapshot = std::move(snapshot);
    const auto full
        = TimeRangeClamp::apply(m_snapshot->begin(), m_snapshot->end(), m_snapshot->begin(), m_snapshot->end());
    m_selection->reset({full[0], full[1]});
    const bool keep = std::exchange(m_keepView, false);
    m_search->setSnapshot(m_snapshot);
    m_legend->setSnapshot(m_snapshot);
    m_selectionPanel->setSnapshot(m_snapshot);
    m_rows->setSnapshot(m_snapshot);
    m_view->setSnapshot(m_snapshot);
    if (keep) {
        // A run was appended to this session: the user stays where they were, on the same
        // launch, and the panels fill for it.
        if (!m_keptRange.isEmpty())
            m_selection->setViewRange(m_keptRange);
        if (const auto again = findEvent(*m_snapshot->model, m_keptEvent))
            m_selection->setSelectedEvent(*again);
    }
    // The previous session's lanes are freed off the GUI thread.
    SessionDocument::releaseLater(std::move(old));

    m_sessionInfo->clear();
    const auto add = [this](const QString& k, const QString& v) { new QTreeWidgetItem(m_sessionInfo, {k, v}); };
    add(tr("File"), m_snapshot->path);
    add(tr("Devices"), m_snapshot->deviceSummary());
    add(tr("Events"), formatCount(m_snapshot->eventCount()));
    add(tr("Rows"), QString::number(m_snapshot->model->lanes.size()));
    add(tr("Duration"), formatDuration(m_snapshot->end() - m_snapshot->begin()));
    add(tr("Memory"),
        tr("%1 (%2 B per event)")
            .arg(formatBytes(static_cast<qint64>(m_snapshot->residentBytes())))
            .arg(m_snapshot->eventCount() > 0
                    ? static_cast<double>(m_snapshot->residentBytes()) / static_cast<double>(m_snapshot->eventCount())
                    : 0.0,
                0, 'f', 1));
    add(tr("Lanes from"), m_snapshot->model->fromLaneCache ? tr("lane cache") : tr("row scans"));
    for (const auto& [k, v] : m_snapshot->meta)
        add(QString::fromStdString(k), QString::fromStdString(v));
    m_sessionInfo->resizeColumnToContents(0);

    m_recipe = SessionRecipe {};
    m_recipe.path = m_snapshot->path;
    updateTitle();
    readRecipe();
    if (!m_openedPath.startsWith(QLatin1String(":/")))
        addRecent(m_openedPath);
    updateStatus();
    // Before sessionLoaded: what its handlers arrange (warpscope --panel) comes after the fit.
    fitTimelineToRows();
    emit sessionLoaded();
}

void MainWindow::onFailed(const QString& path, const QString& reason, bool cancelled)
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    updateStatus();
    if (cancelled) {
        statusBar()->showMessage(tr("Opening %1 was cancelled.").arg(path), 5000);
        return;
    }
    const QString shown = path.startsWith(m_demoDir ? m_demoDir->path() : QStringLiteral("\x01"))
        ? tr("the embedded demo session")
        : path;
    showError(tr("Could not open session"),
        tr("<b>Could not open %1</b><br><br>%2").arg(shown.toHtmlEscaped(), reason.toHtmlEscaped()));
    emit sessionFailed(path, reason);
}

void MainWindow::showError(const QString& title, const QString& text)
{
    if (m_errorDialog)
        m_errorDialog->deleteLater();
    // Window-modal and opened, not exec()'d: the GUI keeps running (and tests can read it).
    m_errorDialog = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
    m_errorDialog->setObjectName(QStringLiteral("errorDialog"));
    m_errorDialog->setAttribute(Qt::WA_DeleteOnClose);
    m_errorDialog->open();
}

void MainWindow::addRecent(const QString& path)
{
    QSettings s;
    QStringList recent = s.value(QStringLiteral("files/recent")).toStringList();
    const QString abs = QFileInfo(path).absoluteFilePath();
    recent.removeAll(abs);
    recent.prepend(abs);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    s.setValue(QStringLiteral("files/recent"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("files/recent")).toStringList();
    for (const QString& f : recent)
        m_recentMenu->addAction(f, this, [this, f] { openFile(f); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::showSearchInfo()
{
    if (m_search->query().trimmed().isEmpty()) {
        m_searchInfo->clear();
        return;
    }
    const QString count = tr("%1 in %2 names").arg(formatCount(m_searchEvents)).arg(m_searchNames);
    m_searchInfo->setText(m_searchOrdinal > 0 ? tr("%1 of %2").arg(formatCount(m_searchOrdinal), count) : count);
}

void MainWindow::searchStep(bool forward)
{
    if (m_searchBox->text().trimmed().isEmpty()) {
        m_searchBox->setFocus();
        return;
    }
    m_search->setQuery(m_searchBox->text());
    EventSearch::Position from;
    const EventSelection e = m_selection->selectedEvent();
    if (e.isValid()) {
        from = {e.start, e.lane, e.index};
    } else {
        // From the left edge of the view (forward) or its right edge (backward).
        const TimeRange v = m_selection->viewRange();
        from = forward ? EventSearch::Position {v.begin, -1, 0} : EventSearch::Position {v.end, INT_MAX, 0};
    }
    if (forward)
        m_search->next(from);
    else
        m_search->previous(from);
}

RunDialog* MainWindow::showRunDialog()
{
    if (!m_runDialog) {
        // Kept (hidden) when closed: the output of every run is still in its log when reopened.
        m_runDialog = new RunDialog(this);
        connect(m_runDialog, &RunDialog::sessionWritten, this, [this](const QString& path) {
            // Runs added to the open session reload it in place; a new file opens fresh.
            if (m_snapshot && QFileInfo(path) == QFileInfo(m_snapshot->path))
                reloadInPlace();
            else
                openFile(path);
        });
    }
    const bool ownFile = m_snapshot && !m_openedPath.startsWith(QLatin1String(":/"));
    m_runDialog->setOpenSession(ownFile ? m_snapshot->path : QString(),
        m_recipe.recipe.command.empty() ? QString() : QString::fromStdString(m_recipe.recipe.command.front()));
    m_runDialog->show();
    m_runDialog->raise();
    return m_runDialog;
}

void MainWindow::reloadInPlace()
{
    if (!m_snapshot)
        return;
    m_keepView = true;
    m_keptRange = m_selection->viewRange();
    m_keptEvent = m_selection->selectedEvent();
    // The demo is open from a temporary copy: the runs were appended to that copy.
    openFile(m_openedPath.startsWith(QLatin1String(":/")) ? m_snapshot->path : m_openedPath, m_openedName);
}

void MainWindow::wireKernelActions()
{
    // The kernel views offer the collect actions once they take the window's KernelActions
    // (setKernelActions, from the views' side of issue 17). Detected at compile time, so this
    // builds with and without it and hands the one instance to every view that has it.
    const auto handTo = [this](auto* view) {
        if constexpr (requires { view->setKernelActions(m_kernelActions); })
            view->setKernelActions(m_kernelActions);
    };
    handTo(m_view);
    handTo(m_analysis->ranking());
    handTo(m_analysis->roofline());
}

void MainWindow::readRecipe()
{
    if (!m_snapshot)
        return;
    m_kernelActions->setUnavailableReason(tr("reading how the session's program was started…"));
    const QString path = m_snapshot->path;
    m_recipeJob->start([path](const BackgroundJob::Context&) { return readSessionRecipe(path); },
        [this](const SessionRecipe& r) { onRecipeRead(r); });
}

void MainWindow::onRecipeRead(const SessionRecipe& recipe)
{
    if (!m_snapshot || recipe.path != m_snapshot->path)
        return;
    m_recipe = recipe;
    m_kernelActions->setUnavailableReason(recipe.unavailableReason);
    updateTitle();
    // An open Run dialog offers adding to the session now open.
    if (m_runDialog && !m_runDialog->isRunning() && !m_openedPath.startsWith(QLatin1String(":/")))
        m_runDialog->setOpenSession(m_snapshot->path,
            recipe.recipe.command.empty() ? QString() : QString::fromStdString(recipe.recipe.command.front()));
    emit recipeRead();
}

void MainWindow::updateTitle()
{
    if (!m_snapshot) {
        setWindowTitle(QStringLiteral("Warpscope"));
        m_targetLabel->clear();
        return;
    }
    const QString name = QFileInfo(m_snapshot->displayName).fileName();
    // A killed or crashed target is said where the user looks first, not only in the metadata.
    const QString problem = m_recipe.targetProblem;
    setWindowTitle(problem.isEmpty() ? QStringLiteral("%1 — Warpscope").arg(name)
                                     : QStringLiteral("%1 — %2 — Warpscope").arg(name, problem));
    m_targetLabel->setText(problem);
}

bool MainWindow::confirm(const QString& what, const QList<QStringList>& commands, bool offerDontAsk)
{
    const bool foreign = isForeign(m_recipe.recipe, localHost(), localUser());
    if (!foreign && m_trusted.contains(m_recipe.path))
        return true;
    RunConfirmation dialog(what, m_recipe.recipe, commands, foreign, offerDontAsk, this);
    const bool ok = m_confirm ? m_confirm(dialog) : dialog.exec() == QDialog::Accepted;
    if (ok && dialog.dontAskAgain())
        m_trusted.insert(m_recipe.path);
    return ok;
}

void MainWindow::startQueued(const QString& what, const QList<RunStep>& steps, std::function<void(bool)> done)
{
    m_runQueue->setWorkingDirectory(QString());
    m_runQueue->setEnvironment(QProcessEnvironment::systemEnvironment());
    m_runQueue->disconnect(this);
    connect(m_runQueue, &RunQueue::progressChanged, this,
        [this, what](int, const RunProgress& p) { m_runLabel->setText(QStringLiteral("%1: %2").arg(what, p.text())); });
    connect(m_runQueue, &RunQueue::finished, this, [this, what, done = std::move(done)](bool ok) {
        m_runCancel->setVisible(false);
        const int k = m_runQueue->failedStep();
        QString message;
        if (ok) {
            message = tr("%1: done in %2 s").arg(what).arg(m_runQueue->elapsedMs() / 1000.0, 0, 'f', 1);
        } else if (m_runQueue->wasCancelled()) {
            message = tr("%1: stopped").arg(what);
        } else {
            message = tr("%1 failed: %2").arg(what, k >= 0 ? m_runQueue->states().at(k).reason() : QString());
            const QStringList tail = m_runQueue->output().mid(std::max<qsizetype>(0, m_runQueue->output().size() - 12));
            showError(tr("%1 failed").arg(what),
                tr("<b>%1 failed</b><br><br>%2<br><br>Last output:<pre>%3</pre>")
                    .arg(what.toHtmlEscaped(),
                        (k >= 0 ? m_runQueue->states().at(k).reason() : QString()).toHtmlEscaped(),
                        tail.join(QLatin1Char('\n')).toHtmlEscaped()));
        }
        m_runLabel->setText(message);
        done(ok);
        emit runEnded(ok, message);
    });
    m_runLabel->setText(tr("%1: running…").arg(what));
    m_runCancel->setVisible(true);
    m_runQueue->start(steps);
}

void MainWindow::collectKernel(const KernelCollectionRequest& request)
{
    if (!m_snapshot)
        return;
    if (m_runQueue->isRunning()) {
        statusBar()->showMessage(tr("A run is in progress; wait for it or stop it first."), 5000);
        return;
    }
    if (!m_recipe.unavailableReason.isEmpty()) {
        showError(tr("Cannot collect"), m_recipe.unavailableReason.toHtmlEscaped());
        return;
    }
    const QString path = m_snapshot->path;
    const int64_t id = request.kernelId;
    m_kernelJob->start([path, id](const BackgroundJob::Context&) { return readKernelLaunch(path, id); },
        [this, request, path](const KernelLaunchInfo& launch) {
            if (!m_snapshot || m_snapshot->path != path)
                return;
            if (!launch.error.isEmpty()) {
                showError(tr("Cannot collect"), launch.error.toHtmlEscaped());
                return;
            }
            std::string whyNot;
            const std::optional<CollectorStep> planned
                = kernelStep(request.what, launch.mangledName, launch.ordinal, request.count, launch.run, &whyNot);
            if (!planned) {
                showError(tr("Cannot collect"), QString::fromStdString(whyNot).toHtmlEscaped());
                return;
            }
            const CollectorStep& step = *planned;
            QStringList profile {m_runQueue->cliPath()};
            for (const std::string& a : cliArguments(step, path.toStdString(), true, m_recipe.recipe.command))
                profile << QString::fromStdString(a);
            const bool stalls = request.what == KernelCollection::StallSampling;
            const QString what = stalls ? tr("Sample stall reasons") : tr("Collect metrics");
            if (!confirm(what, {profile}, true))
                return;
            QStringList args {
                QStringLiteral("collect"), path, QStringLiteral("--kernel-id"), QString::number(request.kernelId)};
            if (stalls)
                args << QStringLiteral("--stalls");
            if (request.count != 1)
                args << QStringLiteral("--count") << QString::number(request.count);
            args << QStringLiteral("--yes");
            startQueued(what, {RunStep {QString::fromStdString(step.kind), args}}, [this, path](bool) {
                // Even a failed collect marks its run in the session: show it, in place.
                if (QFileInfo::exists(path) && m_snapshot && m_snapshot->path == path)
                    reloadInPlace();
            });
        });
}

void MainWindow::runAgain()
{
    if (!m_snapshot) {
        statusBar()->showMessage(tr("Open a session to run it again."), 5000);
        return;
    }
    if (m_runQueue->isRunning()) {
        statusBar()->showMessage(tr("A run is in progress; wait for it or stop it first."), 5000);
        return;
    }
    if (!m_recipe.unavailableReason.isEmpty() || m_recipe.path != m_snapshot->path) {
        showError(tr("Cannot run again"),
            (m_recipe.unavailableReason.isEmpty() ? tr("the session's runs are still being read")
                                                  : m_recipe.unavailableReason)
                .toHtmlEscaped());
        return;
    }
    const QString oldPath = m_snapshot->path;
    const QString newPath = nextAttemptPath(oldPath);
    QList<QStringList> commands;
    for (size_t i = 0; i < m_recipe.recipe.steps.size(); ++i) {
        QStringList argv {m_runQueue->cliPath()};
        for (const std::string& a :
            cliArguments(m_recipe.recipe.steps[i], newPath.toStdString(), i > 0, m_recipe.recipe.command))
            argv << QString::fromStdString(a);
        commands << argv;
    }
    if (!confirm(tr("Run again"), commands, false))
        return;
    const RunStep step {QStringLiteral("rerun"),
        {QStringLiteral("rerun"), oldPath, QStringLiteral("-o"), newPath, QStringLiteral("--yes")}};
    startQueued(tr("Run again"), {step}, [this, oldPath, newPath](bool ok) {
        if (!QFileInfo::exists(newPath))
            return;
        openFile(newPath);
        if (!ok)
            return;
        // Before/after: the previous attempt is the baseline.
        auto* w = new CompareWindow(this);
        w->setObjectName(QStringLiteral("runAgainCompare"));
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->open(oldPath, newPath);
        w->show();
    });
}

bool MainWindow::event(QEvent* e)
{
    // The dock tab bars are made by QMainWindow's layout as docks are tabified, eliding titles
    // to "Th…" and "Me…" in a narrow group: whole titles, scrolled when they do not fit.
    if (e->type() == QEvent::ChildPolished) {
        if (auto* tabs = qobject_cast<QTabBar*>(static_cast<QChildEvent*>(e)->child())) {
            tabs->setElideMode(Qt::ElideNone);
            tabs->setUsesScrollButtons(true);
        }
    }
    return QMainWindow::event(e);
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
    QMainWindow::closeEvent(e);
}

void MainWindow::showEvent(QShowEvent* e)
{
    QMainWindow::showEvent(e);
    if (!m_defaultDockSizes)
        return;
    m_defaultDockSizes = false;
    applyDefaultDockSizes();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls() && !e->mimeData()->urls().isEmpty() && e->mimeData()->urls().front().isLocalFile())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    const auto urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.front().isLocalFile()) {
        openFile(urls.front().toLocalFile());
        e->acceptProposedAction();
    }
}

} // namespace ws

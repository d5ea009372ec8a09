// SPDX-License-Identifier: MIT
#include "ui/mainwindow.h"

#include "ui/benchpanel.h"
#include "ui/compare/comparewindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/recorddialog.h"
#include "ui/selectionpanel.h"
#include "ui/session/eventdetails.h"
#include "ui/session/sessiondocument.h"
#include "ui/style/timeformat.h"
#include "ui/timeline/eventsearch.h"
#include "ui/timeline/legendmodel.h"
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
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeView>
#include <QTreeWidget>

namespace ws {

namespace {
constexpr int kMaxRecent = 10;
// Version of the saved dock layout: bump it whenever docks are added or renamed, so an older
// saved layout (which would leave new docks floating in odd places) gives way to the default.
constexpr int kLayoutVersion = 2;
const char* kDemoResource = ":/demo/h200-gemm-relu.wscope";
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
                               "File > Record (Ctrl+R) records a CUDA program, or drop a session file here."));
    setCentralWidget(m_view);

    createActions();
    createDocks();
    createStatusBar();

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
        m_view->revealEvent(e);
    });
    connect(m_search, &EventSearch::notFound, this,
        [this](const QString& q) { m_searchInfo->setText(tr("no \"%1\"").arg(q)); });
    connect(m_search, &EventSearch::queryCounted, this, [this](int names, qint64 events) {
        if (m_search->query().trimmed().isEmpty())
            m_searchInfo->clear();
        else
            m_searchInfo->setText(tr("%1 in %2 names").arg(formatCount(events)).arg(names));
    });

    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    m_defaultDockSizes = !restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
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
                if (a.isEmpty())
                    a = QFileDialog::getOpenFileName(this, tr("Baseline session (A)"), QString(), filter);
                const QString b = a.isEmpty()
                    ? QString()
                    : QFileDialog::getOpenFileName(this, tr("Compare with (B)"), QString(), filter);
                if (b.isEmpty())
                    return;
                auto* w = new CompareWindow(this);
                w->setAttribute(Qt::WA_DeleteOnClose);
                w->open(a, b);
                w->show();
            })
        ->setObjectName(QStringLiteral("compareWithAction"));
    file->addSeparator();
    auto* record = file->addAction(tr("&Record…"), this, &MainWindow::showRecordDialog);
    record->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
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
               "</table>"));
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
    bar->addWidget(m_searchBox);
    bar->addAction(tr("◀"), this, [this] { searchStep(false); })->setToolTip(tr("Previous occurrence (Shift+N)"));
    bar->addAction(tr("▶"), this, [this] { searchStep(true); })->setToolTip(tr("Next occurrence (N)"));
    m_searchInfo = new QLabel(bar);
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
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_frameLabel);
}

QString MainWindow::statusText() const
{
    return QStringList {m_pathLabel->text(), m_deviceLabel->text(), m_eventsLabel->text(), m_selectionLabel->text(),
        m_frameLabel->text()}
        .join(QStringLiteral(" | "));
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
    const QString dir = s.value(QStringLiteral("files/lastDir")).toString();
    const QString f = QFileDialog::getOpenFileName(this, tr("Open session"), dir,
        tr("Sessions and traces (*.wscope *.sqlite *.json *.json.gz *.csv *.txt *.hatchet *.ncu-rep);;"
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

bool MainWindow::openDemo()
{
    if (!QFile::exists(demoResourcePath())) {
        m_view->setEmptyMessage(
            tr("No session open.\n\nThis build has no embedded demo session: resources/demo/h200-gemm-relu.wscope "
               "(a real recording of a GEMM + ReLU workload on an NVIDIA H200) was not in the source tree when "
               "it was built.\n\nFile > Open (Ctrl+O) opens a .wscope session, File > Record (Ctrl+R) records a CUDA "
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
    m_rows->setSnapshot(m_snapshot);
    m_search->setSnapshot(m_snapshot);
    m_legend->setSnapshot(m_snapshot);
    m_selectionPanel->setSnapshot(m_snapshot);
    m_view->setSnapshot(m_snapshot);
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

    setWindowTitle(QStringLiteral("%1 — Warpscope").arg(QFileInfo(m_snapshot->displayName).fileName()));
    if (!m_openedPath.startsWith(QLatin1String(":/")))
        addRecent(m_openedPath);
    updateStatus();
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

RecordDialog* MainWindow::showRecordDialog()
{
    if (!m_recordDialog) {
        m_recordDialog = new RecordDialog(this);
        m_recordDialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_recordDialog, &RecordDialog::recorded, this, [this](const QString& path) { openFile(path); });
    }
    m_recordDialog->show();
    m_recordDialog->raise();
    return m_recordDialog;
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
    // ui.md's default: the timeline keeps about 55% of the height; below it the ranking, the
    // details and the roofline share the width 35 / 40 / 25.
    const auto named = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    QDockWidget* kernels = named("kernelRankingDock");
    QDockWidget* launch = named("launchDock");
    QDockWidget* roofline = named("rooflineDock");
    if (!kernels || !launch || !roofline)
        return;
    const int w = width();
    resizeDocks({kernels}, {height() * 45 / 100}, Qt::Vertical);
    resizeDocks({kernels, launch, roofline}, {w * 35 / 100, w * 40 / 100, w * 25 / 100}, Qt::Horizontal);
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

// SPDX-License-Identifier: MIT
#include "ui/compare/comparewindow.h"

#include "ui/session/dialogdirectory.h"

#include "core/compare/comparereport.h"
#include "core/ranking/compactname.h"
#include "ui/compare/comparedocument.h"
#include "ui/compare/comparekernelmodel.h"
#include "ui/compare/comparemetricmodel.h"
#include "ui/compare/compareplots.h"
#include "ui/compare/comparetimeline.h"
#include "ui/compare/hypothesismodel.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/reporttablemodel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

namespace ws {

namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent, const QString& name)
{
    auto* view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    return view;
}

} // namespace

CompareWindow::CompareWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_doc(new CompareDocument(this))
    , m_kernels(new CompareKernelModel(this))
    , m_kernelProxy(new QSortFilterProxyModel(this))
    , m_metrics(new CompareMetricModel(this))
    , m_hypotheses(new HypothesisModel(this))
    , m_benchRuns(new ReportTableModel(this))
{
    setObjectName(QStringLiteral("compareWindow"));
    setWindowTitle(tr("Warpscope — Compare"));
    setAttribute(Qt::WA_DeleteOnClose, false);

    auto* bar = addToolBar(tr("Compare"));
    bar->setObjectName(QStringLiteral("compareToolBar"));
    bar->setMovable(false);
    bar->addAction(tr("Baseline A…"), this, [this] { chooseFile(0); });
    bar->addAction(tr("B…"), this, [this] { chooseFile(1); });
    bar->addAction(tr("Pin baseline…"), this, [this] { chooseFile(2); })
        ->setToolTip(tr("Add another baseline: the tables then show the z-score of B against all baselines"));
    bar->addAction(tr("Swap A/B"), this, [this] {
        if (!m_doc->pathA().isEmpty())
            open(m_doc->pathB(), m_doc->pathA(), m_doc->extraBaselines());
    });
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Origin / iterations: "), bar));
    m_range = new QComboBox(bar);
    m_range->setObjectName(QStringLiteral("rangeChoice"));
    m_range->setMinimumContentsLength(18);
    m_range->setToolTip(tr("The NVTX range whose start is the shared origin and whose instances are the iterations; "
                           "without one, the first kernel is the origin and each launch of the most frequent kernel "
                           "starts an iteration"));
    bar->addWidget(m_range);
    bar->addWidget(new QLabel(tr("  Threshold: "), bar));
    m_threshold = new QDoubleSpinBox(bar);
    m_threshold->setObjectName(QStringLiteral("thresholdSpin"));
    m_threshold->setRange(0, 100);
    m_threshold->setDecimals(1);
    m_threshold->setSingleStep(0.5);
    m_threshold->setSuffix(QStringLiteral(" %"));
    m_threshold->setValue(m_doc->options().rule.thresholdPct);
    bar->addWidget(m_threshold);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 4, 6, 4);
    m_files = new QLabel(central);
    m_files->setObjectName(QStringLiteral("compareFiles"));
    m_files->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_files);
    // The chain of attempts (Run again): where B stands in it, and stepping pair by pair.
    auto* chainRow = new QHBoxLayout;
    chainRow->setContentsMargins(0, 0, 0, 0);
    m_chainLabel = new QLabel(central);
    m_chainLabel->setObjectName(QStringLiteral("chainLabel"));
    m_chainLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chainLabel->setWordWrap(true);
    m_previousPair = new QPushButton(tr("◀ previous pair"), central);
    m_previousPair->setObjectName(QStringLiteral("previousPair"));
    m_nextPair = new QPushButton(tr("next pair ▶"), central);
    m_nextPair->setObjectName(QStringLiteral("nextPair"));
    chainRow->addWidget(m_chainLabel, 1);
    chainRow->addWidget(m_previousPair);
    chainRow->addWidget(m_nextPair);
    layout->addLayout(chainRow);
    connect(m_previousPair, &QPushButton::clicked, this, &CompareWindow::previousPair);
    connect(m_nextPair, &QPushButton::clicked, this, &CompareWindow::nextPair);
    updateChain();
    m_verdict = new QLabel(tr("Open two sessions to compare."), central);
    m_verdict->setObjectName(QStringLiteral("verdictLabel"));
    m_verdict->setWordWrap(true);
    m_verdict->setMargin(6);
    m_verdict->setAutoFillBackground(true);
    QFont vf = m_verdict->font();
    vf.setPointSizeF(vf.pointSizeF() * 1.1);
    m_verdict->setFont(vf);
    layout->addWidget(m_verdict);

    auto* split = new QSplitter(Qt::Vertical, central);
    m_timeline = new CompareTimeline(split);
    m_timelineArea = new QScrollArea(split);
    m_timelineArea->setWidget(m_timeline);
    m_timelineArea->setWidgetResizable(true);
    m_timelineArea->setMinimumHeight(150);
    split->addWidget(m_timelineArea);

    auto* lower = new QSplitter(Qt::Horizontal, split);
    auto* left = new QWidget(lower);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_kernelProxy->setSourceModel(m_kernels);
    m_kernelProxy->setSortRole(panelexport::kRawRole);
    m_kernelView = makeTable(m_kernelProxy, left, QStringLiteral("compareKernelTable"));
    m_kernelView->setSortingEnabled(true);
    m_kernelView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tables = new QStackedWidget(left);
    m_tables->addWidget(m_kernelView);
    auto* benchView = makeTable(m_benchRuns, m_tables, QStringLiteral("compareBenchTable"));
    m_tables->addWidget(benchView);
    leftLayout->addWidget(m_tables, 1);
    auto* buttonRow = new QWidget(left);
    auto* buttons = new QHBoxLayout(buttonRow);
    buttons->setContentsMargins(0, 0, 0, 0);
    m_pairButtons = buttonRow;
    auto* pair = new QPushButton(tr("Pair selected"), left);
    pair->setObjectName(QStringLiteral("pairButton"));
    pair->setToolTip(tr("Select one kernel only in A and one only in B (Ctrl+click), then pair them"));
    auto* unpair = new QPushButton(tr("Reset pairing"), left);
    auto* exportKernels = new QPushButton(tr("Export CSV…"), left);
    buttons->addWidget(pair);
    buttons->addWidget(unpair);
    buttons->addStretch(1);
    buttons->addWidget(exportKernels);
    leftLayout->addWidget(buttonRow);
    m_notes = new QLabel(left);
    m_notes->setObjectName(QStringLiteral("compareNotes"));
    m_notes->setWordWrap(true);
    leftLayout->addWidget(m_notes);
    lower->addWidget(left);

    m_tabs = new QTabWidget(lower);
    m_tabs->setObjectName(QStringLiteral("compareTabs"));
    auto* distPage = new QWidget(m_tabs);
    auto* distLayout = new QVBoxLayout(distPage);
    distLayout->setContentsMargins(0, 0, 0, 0);
    m_distChoice = new QComboBox(distPage);
    m_distChoice->setObjectName(QStringLiteral("distributionChoice"));
    distLayout->addWidget(m_distChoice);
    m_distribution = new DistributionPlot(distPage);
    distLayout->addWidget(m_distribution, 1);
    m_tabs->addTab(distPage, tr("Distributions"));

    auto* metricPage = new QWidget(m_tabs);
    auto* metricLayout = new QVBoxLayout(metricPage);
    metricLayout->setContentsMargins(0, 0, 0, 0);
    m_metricTitle = new QLabel(tr("Select a matched kernel in the table."), metricPage);
    m_metricTitle->setWordWrap(true);
    metricLayout->addWidget(m_metricTitle);
    auto* metricProxy = new QSortFilterProxyModel(this);
    metricProxy->setSourceModel(m_metrics);
    metricProxy->setSortRole(panelexport::kRawRole);
    m_metricView = makeTable(metricProxy, metricPage, QStringLiteral("compareMetricTable"));
    m_metricView->setSortingEnabled(true);
    metricLayout->addWidget(m_metricView, 1);
    m_tabs->addTab(metricPage, tr("Metrics"));

    m_roofline = new RooflineComparePlot(m_tabs);
    m_tabs->addTab(m_roofline, tr("Roofline"));

    auto* hypPage = new QWidget(m_tabs);
    auto* hypLayout = new QVBoxLayout(hypPage);
    hypLayout->setContentsMargins(0, 0, 0, 0);
    auto* hypHelp = new QLabel(tr("Predict how B moves before looking: subject <i>latency</i>, <i>time</i> (with a "
                                  "kernel) or an ncu metric name; direction up, down or same; optional size in %. "
                                  "A size holds when at least half of it is observed."),
        hypPage);
    hypHelp->setWordWrap(true);
    hypLayout->addWidget(hypHelp);
    auto* hypView = makeTable(m_hypotheses, hypPage, QStringLiteral("hypothesisTable"));
    hypLayout->addWidget(hypView, 1);
    auto* hypButtons = new QHBoxLayout;
    auto* addHyp = new QPushButton(tr("Add prediction"), hypPage);
    auto* removeHyp = new QPushButton(tr("Remove"), hypPage);
    auto* saveHyp = new QPushButton(tr("Save in B"), hypPage);
    saveHyp->setObjectName(QStringLiteral("saveHypotheses"));
    saveHyp->setToolTip(tr("Store the predictions in B's session file (meta compare.hypotheses)"));
    hypButtons->addWidget(addHyp);
    hypButtons->addWidget(removeHyp);
    hypButtons->addStretch(1);
    hypButtons->addWidget(saveHyp);
    hypLayout->addLayout(hypButtons);
    m_tabs->addTab(hypPage, tr("Hypotheses"));
    lower->addWidget(m_tabs);
    lower->setSizes({900, 600});
    split->addWidget(lower);
    split->setSizes({230, 600});
    layout->addWidget(split, 1);
    setCentralWidget(central);
    resize(1500, 950);

    connect(m_doc, &CompareDocument::changed, this, [this] {
        if (std::exchange(m_adoptChain, false)) {
            m_chain = m_doc->chain();
            m_chainIndex = 0;
        }
        updateChain();
        rebuild();
    });
    connect(m_doc, &CompareDocument::failed, this, [this](const QString& message) {
        m_adoptChain = false;
        updateChain();
        showFailure(message);
    });
    connect(m_doc, &CompareDocument::loadingChanged, this, [this](bool loading) {
        if (loading)
            m_verdict->setText(tr("Loading %1 and %2…").arg(m_doc->pathA(), m_doc->pathB()));
    });
    connect(m_threshold, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (m_doc->hasComparison() && v != m_doc->options().rule.thresholdPct)
            m_doc->setThreshold(v);
    });
    connect(m_range, &QComboBox::activated, this,
        [this](int index) { m_doc->setRange(index <= 0 ? QString() : m_range->itemText(index)); });
    connect(m_kernelView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            m_selectedRow = current.isValid() ? m_kernelProxy->mapToSource(current).row() : -1;
            updateMetrics();
            if (m_distChoice->currentData().toInt() == -2)
                updateDistribution();
        });
    connect(pair, &QPushButton::clicked, this, [this] {
        if (!pairSelected())
            QMessageBox::information(
                this, tr("Pair kernels"), tr("Select exactly two rows: one kernel only in A and one only in B."));
    });
    connect(unpair, &QPushButton::clicked, m_doc, &CompareDocument::clearUserPairs);
    connect(exportKernels, &QPushButton::clicked, this,
        [this] { panelexport::exportModelDialog(this, m_kernels, QStringLiteral("compare-kernels")); });
    connect(m_distChoice, &QComboBox::activated, this, [this] { updateDistribution(); });
    connect(m_timeline, &CompareTimeline::launchClicked, this, [this](int side, int key) {
        for (int r = 0; r < m_kernels->rowCount(); ++r) {
            const auto* row = m_kernels->rowAt(r);
            if ((side == 0 ? row->keyA : row->keyB) == key) {
                selectKernelRow(r);
                return;
            }
        }
    });
    connect(m_hypotheses, &HypothesisModel::hypothesesEdited, this,
        [this](const std::vector<compare::Hypothesis>& list) { m_doc->setHypotheses(list); });
    connect(addHyp, &QPushButton::clicked, this, [this] {
        compare::Hypothesis h;
        h.subject = "latency";
        h.direction = compare::Hypothesis::Direction::Down;
        m_hypotheses->addHypothesis(h);
    });
    connect(removeHyp, &QPushButton::clicked, this, [this, hypView] {
        const auto rows = hypView->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            m_hypotheses->removeRows(rows.first().row(), 1);
    });
    connect(saveHyp, &QPushButton::clicked, this, [this] {
        if (m_doc->saveHypotheses())
            statusBar()->showMessage(
                tr("Saved %1 prediction(s) in %2").arg(m_doc->hypotheses().size()).arg(m_doc->pathB()), 5000);
    });
}

CompareWindow::~CompareWindow() = default;

void CompareWindow::open(const QString& pathA, const QString& pathB, const QStringList& extraBaselines)
{
    openPair(pathA, pathB, extraBaselines, false);
}

void CompareWindow::previousPair()
{
    stepTo(m_chainIndex + 1);
}

void CompareWindow::nextPair()
{
    stepTo(m_chainIndex - 1);
}

void CompareWindow::stepTo(int index)
{
    if (!m_chain.hasPair(index))
        return;
    m_chainIndex = index;
    const auto& attempts = m_chain.attempts;
    openPair(attempts[static_cast<size_t>(index) + 1].path, attempts[static_cast<size_t>(index)].path,
        m_doc->extraBaselines(), true);
    updateChain();
}

void CompareWindow::updateChain()
{
    const bool chained = m_chain.size() > 1;
    m_chainLabel->setVisible(chained);
    m_previousPair->setVisible(chained);
    m_nextPair->setVisible(chained);
    if (!chained)
        return;
    QString text = m_chain.describe(m_chainIndex);
    // Where A is not B's predecessor (A and B picked by hand), the chain is B's alone.
    const int a = m_chain.indexOf(m_doc->pathA());
    if (a != m_chainIndex + 1)
        text += tr("  (A is not B's predecessor)");
    m_chainLabel->setText(text);
    const bool loading = m_doc->isLoading();
    m_previousPair->setEnabled(!loading && m_chain.hasPair(m_chainIndex + 1));
    m_nextPair->setEnabled(!loading && m_chain.hasPair(m_chainIndex - 1));
    const auto& last = m_chain.attempts.back();
    const auto name = [this](int i) { return QFileInfo(m_chain.attempts[static_cast<size_t>(i)].path).fileName(); };
    if (m_chain.hasPair(m_chainIndex + 1))
        m_previousPair->setToolTip(
            tr("Compare the attempt before: %1 vs %2").arg(name(m_chainIndex + 2), name(m_chainIndex + 1)));
    else if (!last.ok())
        m_previousPair->setToolTip(tr("The attempt before, %1, is %2").arg(last.path, last.error));
    else
        m_previousPair->setToolTip(tr("This is the first attempt"));
    m_nextPair->setToolTip(m_chainIndex > 0
            ? tr("Compare the attempt after: %1 vs %2").arg(name(m_chainIndex), name(m_chainIndex - 1))
            : tr("This is the latest attempt"));
}

void CompareWindow::openPair(
    const QString& pathA, const QString& pathB, const QStringList& extraBaselines, bool stepping)
{
    m_adoptChain = !stepping;
    m_files->setText(
        tr("<b>A</b> (baseline): %1 &nbsp; <b>B</b>: %2%3")
            .arg(pathA.toHtmlEscaped(), pathB.toHtmlEscaped(),
                extraBaselines.isEmpty() ? QString()
                                         : tr(" &nbsp; pinned baselines: %1")
                                               .arg(extraBaselines.join(QStringLiteral(", ")).toHtmlEscaped())));
    setWindowTitle(tr("Warpscope — Compare %1 → %2").arg(QFileInfo(pathA).fileName(), QFileInfo(pathB).fileName()));
    m_doc->load(pathA, pathB, extraBaselines);
    updateChain();
}

void CompareWindow::chooseFile(int which)
{
    const QString path = QFileDialog::getOpenFileName(this,
        which == 0 ? tr("Baseline session (A)") : (which == 1 ? tr("Session B") : tr("Another baseline")),
        dialogDirectory(m_doc->pathA().isEmpty() ? m_doc->pathB() : m_doc->pathA(),
            QSettings().value(QStringLiteral("files/lastDir")).toString()),
        tr("Warpscope sessions (*.wscope);;All files (*)"));
    if (path.isEmpty())
        return;
    QString a = m_doc->pathA(), b = m_doc->pathB();
    QStringList extra = m_doc->extraBaselines();
    if (which == 0)
        a = path;
    else if (which == 1)
        b = path;
    else
        extra << path;
    if (!a.isEmpty() && !b.isEmpty())
        open(a, b, extra);
    else
        m_files->setText(tr("A: %1   B: %2").arg(a, b));
}

void CompareWindow::showFailure(const QString& message)
{
    QPalette pal = m_verdict->palette();
    pal.setColor(QPalette::Window, QColor(250, 225, 200));
    m_verdict->setPalette(pal);
    m_verdict->setText(tr("Cannot compare: %1").arg(message.toHtmlEscaped()));
}

void CompareWindow::rebuild()
{
    const compare::Comparison& c = m_doc->comparison();
    const auto& s = m_doc->sessions();
    QColor bg(235, 235, 235);
    QString head;
    switch (c.overall) {
    case compare::VerdictKind::Faster:
        bg = QColor(205, 238, 210);
        head = tr("FASTER");
        break;
    case compare::VerdictKind::Slower:
        bg = QColor(248, 208, 208);
        head = tr("SLOWER");
        break;
    case compare::VerdictKind::NoChange:
        head = tr("NO SIGNIFICANT CHANGE");
        break;
    case compare::VerdictKind::TooFewSamples:
        head = tr("TOO FEW SAMPLES");
        break;
    }
    QPalette pal = m_verdict->palette();
    pal.setColor(QPalette::Window, bg);
    m_verdict->setPalette(pal);
    QString z;
    if (std::isfinite(c.latencyZ))
        z = tr("<br>z-score of B against %1 baselines: %2")
                .arg(c.latencyBaselineMedians.size())
                .arg(c.latencyZ, 0, 'f', 2);
    m_verdict->setText(tr("<b>%1</b> — %2 (latency: %3)%4")
                           .arg(head, QString::fromStdString(c.overallText).toHtmlEscaped(),
                               QString::fromStdString(c.verdictSource), z));

    const QString current = QString::fromStdString(m_doc->options().rangeName);
    m_range->clear();
    m_range->addItem(tr("(first kernel)"));
    for (const auto& name : compare::rangesWithKernels(s.a))
        m_range->addItem(QString::fromStdString(name));
    m_range->setCurrentIndex(std::max(0, m_range->findText(current)));
    if (m_threshold->value() != m_doc->options().rule.thresholdPct)
        m_threshold->setValue(m_doc->options().rule.thresholdPct);

    m_kernels->setComparison(&c, m_doc->options().rule.alpha, m_doc->options().rule.thresholdPct);
    m_kernelView->sortByColumn(-1, Qt::AscendingOrder);
    m_kernelView->resizeColumnsToContents();
    m_kernelView->setColumnWidth(CompareKernelModel::Kernel, std::min(m_kernelView->columnWidth(0), 210));
    m_kernelView->setColumnWidth(CompareKernelModel::Path, std::min(m_kernelView->columnWidth(1), 125));
    // Sessions without NVTX paths: the column would only take room.
    bool anyPath = false;
    for (const auto& row : c.kernels)
        anyPath |= !row.path.empty();
    m_kernelView->setColumnHidden(CompareKernelModel::Path, !anyPath);
    m_timeline->setComparison(&s.a, &s.b, &c);
    // Two benchmark sessions have no launches: their runs take the place of the timeline's
    // kernels and of the kernel table.
    const bool benchOnly = s.a.launches.empty() && s.b.launches.empty();
    m_timelineArea->setVisible(!benchOnly);
    m_benchRuns->setReport(compare::benchTable(c));
    m_tables->setCurrentIndex(benchOnly ? 1 : 0);
    m_pairButtons->setVisible(!benchOnly);
    if (benchOnly)
        static_cast<QTableView*>(m_tables->widget(1))->resizeColumnsToContents();
    m_roofline->setComparison(&s.a, &s.b, &c);
    m_hypotheses->setHypotheses(m_doc->hypotheses(), c.hypotheses);

    QStringList notes;
    for (const auto& n : c.notes)
        notes << QString::fromStdString(n).toHtmlEscaped();
    m_notes->setText(notes.join(QStringLiteral("<br>")));

    const int previous = m_distChoice->currentData().isValid() ? m_distChoice->currentData().toInt() : -1;
    m_distChoice->clear();
    m_distChoice->addItem(
        c.bench.empty() ? tr("Latency: GPU time per iteration") : tr("Latency: first benchmark run"), -1);
    for (size_t i = 0; i < c.bench.size(); ++i)
        m_distChoice->addItem(tr("Benchmark: %1").arg(QString::fromStdString(c.bench[i].titleB)), int(i));
    m_distChoice->addItem(tr("Selected kernel: duration per launch"), -2);
    m_distChoice->setCurrentIndex(std::max(0, m_distChoice->findData(previous)));
    m_selectedRow = -1;
    updateDistribution();
    updateMetrics();
}

void CompareWindow::updateDistribution()
{
    if (!m_doc->hasComparison())
        return;
    const compare::Comparison& c = m_doc->comparison();
    const auto& s = m_doc->sessions();
    const int choice = m_distChoice->currentData().toInt();
    if (choice == -2) {
        const auto* row = m_kernels->rowAt(m_selectedRow);
        if (!row || !row->matched()) {
            m_distribution->setData({}, {}, tr("Selected kernel"), tr("µs"), {});
            return;
        }
        auto a = s.a.durations(static_cast<uint32_t>(row->keyA));
        auto b = s.b.durations(static_cast<uint32_t>(row->keyB));
        for (double& v : a)
            v /= 1000;
        for (double& v : b)
            v /= 1000;
        m_distribution->setData(a, b, QString::fromStdString(compactKernelName(row->name, 40)), tr("µs"),
            compare::decide(a, b, m_doc->options().rule));
        return;
    }
    if (!c.bench.empty()) {
        const auto& run = c.bench[static_cast<size_t>(std::max(0, choice))];
        m_distribution->setData(run.samplesA, run.samplesB, QString::fromStdString(run.titleB), tr("µs"), run.verdict);
        return;
    }
    auto a = c.iterationsA.values;
    auto b = c.iterationsB.values;
    for (double& v : a)
        v /= 1000;
    for (double& v : b)
        v /= 1000;
    compare::Verdict v = c.verdict;
    v.medianA /= 1000;
    v.medianB /= 1000;
    m_distribution->setData(a, b, tr("GPU time per iteration"), tr("µs"), v);
}

void CompareWindow::updateMetrics()
{
    const auto* row = m_kernels->rowAt(m_selectedRow);
    if (!row || !row->matched() || !m_doc->hasComparison()) {
        m_metrics->setRows({});
        m_metricTitle->setText(row ? tr("%1 is not matched: nothing to compare.").arg(QString::fromStdString(row->name))
                                   : tr("Select a matched kernel in the table."));
        return;
    }
    const auto& s = m_doc->sessions();
    auto rows = compare::compareMetrics(s.a, s.b, *row);
    m_metricTitle->setText(rows.empty()
            ? tr("%1: no metrics on both sides (compare two profile sessions).")
                  .arg(QString::fromStdString(compactKernelName(row->name, 60)))
            : tr("%1: %2 metrics, medians of the profiled launches, largest change first; green = better for B, "
                 "red = worse (beyond the threshold)")
                  .arg(QString::fromStdString(compactKernelName(row->name, 60)))
                  .arg(rows.size()));
    m_metrics->setRows(std::move(rows), m_doc->options().rule.thresholdPct);
    if (m_metricView) {
        m_metricView->sortByColumn(-1, Qt::AscendingOrder); // the model's order: largest change first
        m_metricView->resizeColumnsToContents();
        m_metricView->setColumnWidth(CompareMetricModel::Metric, std::min(m_metricView->columnWidth(0), 230));
        m_metricView->setColumnWidth(CompareMetricModel::Unit, std::min(m_metricView->columnWidth(1), 80));
    }
}

void CompareWindow::selectKernelRow(int sourceRow)
{
    const QModelIndex proxy = m_kernelProxy->mapFromSource(m_kernels->index(sourceRow, 0));
    if (!proxy.isValid())
        return;
    m_kernelView->selectionModel()->setCurrentIndex(
        proxy, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_kernelView->scrollTo(proxy);
}

bool CompareWindow::pairSelected()
{
    const auto rows = m_kernelView->selectionModel()->selectedRows();
    if (rows.size() != 2)
        return false;
    int keyA = -1, keyB = -1;
    for (const auto& index : rows) {
        const auto* row = m_kernels->rowAt(m_kernelProxy->mapToSource(index).row());
        if (!row || row->matched())
            return false;
        if (row->keyA >= 0)
            keyA = row->keyA;
        else
            keyB = row->keyB;
    }
    if (keyA < 0 || keyB < 0)
        return false;
    m_doc->pairKernels(keyA, keyB);
    return true;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/sourcepanel.h"

#include "ui/style/colorscheme.h"

#include "core/source/stallreasonname.h"
#include "ui/panels/stallbardelegate.h"
#include "ui/panels/syntaxdelegate.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ws {

namespace {

QTableView* makeTable(QWidget* parent, const QString& name)
{
    auto* t = new QTableView(parent);
    t->setObjectName(name);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 4);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    t->setShowGrid(false);
    t->setItemDelegateForColumn(SassTableModel::Reasons, new StallBarDelegate(t)); // same column in both
    return t;
}

// The width of the stall bar column: a bar, no text (the reasons are in its tooltip).
constexpr int kBarColumn = 56;

// Numbers sized to their contents, the reason bar narrow, the text (last column) takes the rest:
// resizing to contents would make the source or SASS column as wide as its longest line.
void fitColumns(QTableView* t, std::initializer_list<int> numeric, int bars)
{
    for (int c : numeric)
        t->resizeColumnToContents(c);
    t->setColumnWidth(bars, kBarColumn);
}

QString percent(int64_t n, int64_t total)
{
    return total > 0 ? QStringLiteral("%1%").arg(100.0 * static_cast<double>(n) / static_cast<double>(total), 0, 'f', 1)
                     : QStringLiteral("-");
}

} // namespace

SourcePanel::SourcePanel(KernelFocus* focus, QWidget* parent)
    : QWidget(parent)
    , m_focus(focus)
    , m_summary(new QLabel(this))
    , m_banner(new QLabel(this))
    , m_reasonBox(new QComboBox(this))
    , m_fileBox(new QComboBox(this))
    , m_hottest(new QCheckBox(tr("Hottest only"), this))
    , m_hottestCount(new QSpinBox(this))
    , m_split(new QSplitter(Qt::Horizontal, this))
    , m_sourceView(makeTable(m_split, QStringLiteral("sourceLines")))
    , m_sassView(makeTable(m_split, QStringLiteral("sassInstructions")))
    , m_lines(new SourceLineModel(this))
    , m_sass(new SassTableModel(this))
    , m_hottestButton(new QToolButton(this))
    , m_fullButton(new QToolButton(this))
{
    m_sourceView->setItemDelegateForColumn(
        SourceLineModel::Source, new SyntaxDelegate(SyntaxDelegate::Language::Cuda, m_sourceView));
    m_sassView->setItemDelegateForColumn(
        SassTableModel::Instruction, new SyntaxDelegate(SyntaxDelegate::Language::Sass, m_sassView));

    auto* hottest = new QAction(tr("Hottest line"), this);
    hottest->setShortcut(QKeySequence(Qt::Key_H));
    hottest->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    hottest->setToolTip(tr("Go to the hottest source line (H); again for the next hottest. With a stall reason "
                           "chosen, the lines where it has most samples."));
    connect(hottest, &QAction::triggered, this, [this] { goToHottestLine(); });
    addAction(hottest);
    m_hottestButton->setObjectName(QStringLiteral("hottestLine"));
    m_hottestButton->setDefaultAction(hottest);
    auto* full = new QAction(tr("Full window"), this);
    full->setCheckable(true);
    full->setShortcut(QKeySequence(Qt::Key_F11));
    full->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    full->setToolTip(tr("Show the source over the whole window (F11); again to put it back"));
    connect(full, &QAction::toggled, this, &SourcePanel::setFullWindow);
    addAction(full);
    m_fullButton->setObjectName(QStringLiteral("fullWindow"));
    m_fullButton->setDefaultAction(full);

    setObjectName(QStringLiteral("sourcePanel"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(ColorScheme::bannerStyle(palette()));
    m_reasonBox->setObjectName(QStringLiteral("stallReason"));
    m_reasonBox->setToolTip(tr("Highlight where a stall reason dominates (also chosen by clicking a bar of the "
                               "warp-state panel's stall chart)"));
    m_fileBox->setObjectName(QStringLiteral("sourceFile"));
    // Combos sized by a fixed number of characters, not their longest entry: the panel shares a
    // dock tab group and must not widen the window.
    for (QComboBox* box : {m_reasonBox, m_fileBox}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(2);
    }
    m_hottestCount->setRange(1, 1000);
    m_hottestCount->setValue(10);
    m_hottestCount->setToolTip(tr("Number of instructions kept by \"Hottest only\""));
    m_fileBox->setToolTip(tr("Source file shown on the left"));

    m_sourceView->setModel(m_lines);
    m_sassView->setModel(m_sass);
    m_split->addWidget(m_sourceView);
    m_split->addWidget(m_sassView);
    m_split->setStretchFactor(0, 1);
    m_split->setStretchFactor(1, 1);

    // Two rows of controls: one row of all of them would set a minimum width that widens the
    // window at 1366 px (the combos shrink, the buttons do not).
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_reasonBox, 1);
    bar->addWidget(m_fileBox, 1);
    bar->addWidget(m_hottestButton);
    auto* tools = new QHBoxLayout;
    tools->addWidget(m_hottest);
    tools->addWidget(m_hottestCount);
    tools->addStretch(1);
    tools->addWidget(m_fullButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_banner);
    layout->addLayout(bar);
    layout->addLayout(tools);
    layout->addWidget(m_split, 1);

    connect(m_focus, &KernelFocus::dataChanged, this, [this] {
        loadTables();
        refresh();
    });
    connect(m_focus, &KernelFocus::changed, this, &SourcePanel::refresh);
    connect(m_reasonBox, &QComboBox::activated, this, [this](int i) {
        onReasonIndex(i);
        const QString key = i > 0 && m_view
            ? QString::fromStdString(StallReasonName::key(m_view->reasons()[static_cast<size_t>(i - 1)]))
            : QString();
        emit stallReasonChosen(key);
    });
    connect(m_fileBox, &QComboBox::activated, this, [this](int i) { showFile(i); });
    connect(
        m_hottest, &QCheckBox::toggled, this, [this](bool on) { setHottestOnly(on ? m_hottestCount->value() : 0); });
    connect(m_hottestCount, &QSpinBox::valueChanged, this, [this](int n) {
        if (m_hottest->isChecked())
            setHottestOnly(n);
    });
    connect(m_sourceView, &QTableView::clicked, this, [this](const QModelIndex& i) {
        const auto* f = m_view && m_lines->fileIndex() >= 0
            ? &m_view->files()[static_cast<size_t>(m_lines->fileIndex())]
            : nullptr;
        if (f && i.row() < static_cast<int>(f->lines.size()))
            selectSourceLine(f->lines[static_cast<size_t>(i.row())].line);
    });
    connect(m_sassView, &QTableView::clicked, this,
        [this](const QModelIndex& i) { selectSassRow(static_cast<int>(m_sass->sassRow(i.row()))); });
    loadTables();
    refresh();
}

void SourcePanel::loadTables()
{
    // The document read the tables with the rest of the panel data, on its worker.
    m_tables.reset();
    m_strings.reset();
    const auto& panelData = m_focus->data();
    if (!panelData)
        return;
    m_tables = panelData->sourceTables;
    m_strings = panelData->sourceStrings;
    if (!panelData->sourceError.isEmpty())
        m_banner->setText(tr("Source counters could not be read: %1").arg(panelData->sourceError));
}

void SourcePanel::refresh()
{
    const qint64 kernel = m_focus->current();
    const auto& panelData = m_focus->data();
    m_kernel = kernel;
    m_hotRank = -1;
    m_view.reset();
    // In a multi-run session the samples come from a PC-sampling run's launch linked to this one.
    qint64 sampled = panelData && kernel >= 0 ? panelData->sampledLaunch(kernel) : kernel;
    // This launch was not sampled: show a sampled launch of the same kernel, and say so.
    const qint64 sibling = panelData && kernel >= 0 && sampled < 0 ? panelData->sampledLaunchOfSameKernel(kernel) : -1;
    if (sibling >= 0)
        sampled = panelData->sampledLaunch(sibling);
    const qint64 samplesOf = sibling >= 0 ? sibling : kernel;
    if (m_tables && m_strings && sampled >= 0)
        m_view = std::make_shared<SourceView>(*m_tables, *m_strings, sampled, std::string());

    m_reasonBox->clear();
    m_fileBox->clear();
    m_reasonBox->addItem(tr("All stall reasons"));
    const bool have = m_view && !m_view->empty();
    m_banner->setVisible(!have);
    if (!m_tables || m_tables->empty())
        m_banner->setText(tr("No source counters in this session: %1 (PC sampling per SASS instruction; build "
                             "with -lineinfo for source lines).")
                              .arg(PanelData::notSampledText()));
    else if (kernel < 0)
        m_banner->setText(tr("Select a kernel launch to see its source counters."));
    else if (!have)
        m_banner->setText(
            tr("No PC samples for this launch (it was not sampled): %1.").arg(PanelData::notSampledText()));
    m_summary->clear();
    if (!have) {
        m_sass->setView(nullptr);
        m_lines->setView(nullptr, -1);
        return;
    }
    const SourceView& v = *m_view;
    for (size_t i = 0; i < v.reasons().size(); ++i) {
        m_reasonBox->addItem(QStringLiteral("%1  (%2)")
                                 .arg(QString::fromStdString(StallReasonName::label(v.reasons()[i])))
                                 .arg(percent(v.reasonTotals()[i], v.totalSamples())));
        m_reasonBox->setItemData(
            static_cast<int>(i + 1), sourcecolors::reason(static_cast<int>(i)), Qt::DecorationRole);
    }
    for (const auto& f : v.files())
        m_fileBox->addItem(QFileInfo(QString::fromStdString(f.path)).fileName(), QString::fromStdString(f.path));

    const auto hot = v.hottestLine();
    QString where = tr("no line information (build with -lineinfo)");
    if (hot.first >= 0) {
        const auto& f = v.files()[static_cast<size_t>(hot.first)];
        const auto& l = f.lines[static_cast<size_t>(hot.second - 1)];
        const int d = v.dominantReason(l.samples);
        where = tr("hottest line %1:%2 (%3 of samples, mostly %4)")
                    .arg(QFileInfo(QString::fromStdString(f.path)).fileName())
                    .arg(hot.second)
                    .arg(percent(l.total, v.totalSamples()))
                    .arg(d >= 0 ? QString::fromStdString(StallReasonName::label(v.reasons()[static_cast<size_t>(d)]))
                                : QString());
    }
    const int top = v.reasons().empty() ? -1 : 0;
    m_summary->setText(tr("<b>%1</b> (launch %2): %3 stall samples over %4 SASS instructions; top reason %5 (%6); %7")
                           .arg(panelData ? panelData->shortName(kernel).toHtmlEscaped() : QString())
                           .arg(kernel)
                           .arg(v.totalSamples())
                           .arg(v.sassRows().size())
                           .arg(top >= 0 ? QString::fromStdString(StallReasonName::label(v.reasons()[0])) : QString())
                           .arg(top >= 0 ? percent(v.reasonTotals()[0], v.totalSamples()) : QString())
                           .arg(where.toHtmlEscaped())
        + (sibling >= 0 ? tr("<br><b>This launch (%1) was not sampled: these are the samples of launch %2 of the "
                             "same kernel</b> (sampled in launch %3); right-click the kernel → Sample stall reasons "
                             "for this launch to sample this one.")
                              .arg(kernel)
                              .arg(sibling)
                              .arg(sampled)
                : sampled != kernel
                ? tr(" — sampled in launch %1 of a PC-sampling run, linked to this traced launch").arg(sampled)
                : QString())
        + (panelData && panelData->runs.size() > 1
                ? QStringLiteral("<br><i>%1</i>").arg(panelData->samplesProvenance(samplesOf).toHtmlEscaped())
                : QString()));

    m_sass->setView(m_view);
    // Instructions executed come from SASS metrics, which a PC sampling run may not have.
    m_sassView->setColumnHidden(SassTableModel::Executed,
        std::none_of(v.sassRows().begin(), v.sassRows().end(), [](const auto& r) { return r.instExecuted >= 0; }));
    m_sass->setHottestOnly(m_hottest->isChecked() ? static_cast<size_t>(m_hottestCount->value()) : 0);
    const int file = hot.first >= 0 ? hot.first : (v.files().empty() ? -1 : 0);
    showFile(file);
    fitColumns(m_sassView,
        {SassTableModel::Address, SassTableModel::Samples, SassTableModel::Executed, SassTableModel::Line},
        SassTableModel::Reasons);
    if (hot.first >= 0)
        selectSourceLine(hot.second);
}

void SourcePanel::showFile(int fileIndex)
{
    if (fileIndex != m_fileBox->currentIndex() && fileIndex >= 0)
        m_fileBox->setCurrentIndex(fileIndex);
    m_lines->setView(m_view, fileIndex);
    fitColumns(m_sourceView, {SourceLineModel::LineNumber, SourceLineModel::Samples}, SourceLineModel::Reasons);
}

void SourcePanel::onReasonIndex(int comboIndex)
{
    if (!m_view)
        return;
    const int reason = comboIndex - 1;
    m_hotRank = -1;
    m_sass->highlightReason(reason);
    m_lines->highlightReason(reason);
    if (reason < 0)
        return;
    const auto where = m_view->hottestLineFor(reason);
    if (where.first >= 0) {
        if (where.first != m_lines->fileIndex())
            showFile(where.first);
        m_sourceView->scrollTo(m_lines->index(where.second - 1, 0), QAbstractItemView::PositionAtCenter);
    }
    const auto rows = m_view->rowsWithReason(reason);
    size_t best = rows.empty() ? 0 : rows.front();
    for (size_t r : rows) {
        if (m_view->sassRows()[r].samples[static_cast<size_t>(reason)]
            > m_view->sassRows()[best].samples[static_cast<size_t>(reason)])
            best = r;
    }
    if (!rows.empty()) {
        const int row = m_sass->rowOf(best);
        if (row >= 0)
            m_sassView->scrollTo(m_sass->index(row, 0), QAbstractItemView::PositionAtCenter);
    }
}

void SourcePanel::setStallReason(const QString& keyOrName)
{
    if (!m_view)
        return;
    const int reason = keyOrName.isEmpty() ? -1 : m_view->reasonIndex(keyOrName.toStdString());
    m_reasonBox->setCurrentIndex(reason + 1);
    onReasonIndex(reason + 1);
}

void SourcePanel::selectSourceLine(int line)
{
    if (!m_view || m_lines->fileIndex() < 0)
        return;
    m_reasonBox->setCurrentIndex(0);
    m_lines->highlightLine(line);
    m_sass->highlightLine(m_lines->fileIndex(), line);
    if (line > 0)
        m_sourceView->scrollTo(m_lines->index(line - 1, 0), QAbstractItemView::PositionAtCenter);
    const auto& f = m_view->files()[static_cast<size_t>(m_lines->fileIndex())];
    if (line <= 0 || static_cast<size_t>(line) > f.lines.size())
        return;
    // Centre the line's instruction with the most samples (else its first one shown).
    int target = -1;
    int64_t most = -1;
    for (size_t r : f.lines[static_cast<size_t>(line - 1)].sassRows) {
        const int row = m_sass->rowOf(r);
        if (row >= 0 && m_view->sassRows()[r].total > most) {
            most = m_view->sassRows()[r].total;
            target = row;
        }
    }
    if (target >= 0)
        m_sassView->scrollTo(m_sass->index(target, 0), QAbstractItemView::PositionAtCenter);
}

void SourcePanel::selectSassRow(int sassRow)
{
    if (!m_view || sassRow < 0 || static_cast<size_t>(sassRow) >= m_view->sassRows().size())
        return;
    const auto& r = m_view->sassRows()[static_cast<size_t>(sassRow)];
    if (r.fileIndex < 0 || r.line <= 0) {
        m_lines->highlightLine(0);
        m_sass->highlightLine(-1, 0);
        return;
    }
    if (r.fileIndex != m_lines->fileIndex())
        showFile(r.fileIndex);
    selectSourceLine(r.line);
}

int SourcePanel::goToHottestLine()
{
    if (!m_view)
        return 0;
    const int reason = m_reasonBox->currentIndex() - 1;
    // Every sampled line of every file by its samples (of the reason), hottest first.
    struct Hot {
        int file;
        int line;
        int64_t samples;
    };
    std::vector<Hot> hot;
    for (size_t f = 0; f < m_view->files().size(); ++f) {
        for (const auto& l : m_view->files()[f].lines) {
            const int64_t n = reason >= 0 && static_cast<size_t>(reason) < l.samples.size()
                ? l.samples[static_cast<size_t>(reason)]
                : l.total;
            if (n > 0)
                hot.push_back({static_cast<int>(f), l.line, n});
        }
    }
    if (hot.empty())
        return 0;
    std::stable_sort(hot.begin(), hot.end(), [](const Hot& a, const Hot& b) { return a.samples > b.samples; });
    m_hotRank = (m_hotRank + 1) % static_cast<int>(hot.size());
    const Hot& h = hot[static_cast<size_t>(m_hotRank)];
    if (h.file != m_lines->fileIndex())
        showFile(h.file);
    const int rank = m_hotRank;
    if (reason < 0) {
        selectSourceLine(h.line);
    } else {
        // Keep the reason's highlight: only move to the line.
        m_sourceView->scrollTo(m_lines->index(h.line - 1, 0), QAbstractItemView::PositionAtCenter);
    }
    m_hotRank = rank;
    m_sourceView->setCurrentIndex(m_lines->index(h.line - 1, SourceLineModel::Source));
    return h.line;
}

bool SourcePanel::isFullWindow() const
{
    return m_fullButton->isChecked();
}

void SourcePanel::setFullWindow(bool on)
{
    if (m_fullButton->isChecked() != on) {
        m_fullButton->defaultAction()->setChecked(on); // toggles back into here
        return;
    }
    auto* dock = qobject_cast<QDockWidget*>(parentWidget());
    auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
    if (!dock || !window)
        return;
    if (on) {
        dock->setFloating(true);
        dock->setGeometry(window->geometry());
        dock->raise();
        dock->activateWindow();
    } else {
        dock->setFloating(false);
        dock->raise();
    }
    m_sourceView->setFocus();
}

void SourcePanel::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    // Side by side only where each half still shows a readable line; else source above SASS.
    const Qt::Orientation o = width() >= kSideBySideWidth ? Qt::Horizontal : Qt::Vertical;
    if (m_split->orientation() != o)
        m_split->setOrientation(o);
}

void SourcePanel::setHottestOnly(int n)
{
    m_sass->setHottestOnly(n > 0 ? static_cast<size_t>(n) : 0);
    if (n > 0 && !m_hottest->isChecked()) {
        const QSignalBlocker block(m_hottest);
        m_hottest->setChecked(true);
        m_hottestCount->setValue(n);
    } else if (n == 0 && m_hottest->isChecked()) {
        const QSignalBlocker block(m_hottest);
        m_hottest->setChecked(false);
    }
}

} // namespace ws

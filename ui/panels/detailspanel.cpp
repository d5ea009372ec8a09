// SPDX-License-Identifier: MIT
#include "ui/panels/detailspanel.h"

#include "ui/panels/sectionrows.h"

#include "core/metrics/profiledescription.h"

#include "core/ranking/compactname.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/plotstyle.h"
#include "ui/style/colorscheme.h"
#include "ui/style/timeformat.h"

#include <QEvent>
#include <QFontMetrics>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <vector>

namespace ws {

DetailsPanel::DetailsPanel(KernelFocus* focus, const QString& objectName, QWidget* parent)
    : QWidget(parent)
    , m_focus(focus)
    , m_table(new MetricTableModel(this))
    , m_shownTable(new MetricBaselineModel(m_table, this))
    , m_tableView(new QTableView(this))
    , m_kernels(new QLabel(this))
    , m_banner(new QLabel(this))
    , m_provenance(new QLabel(this))
    , m_pin(new QToolButton(this))
    , m_plotGrid(new QGridLayout)
{
    setObjectName(objectName);
    m_tableView->setModel(m_shownTable);
    m_tableView->verticalHeader()->hide();
    m_tableView->verticalHeader()->setDefaultSectionSize(m_tableView->fontMetrics().height() + 4);
    m_tableView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_tableView->horizontalHeader()->setStretchLastSection(false);
    // The table shows all its rows; the page (table, then plots) scrolls as one, like ncu's
    // details page, instead of two small scrolling areas.
    m_tableView->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_tableView->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    m_tableView->setAlternatingRowColors(true);
    m_tableView->setTextElideMode(Qt::ElideRight);
    m_tableView->installEventFilter(this);
    m_tableView->setWordWrap(false);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);

    m_kernels->setTextFormat(Qt::RichText);
    m_kernels->setWordWrap(true);
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet(ColorScheme::bannerStyle(palette()));
    m_banner->setVisible(false);
    m_provenance->setObjectName(QStringLiteral("provenance"));
    m_provenance->setWordWrap(true);
    m_provenance->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_provenance->setStyleSheet(QStringLiteral("QLabel { font-style: italic; }"));
    m_provenance->setVisible(false);
    m_pin->setText(tr("Pin"));
    m_pin->setToolTip(tr("Pin the current kernel: it stays as a column while you select others, to compare"));
    auto* clear = new QToolButton(this);
    clear->setText(tr("Clear pins"));
    auto* csv = new QToolButton(this);
    csv->setText(tr("CSV…"));
    csv->setToolTip(tr("Export the table as CSV"));

    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_kernels, 1);
    top->addWidget(m_pin);
    top->addWidget(clear);
    top->addWidget(csv);

    auto* page = new QWidget;
    m_page = page;
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->setSpacing(6);
    pageLayout->addWidget(m_tableView);
    pageLayout->addLayout(m_plotGrid);
    pageLayout->addStretch(1);
    m_plotGrid->setContentsMargins(0, 0, 0, 0);
    m_plotGrid->setSpacing(6);
    auto* scroll = new QScrollArea(this);
    m_scroll = scroll;
    m_scrollViewport = scroll->viewport();
    m_scrollViewport->installEventFilter(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(page);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_banner);
    layout->addWidget(m_provenance);
    layout->addWidget(scroll, 1);

    connect(m_pin, &QToolButton::clicked, m_focus, &KernelFocus::togglePinCurrent);
    connect(clear, &QToolButton::clicked, m_focus, &KernelFocus::clearPins);
    connect(csv, &QToolButton::clicked, this,
        [this] { panelexport::exportModelDialog(this, m_shownTable, this->objectName()); });
    connect(m_focus, &KernelFocus::changed, this, &DetailsPanel::refresh);
}

QString DetailsPanel::notCollectedText()
{
    return tr("Kernel metrics not collected for this launch: %1.").arg(PanelData::notProfiledText());
}

QCustomPlot* DetailsPanel::addPlot(const QString& objectName, int row, int column, int rowSpan, int columnSpan)
{
    QCustomPlot* plot = plotstyle::makePlot(objectName, this);
    m_plotGrid->addWidget(plot, row, column, rowSpan, columnSpan);
    panelexport::addPlotExportMenu(plot, objectName);
    m_plots.append(plot);
    return plot;
}

void DetailsPanel::refresh()
{
    m_shown.clear();
    const auto& session = m_focus->data();
    int index = 0;
    if (session) {
        for (const KernelFocus::Column& c : m_focus->columns()) {
            const KernelLaunchTable::Launch* l = session->launches.find(c.kernelId);
            if (!l)
                continue;
            ShownKernel k;
            k.kernelId = c.kernelId;
            k.pinned = c.pinned;
            k.current = c.current;
            k.color = panelformat::seriesColor(index++);
            k.launch = l;
            k.config = &session->launches.configs()[l->config];
            k.profiled = session->profiled(c.kernelId);
            k.facts = session->facts(c.kernelId);
            const KernelGroup& g = session->launches.groups()[l->group];
            k.title
                = QStringLiteral("#%1 %2").arg(c.kernelId).arg(QString::fromStdString(compactKernelName(g.name, 28)));
            k.tooltip = QStringLiteral("<b>%1</b><br>launch #%2, %3 on the GPU%4%5")
                            .arg(QString::fromStdString(g.name).toHtmlEscaped())
                            .arg(c.kernelId)
                            .arg(formatDuration(l->duration()))
                            .arg(c.pinned ? tr(", pinned") : QString())
                            .arg(c.current ? tr(", current selection") : QString());
            m_shown.append(k);
        }
    }
    QStringList names;
    for (const ShownKernel& k : m_shown) {
        names << QStringLiteral("<span style='color:%1'>&#9632;</span> %2%3")
                     .arg(k.color.name(), k.title.toHtmlEscaped(),
                         k.pinned ? tr(" <i>(pinned)</i>") : (k.current ? tr(" <i>(selected)</i>") : QString()));
    }
    m_kernels->setText(names.isEmpty() ? tr("Select a kernel in the timeline, the ranking or the roofline.")
                                       : names.join(QStringLiteral("&nbsp;&nbsp; ")));
    m_pin->setEnabled(m_focus->current() >= 0);
    m_pin->setText(m_focus->isPinned(m_focus->current()) ? tr("Unpin") : tr("Pin"));

    // Every number says where it comes from: per shown kernel its run and launch (the traced
    // launches of a multi-run session show a profile run's metrics), then how that run measured.
    QStringList lines;
    if (session && anyProfiled()) {
        for (const ShownKernel& k : m_shown) {
            QString line = k.profiled ? session->metricsProvenance(k.kernelId) : PanelData::notProfiledText();
            if (!line.isEmpty())
                line[0] = line[0].toUpper();
            lines << (m_shown.size() > 1 ? QStringLiteral("%1: %2").arg(k.title, line) : line);
        }
        const std::string how = describeProfileRun(session->measurementMeta(firstProfiled()));
        if (!how.empty())
            lines << QString::fromStdString(how);
    }
    const QString measured = lines.join(QLatin1Char('\n'));
    const bool missing = session && !m_shown.isEmpty() && !anyProfiled();
    m_banner->setVisible(missing);
    if (missing) {
        QString text = notCollectedText();
        // Another launch of the same kernel may have been profiled: say which.
        const ShownKernel& last = m_shown.back();
        if (const auto* other = session->representative(last.launch->group); other && session->profiled(other->id))
            text += tr(" Launch #%1 of this kernel was profiled (the ranking selects it).").arg(other->id);
        if (!needsMetrics())
            text += tr(" Launch configuration and theoretical occupancy below come from the trace and the occupancy "
                       "calculator.");
        m_banner->setText(text);
    }
    rebuild();
    // Known differences from ncu: the legend of the mark, or why they could not be read.
    QStringList provenance;
    if (!measured.isEmpty())
        provenance << measured;
    if (m_table->hasNotes()) {
        provenance << tr("%1 marks a value that differed from ncu's beyond ncu's own run-to-run spread on the "
                         "fidelity suite (H200); hover it for how much and why.")
                          .arg(MetricTableModel::differenceMark());
    } else if (session && anyProfiled() && !PanelSections::knownDifferences()) {
        provenance << tr("Known differences from ncu not shown: %1").arg(PanelSections::knownDifferencesError());
    }
    m_provenance->setText(provenance.join(QLatin1Char('\n')));
    m_provenance->setVisible(!provenance.isEmpty());
    // Group titles span the whole row.
    m_tableView->clearSpans();
    for (int r = 0; r < m_table->rowCount(); ++r) {
        if (m_table->rows()[static_cast<size_t>(r)].heading)
            m_tableView->setSpan(r, 0, 1, m_shownTable->columnCount());
    }
    fitColumns();
    int height = m_tableView->horizontalHeader()->height() + 2 * m_tableView->frameWidth();
    for (int r = 0; r < m_table->rowCount(); ++r)
        height += m_tableView->rowHeight(r);
    m_tableView->setFixedHeight(height);
}

void DetailsPanel::fitColumns()
{
    m_tableView->resizeColumnsToContents();
    // What the cells need, without the header (a kernel's name in it can be long; it elides).
    std::vector<int> content(static_cast<size_t>(m_shownTable->columnCount()));
    const QFontMetrics metrics = m_tableView->fontMetrics();
    for (int c = 0; c < m_shownTable->columnCount(); ++c) {
        for (int r = 0; r < m_table->rowCount(); ++r) {
            if (m_table->rows()[static_cast<size_t>(r)].heading)
                continue; // spans the row
            const QString text = m_shownTable->data(m_shownTable->index(r, c)).toString();
            content[static_cast<size_t>(c)]
                = std::max(content[static_cast<size_t>(c)], metrics.horizontalAdvance(text) + 12);
        }
    }
    m_tableView->setColumnWidth(0, std::clamp(m_tableView->columnWidth(0), 200, 330));
    for (int c = 2; c < m_shownTable->columnCount(); ++c) {
        // Differences are short ("+12.3 %"): narrower than the values they compare.
        const bool value = m_shownTable->column(c).kind == MetricBaselineModel::Kind::Value;
        m_tableView->setColumnWidth(c, std::clamp(m_tableView->columnWidth(c), value ? 170 : 70, value ? 260 : 130));
    }
    // The page scrolls sideways when its plots are wider than the panel; the table's values must
    // fit what is visible.
    const int frame = 2 * m_tableView->frameWidth();
    const int available = (m_scroll ? m_scroll->viewport()->width() : m_tableView->viewport()->width()) - frame;
    int used = 0;
    for (int c = 0; c < m_shownTable->columnCount(); ++c)
        used += m_tableView->columnWidth(c);
    // Narrow the metric names down to 120 px, the units down to 50 px, then the value columns
    // down to what their values need.
    std::vector<std::pair<int, int>> shrinkable {{0, 120}, {1, 50}};
    for (int c = 2; c < m_shownTable->columnCount(); ++c)
        shrinkable.emplace_back(c, std::max(70, content[static_cast<size_t>(c)]));
    // The names and units one by one; the kernel and Δ columns evenly, so no pin is squeezed
    // to an elided header while another keeps its width.
    for (const auto& [column, least] : shrinkable) {
        if (used <= available || column >= 2)
            break;
        const int width = m_tableView->columnWidth(column);
        const int narrower = std::max(std::min(least, width), width - (used - available));
        used -= width - narrower;
        m_tableView->setColumnWidth(column, narrower);
    }
    for (bool shrunk = true; used > available && shrunk;) {
        shrunk = false;
        const int share = std::max(1, (used - available) / std::max(1, m_shownTable->columnCount() - 2));
        for (const auto& [column, least] : shrinkable) {
            const int width = m_tableView->columnWidth(column);
            if (column < 2 || used <= available || width <= least)
                continue;
            const int narrower = std::max(least, width - std::min(share, used - available));
            used -= width - narrower;
            m_tableView->setColumnWidth(column, narrower);
            shrunk = true;
        }
    }
}

bool DetailsPanel::eventFilter(QObject* watched, QEvent* event)
{
    // Pointers compared only: the filter may see events while the panel's children go away.
    if ((watched == m_tableView || watched == m_scrollViewport) && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

MetricRow DetailsPanel::row(const QString& label, const QString& unit, const QString& tip,
    const std::function<std::optional<double>(const ShownKernel&)>& value, int digits) const
{
    MetricRow r;
    r.label = label;
    r.unit = unit;
    r.tip = tip;
    r.digits = digits;
    for (const ShownKernel& k : m_shown)
        r.values.push_back(value(k));
    return r;
}

MetricRow DetailsPanel::metricRow(const QString& metric, const QString& label, const QString& unit, int digits) const
{
    const std::string name = metric.toStdString();
    QString tip = metric;
    if (const auto& session = m_focus->data())
        if (const MetricDef* d = session->metrics.definition(name))
            tip = QStringLiteral("%1\n%2 (section %3)")
                      .arg(metric, QString::fromStdString(d->description), QString::fromStdString(d->section));
    MetricRow r = row(
        label, unit, tip,
        [name](const ShownKernel& k) -> std::optional<double> {
            if (!k.profiled)
                return std::nullopt;
            return k.profiled->metrics.get(name);
        },
        digits);
    r.notes = knownDifferenceNotes({name}, m_shown, m_focus->data().get());
    return r;
}

MetricRow DetailsPanel::heading(const QString& label)
{
    MetricRow r;
    r.label = label;
    r.heading = true;
    return r;
}

std::vector<MetricTableModel::KernelColumn> DetailsPanel::kernelColumns() const
{
    std::vector<MetricTableModel::KernelColumn> c;
    for (const ShownKernel& k : m_shown)
        c.push_back({k.title, k.tooltip, k.color});
    return c;
}

qint64 DetailsPanel::firstProfiled() const
{
    for (const ShownKernel& k : m_shown) {
        if (k.profiled)
            return k.kernelId;
    }
    return -1;
}

bool DetailsPanel::anyProfiled() const
{
    for (const ShownKernel& k : m_shown) {
        if (k.profiled)
            return true;
    }
    return false;
}

} // namespace ws

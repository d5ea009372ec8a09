// SPDX-License-Identifier: MIT
#include "ui/panels/statspanel.h"

#include "core/analysis/gpuidlegaps.h"
#include "core/analysis/nsysreports.h"
#include "core/analysis/nvtxgpuprojection.h"
#include "core/ranking/windowedsource.h"
#include "ui/panels/panelexport.h"
#include "ui/session/backgroundjob.h"
#include "ui/style/timeformat.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace ws {

const QList<StatsPanel::ReportChoice>& StatsPanel::reports()
{
    static const QList<ReportChoice> list = {
        {QStringLiteral("cuda_gpu_kern_sum"), tr("CUDA GPU Kernel Summary"),
            tr("GPU execution time per kernel name (kernel end - start), as nsys's cuda_gpu_kern_sum. Time (%) is "
               "the share of the summed kernel time, not of wall time.")},
        {QStringLiteral("cuda_kern_exec_trace"), tr("CUDA Kernel Launch & Exec Time Trace"),
            tr("One row per launch: launch call (API) time, queue time (from the call's return to the kernel's start, "
               "empty when the kernel started first) and GPU time, as nsys's cuda_kern_exec_trace.")},
        {QStringLiteral("cuda_api_sum"), tr("CUDA API Summary"),
            tr("Host time spent in each CUDA runtime call, as nsys's cuda_api_sum.")},
        {QStringLiteral("nvtx_gpu_proj_sum"), tr("NVTX GPU Projection Summary"),
            tr("NVTX ranges projected onto the GPU: from the first start to the last end of the GPU work launched "
               "inside each range on its thread, as nsys's nvtx_gpu_proj_sum. Parents include their children.")},
        {QStringLiteral("nvtx_sum"), tr("NVTX Range Summary"),
            tr("Host duration of NVTX ranges per name and style, as nsys's nvtx_sum.")},
        {QStringLiteral("gpu_idle_gaps"), tr("GPU Idle Gaps"),
            tr("Intervals in which a GPU ran no kernel, copy or memset on any stream, between its first and last "
               "work (like nsys's gpu_gaps analysis rule, without a threshold). Before/After name the work around "
               "each gap.")},
        {QStringLiteral("comm_overlap"), tr("Communication / Compute Overlap"),
            tr("Per GPU and process (rank): time in NCCL kernels and peer copies, time in compute kernels, and how "
               "much of the communication runs while compute runs on the same GPU (exact interval intersection). "
               "Exposed Comm is the communication time nothing computes under.")},
    };
    return list;
}

ReportTable StatsPanel::compute(const QString& id, const RecordSource& source)
{
    // The CLI's own entry point, so `warpscope-cli stats -r ID` prints what this panel shows.
    return computeReport(id.toStdString(), source);
}

StatsPanel::StatsPanel(KernelFocus* focus, QWidget* parent)
    : QWidget(parent)
    , m_focus(focus)
    , m_model(new ReportTableModel(this))
    , m_proxy(new ReportViewProxy(m_model, this))
    , m_view(new QTableView(this))
    , m_selector(new QComboBox(this))
    , m_filter(new QLineEdit(this))
    , m_note(new QLabel(this))
    , m_job(new BackgroundJob(BackgroundJob::pool("stats", 1), this))
{
    setObjectName(QStringLiteral("statsPanel"));
    for (const ReportChoice& r : reports())
        m_selector->addItem(QStringLiteral("%1 — %2").arg(r.id, r.title), r.id);
    m_proxy->setSortRole(panelexport::kRawRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    // The report's own order (the CLI's) until the user clicks a header.
    m_view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_filter->setPlaceholderText(tr("Filter rows"));
    m_filter->setClearButtonEnabled(true);
    m_note->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("statsNote"));
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("CSV…"));
    exportButton->setToolTip(
        tr("Export the whole report as CSV, exactly as warpscope-cli stats --format csv writes it"));

    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_selector, 2);
    top->addWidget(m_filter, 1);
    top->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_note);
    layout->addWidget(m_view, 1);

    connect(m_selector, &QComboBox::currentIndexChanged, this, &StatsPanel::recompute);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterRegularExpression(
            QRegularExpression(QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption));
    });
    connect(exportButton, &QToolButton::clicked, this, [this] {
        if (!m_full)
            return;
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export report as CSV"), currentReport() + QStringLiteral(".csv"), QStringLiteral("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !exportCsv(path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    // activated: a double-click, or Enter on the current row.
    connect(m_view, &QAbstractItemView::activated, this, &StatsPanel::showInTimeline);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        fillContextMenu(menu, m_view->indexAt(pos));
        if (!menu.isEmpty())
            menu.exec(m_view->viewport()->mapToGlobal(pos));
    });
    connect(m_focus, &KernelFocus::dataChanged, this, &StatsPanel::recompute);
    connect(m_focus->selection(), &SelectionModel::timeRangeChanged, this, &StatsPanel::recompute);
    recompute();
}

StatsPanel::~StatsPanel() = default;

bool StatsPanel::isComputing() const
{
    return m_job->isRunning();
}

QString StatsPanel::currentReport() const
{
    return m_selector->currentData().toString();
}

void StatsPanel::showReport(const QString& id)
{
    const int index = m_selector->findData(id);
    if (index >= 0)
        m_selector->setCurrentIndex(index);
}

void StatsPanel::recompute()
{
    const auto session = m_focus->data();
    const QString id = currentReport();
    m_error.clear();
    m_proxy->setOrigin(session ? std::optional<TimeNs>(session->origin) : std::nullopt);
    if (!session) {
        // The session went away (another is loading): drop its table now, not when a running
        // report is back.
        m_job->discard();
        m_full.reset();
        m_model->setReport({});
        updateNote();
        return;
    }
    const TimeRange range = m_focus->selection()->timeRange();
    const TimeWindow window = range.isEmpty() ? TimeWindow {} : TimeWindow {range.begin, range.end};
    struct Result {
        std::shared_ptr<const ReportTable> table;
        QString error;
    };
    m_note->setText(tr("computing %1…").arg(id));
    // A newer request replaces this one: only the latest report is shown.
    m_job->start(
        [session, id, window](const BackgroundJob::Context&) -> Result {
            try {
                // Through the document's file (this worker's connection) or the memory session.
                return {std::make_shared<const ReportTable>(session->report(id, window)), {}};
            } catch (const std::exception& e) {
                return {nullptr, QString::fromUtf8(e.what())};
            }
        },
        [this, id](Result r) {
            m_full = r.table;
            m_error = r.error;
            m_model->setReport(r.table ? *r.table : ReportTable {}, kMaxRows);
            if (m_proxy->sortColumn() >= m_model->columnCount())
                m_view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
            m_view->resizeColumnsToContents();
            for (int c = 0; c < m_model->columnCount(); ++c)
                m_view->setColumnWidth(c, std::min(m_view->columnWidth(c), 420));
            updateNote();
            emit reportReady(id);
        });
}

void StatsPanel::updateNote()
{
    const auto session = m_focus->data();
    if (!session) {
        m_note->setText(m_focus->emptyText());
        return;
    }
    if (!m_error.isEmpty()) {
        m_note->setText(tr("Could not compute the report: %1").arg(m_error));
        return;
    }
    QString definition;
    for (const ReportChoice& r : reports()) {
        if (r.id == currentReport())
            definition = r.definition;
    }
    const TimeRange range = m_focus->selection()->timeRange();
    const QString scope = range.isEmpty()
        ? tr("Whole session.")
        : tr("Events overlapping the range selection +%1 … +%2.")
              .arg(formatDuration(range.begin - session->origin), formatDuration(range.end - session->origin));
    QString rows = tr("%1 rows.").arg(formatCount(static_cast<qint64>(m_model->rowsTotal())));
    if (m_model->rowsTotal() > static_cast<size_t>(m_model->rowCount()))
        rows = tr("First %1 of %2 rows shown; CSV export writes them all.")
                   .arg(formatCount(m_model->rowCount()), formatCount(static_cast<qint64>(m_model->rowsTotal())));
    m_note->setText(QStringLiteral("%1 %2 %3").arg(scope, rows, definition));
}

bool StatsPanel::showInTimeline(const QModelIndex& proxyIndex)
{
    const auto session = m_focus->data();
    if (!session || !proxyIndex.isValid())
        return false;
    const int row = m_proxy->mapToSource(proxyIndex).row();
    const auto interval = m_model->intervalOf(row);
    if (!interval) {
        // A kernel summary row names a kernel: its representative launch, as the ranking picks it.
        const auto* l = kernelOfSummaryRow(row);
        if (!l)
            return false;
        m_focus->selectKernel(l->id);
        m_focus->frameSpan(l->start, l->end);
        return true;
    }
    // A kernel launch is selected as the event it is (same start and end on the GPU); a gap or
    // another interval only moves the view.
    for (const KernelLaunchTable::Launch& l : session->launches.launches()) {
        if (l.start == interval->start && l.end == interval->end) {
            m_focus->selectKernel(l.id);
            break;
        }
    }
    m_focus->frameSpan(interval->start, interval->end);
    return true;
}

const KernelLaunchTable::Launch* StatsPanel::kernelOfSummaryRow(int sourceRow) const
{
    const auto session = m_focus->data();
    const int name = m_model->report().columnIndex("Name");
    if (!session || m_model->report().id != "cuda_gpu_kern_sum" || name < 0)
        return nullptr;
    const QString kernel = m_model->data(m_model->index(sourceRow, name), panelexport::kRawRole).toString();
    const int group = session->launches.groupIndex(kernel.toStdString());
    return group < 0 ? nullptr : session->representative(static_cast<uint32_t>(group));
}

void StatsPanel::fillContextMenu(QMenu& menu, const QModelIndex& proxyIndex)
{
    if (!m_focus->data() || !proxyIndex.isValid())
        return;
    const int row = m_proxy->mapToSource(proxyIndex).row();
    if (!m_model->intervalOf(row) && !kernelOfSummaryRow(row))
        return;
    const QPersistentModelIndex index(proxyIndex);
    QAction* show = menu.addAction(tr("Show in timeline"), this, [this, index] { showInTimeline(index); });
    show->setObjectName(QStringLiteral("showInTimeline"));
}

bool StatsPanel::exportCsv(const QString& path, QString* error) const
{
    if (!m_full) {
        if (error)
            *error = tr("%1: no report computed yet").arg(path);
        return false;
    }
    return panelexport::saveReportCsv(*m_full, path, error);
}

} // namespace ws

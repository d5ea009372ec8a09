// SPDX-License-Identifier: MIT
#include "ui/run/rundialog.h"

#include "core/store/runrecipe.h"
#include "core/util/shellwords.h"

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace ws {

namespace {

constexpr int kMaxRecipes = 10;
const char* kRecentKey = "run/recent";

QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const std::function<void()>& browse)
{
    auto* row = new QWidget(parent);
    auto* l = new QHBoxLayout(row);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(edit, 1);
    auto* b = new QToolButton(row);
    b->setText(QStringLiteral("…"));
    QObject::connect(b, &QToolButton::clicked, parent, browse);
    l->addWidget(b);
    return row;
}

QGroupBox* collectorBox(const QString& title, const QString& name, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    box->setObjectName(name);
    box->setCheckable(true);
    box->setChecked(false);
    return box;
}

std::vector<std::string> toStd(const QStringList& l)
{
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(l.size()));
    for (const QString& s : l)
        out.push_back(s.toStdString());
    return out;
}

QStringList fromStd(const std::vector<std::string>& v)
{
    QStringList out;
    for (const std::string& s : v)
        out << QString::fromStdString(s);
    return out;
}

QString recipeTitle(const QVariantMap& r)
{
    QStringList collectors = r.value(QStringLiteral("collectors")).toStringList();
    return QStringLiteral("%1 %2  [%3]")
        .arg(QFileInfo(r.value(QStringLiteral("program")).toString()).fileName(),
            r.value(QStringLiteral("arguments")).toString().left(40), collectors.join(QLatin1Char('+')))
        .simplified();
}

} // namespace

RunDialog::RunDialog(QWidget* parent)
    : QDialog(parent)
    , m_queue(new RunQueue(this))
    , m_recent(new QComboBox(this))
    , m_program(new QLineEdit(this))
    , m_arguments(new QLineEdit(this))
    , m_cwd(new QLineEdit(this))
    , m_env(new QPlainTextEdit(this))
    , m_trace(collectorBox(tr("Trace"), QStringLiteral("traceCollector"), this))
    , m_traceCuda(new QCheckBox(tr("CUDA: kernels, copies, memsets, API calls"), this))
    , m_traceNvtx(new QCheckBox(tr("NVTX ranges"), this))
    , m_allApi(new QCheckBox(tr("Every CUDA API call"), this))
    , m_range(new QComboBox(this))
    , m_nvtxName(new QLineEdit(this))
    , m_duration(new QDoubleSpinBox(this))
    , m_metrics(collectorBox(tr("Metrics (replay)"), QStringLiteral("metricsCollector"), this))
    , m_set(new QComboBox(this))
    , m_sections(new QLineEdit(this))
    , m_kernelFilter(new QLineEdit(this))
    , m_launchSkip(new QSpinBox(this))
    , m_launchCount(new QSpinBox(this))
    , m_profileRange(new QCheckBox(tr("only between cudaProfilerStart and Stop"), this))
    , m_cacheControl(new QComboBox(this))
    , m_pc(collectorBox(tr("PC sampling (stall reasons)"), QStringLiteral("pcCollector"), this))
    , m_pcInterval(new QSpinBox(this))
    , m_sourceFolders(new QLineEdit(this))
    , m_gpuMetrics(
          collectorBox(tr("GPU metrics sampling (during the trace)"), QStringLiteral("gpuMetricsCollector"), this))
    , m_gpuPeriod(new QSpinBox(this))
    , m_bench(collectorBox(tr("Benchmark (built-in workload)"), QStringLiteral("benchCollector"), this))
    , m_benchWorkload(new QComboBox(this))
    , m_benchSize(new QLineEdit(this))
    , m_output(new QLineEdit(this))
    , m_append(new QCheckBox(this))
    , m_log(new QPlainTextEdit(this))
    , m_stepLabel(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_run(new QPushButton(tr("&Run"), this))
    , m_cancel(new QPushButton(tr("&Cancel run"), this))
    , m_close(new QPushButton(tr("Close"), this))
{
    setWindowTitle(tr("Run a CUDA program"));
    setObjectName(QStringLiteral("runDialog"));
    m_recent->setObjectName(QStringLiteral("recentRecipes"));
    m_program->setObjectName(QStringLiteral("program"));
    m_program->setPlaceholderText(tr("program to run, e.g. ./train or python3"));
    m_arguments->setPlaceholderText(tr("its arguments, quoted like a shell"));
    m_cwd->setPlaceholderText(tr("working directory (default: the current one)"));
    m_env->setPlaceholderText(tr("extra environment, one NAME=value per line"));
    m_env->setMaximumHeight(56);
    m_range->addItem(tr("Whole run"), QString());
    m_range->addItem(tr("cudaProfilerStart … Stop"), QStringLiteral("cudaProfilerApi"));
    m_range->addItem(tr("First NVTX range named:"), QStringLiteral("nvtx"));
    m_nvtxName->setPlaceholderText(tr("NVTX range name"));
    m_duration->setRange(0, 86400);
    m_duration->setDecimals(1);
    m_duration->setSuffix(tr(" s"));
    m_duration->setSpecialValueText(tr("no limit"));
    m_duration->setToolTip(tr("Stop collecting after this long; the program keeps running"));
    for (const char* set : {"basic", "detailed", "full", "roofline"})
        m_set->addItem(QString::fromLatin1(set));
    m_sections->setPlaceholderText(tr("or section ids, comma-separated (overrides the set)"));
    m_kernelFilter->setObjectName(QStringLiteral("kernelFilter"));
    m_kernelFilter->setPlaceholderText(tr("all kernels; a name, or regex:R"));
    m_launchSkip->setRange(0, 1 << 30);
    m_launchCount->setRange(0, 1 << 30);
    m_launchCount->setSpecialValueText(tr("all"));
    m_profileRange->setObjectName(QStringLiteral("profileCaptureRange"));
    m_profileRange->setToolTip(tr("As ncu --profile-from-start off: launches outside the program's "
                                  "cudaProfilerStart..cudaProfilerStop are neither profiled nor counted for skip "
                                  "and count."));
    m_cacheControl->addItem(tr("all (flush before each pass, as ncu)"), QStringLiteral("all"));
    m_cacheControl->addItem(tr("none (L2 as the previous run left it, as ncu)"), QStringLiteral("none"));
    m_pcInterval->setRange(5, 31);
    m_pcInterval->setValue(7);
    m_pcInterval->setPrefix(QStringLiteral("2^"));
    m_pcInterval->setSuffix(tr(" cycles"));
    m_sourceFolders->setPlaceholderText(tr("folders with the CUDA sources, comma-separated"));
    m_gpuPeriod->setRange(1, 100000);
    // record's default (RecordOptions::gpuMetricsPeriodUs): shorter periods lose samples on the
    // H200, CUPTI's decode cannot keep up (docs/recorder.md, GPU metrics).
    m_gpuPeriod->setValue(200);
    m_gpuPeriod->setSuffix(tr(" µs"));
    m_benchWorkload->setObjectName(QStringLiteral("benchWorkload"));
    m_benchSize->setPlaceholderText(tr("default size"));
    m_append->setObjectName(QStringLiteral("appendToOpen"));
    m_log->setReadOnly(true);
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setMaximumBlockCount(20000);
    m_log->setFont(QFont(QStringLiteral("monospace")));
    m_log->setPlaceholderText(tr("The program's and the collectors' output appear here, and stay."));
    m_stepLabel->setObjectName(QStringLiteral("stepLabel"));
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    m_progress->setVisible(false);
    m_cancel->setEnabled(false);
    m_trace->setChecked(true);
    m_traceCuda->setChecked(true);
    m_traceNvtx->setChecked(true);

    auto* form = new QFormLayout;
    form->addRow(tr("Recent runs"), m_recent);
    form->addRow(tr("Program"), withBrowse(m_program, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Program to run"), m_cwd->text());
        if (!f.isEmpty())
            m_program->setText(f);
    }));
    form->addRow(tr("Arguments"), m_arguments);
    form->addRow(tr("Working directory"), withBrowse(m_cwd, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Working directory"), m_cwd->text());
        if (!d.isEmpty())
            m_cwd->setText(d);
    }));
    form->addRow(tr("Environment"), m_env);

    auto* output = new QFormLayout;
    output->addRow(tr("Session file"), withBrowse(m_output, this, [this] {
        const QString f = QFileDialog::getSaveFileName(
            this, tr("Session file"), m_output->text(), tr("Warpscope sessions (*.wscope)"));
        if (!f.isEmpty())
            m_output->setText(f);
    }));
    output->addRow(QString(), m_append);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_close);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buildCollectors());
    layout->addLayout(output);
    layout->addWidget(m_log, 1);
    layout->addWidget(m_stepLabel);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);
    resize(980, 900);

    m_run->setDefault(true);
    connect(m_run, &QPushButton::clicked, this, &RunDialog::startRun);
    connect(m_cancel, &QPushButton::clicked, this, &RunDialog::cancelRun);
    connect(m_close, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_range, &QComboBox::currentIndexChanged, this,
        [this] { m_nvtxName->setEnabled(m_range->currentData().toString() == QLatin1String("nvtx")); });
    connect(m_append, &QCheckBox::toggled, m_output, [this](bool on) { m_output->setEnabled(!on); });
    connect(m_recent, &QComboBox::activated, this, [this](int i) {
        const QVariantMap r = m_recent->itemData(i).toMap();
        if (!r.isEmpty())
            applyRecipe(r);
    });
    m_tick.setInterval(200);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        const int k = m_queue->currentStep();
        if (k < 0)
            return;
        const RunStepState& s = m_queue->states().at(k);
        m_stepLabel->setText(tr("Run %1 of %2 (%3)%4")
                                 .arg(k + 1)
                                 .arg(m_queue->steps().size())
                                 .arg(m_queue->steps().at(k).kind,
                                     s.progress ? QStringLiteral(": ") + s.progress->counts() : QString()));
        m_status->setText(tr("Running… %1 s").arg(m_queue->elapsedMs() / 1000.0, 0, 'f', 1));
    });
    connect(m_queue, &RunQueue::lineReceived, m_log, &QPlainTextEdit::appendPlainText);
    connect(m_queue, &RunQueue::progressChanged, this, [this](int, const RunProgress& p) {
        m_progress->setRange(0, p.total > 0 ? static_cast<int>(p.total) : 0);
        if (p.total > 0)
            m_progress->setValue(static_cast<int>(std::min(p.done, p.total)));
    });
    connect(m_queue, &RunQueue::stepStarted, this, [this](int, int, const QStringList&) {
        m_progress->setRange(0, 0); // busy until the run reports progress
    });
    connect(m_queue, &RunQueue::stepFinished, this, &RunDialog::onStepFinished);
    connect(m_queue, &RunQueue::finished, this, &RunDialog::onQueueFinished);
    loadRecent();
    m_nvtxName->setEnabled(m_range->currentData().toString() == QLatin1String("nvtx"));
    updateAppendBox();
    listBenchWorkloads();
}

RunDialog::~RunDialog()
{
    // The workload listing may still run: its result must not reach a half-destroyed dialog.
    for (QProcess* p : findChildren<QProcess*>(QString(), Qt::FindDirectChildrenOnly)) {
        p->disconnect(this);
        p->kill();
        p->waitForFinished(1000);
    }
}

QWidget* RunDialog::buildCollectors()
{
    auto* panel = new QWidget(this);
    auto* grid = new QGridLayout(panel);
    grid->setContentsMargins(0, 0, 0, 0);

    auto* trace = new QFormLayout(m_trace);
    auto* what = new QWidget(m_trace);
    auto* wl = new QHBoxLayout(what);
    wl->setContentsMargins(0, 0, 0, 0);
    wl->addWidget(m_traceCuda);
    wl->addWidget(m_traceNvtx);
    trace->addRow(what);
    trace->addRow(m_allApi);
    auto* range = new QWidget(m_trace);
    auto* rl = new QHBoxLayout(range);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(m_range);
    rl->addWidget(m_nvtxName, 1);
    trace->addRow(tr("Capture range"), range);
    trace->addRow(tr("Stop after"), m_duration);

    auto* metrics = new QFormLayout(m_metrics);
    metrics->addRow(tr("Set"), m_set);
    metrics->addRow(tr("Sections"), m_sections);
    metrics->addRow(tr("Kernels"), m_kernelFilter);
    auto* launches = new QWidget(m_metrics);
    auto* ll = new QHBoxLayout(launches);
    ll->setContentsMargins(0, 0, 0, 0);
    ll->addWidget(new QLabel(tr("skip"), launches));
    ll->addWidget(m_launchSkip);
    ll->addWidget(new QLabel(tr("count"), launches));
    ll->addWidget(m_launchCount);
    ll->addWidget(m_profileRange, 1);
    metrics->addRow(tr("Launches"), launches);
    metrics->addRow(tr("Cache control"), m_cacheControl);

    auto* pc = new QFormLayout(m_pc);
    pc->addRow(tr("Interval"), m_pcInterval);
    pc->addRow(tr("Source folders"), m_sourceFolders);

    auto* gpu = new QFormLayout(m_gpuMetrics);
    gpu->addRow(tr("Period"), m_gpuPeriod);

    auto* bench = new QFormLayout(m_bench);
    bench->addRow(tr("Workload"), m_benchWorkload);
    bench->addRow(tr("Size"), m_benchSize);

    grid->addWidget(m_trace, 0, 0);
    grid->addWidget(m_metrics, 0, 1, 2, 1);
    grid->addWidget(m_gpuMetrics, 1, 0);
    grid->addWidget(m_pc, 2, 0);
    grid->addWidget(m_bench, 2, 1);
    return panel;
}

void RunDialog::listBenchWorkloads()
{
    // `warpscope-cli bench --list`: one workload per line that starts in column 0.
    auto* p = new QProcess(this);
    p->setProcessChannelMode(QProcess::MergedChannels);
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus) {
        p->deleteLater();
        if (code != 0)
            return;
        const QString wanted = m_benchWorkload->currentText();
        for (const QString& line : QString::fromLocal8Bit(p->readAll()).split(QLatin1Char('\n'))) {
            if (line.isEmpty() || line.front().isSpace())
                continue;
            const QString name = line.section(QLatin1Char(' '), 0, 0);
            if (m_benchWorkload->findText(name) < 0)
                m_benchWorkload->addItem(name);
            m_benchWorkload->setItemData(
                m_benchWorkload->findText(name), line.mid(name.size()).trimmed(), Qt::ToolTipRole);
        }
        if (!wanted.isEmpty())
            m_benchWorkload->setCurrentText(wanted);
    });
    connect(p, &QProcess::errorOccurred, p, &QObject::deleteLater);
    p->start(cliPath(), {QStringLiteral("bench"), QStringLiteral("--list")});
}

QStringList RunDialog::benchWorkloads() const
{
    QStringList out;
    for (int i = 0; i < m_benchWorkload->count(); ++i)
        out << m_benchWorkload->itemText(i);
    return out;
}

QVariantMap RunDialog::recipe() const
{
    QVariantMap r;
    r[QStringLiteral("program")] = m_program->text();
    r[QStringLiteral("arguments")] = m_arguments->text();
    r[QStringLiteral("workingDirectory")] = m_cwd->text();
    r[QStringLiteral("environment")] = m_env->toPlainText();
    r[QStringLiteral("output")] = m_output->text();
    QStringList collectors;
    if (m_trace->isChecked())
        collectors << QStringLiteral("trace");
    if (m_gpuMetrics->isChecked())
        collectors << QStringLiteral("gpu-metrics");
    if (m_metrics->isChecked())
        collectors << QStringLiteral("metrics");
    if (m_pc->isChecked())
        collectors << QStringLiteral("pc-sampling");
    if (m_bench->isChecked())
        collectors << QStringLiteral("bench");
    r[QStringLiteral("collectors")] = collectors;
    r[QStringLiteral("traceCuda")] = m_traceCuda->isChecked();
    r[QStringLiteral("traceNvtx")] = m_traceNvtx->isChecked();
    r[QStringLiteral("allApi")] = m_allApi->isChecked();
    QString range = m_range->currentData().toString();
    if (range == QLatin1String("nvtx"))
        range += QLatin1Char(':') + m_nvtxName->text();
    r[QStringLiteral("captureRange")] = range;
    r[QStringLiteral("duration")] = m_duration->value();
    r[QStringLiteral("set")] = m_set->currentText();
    r[QStringLiteral("sections")] = m_sections->text();
    r[QStringLiteral("kernelFilter")] = m_kernelFilter->text();
    r[QStringLiteral("launchSkip")] = m_launchSkip->value();
    r[QStringLiteral("launchCount")] = m_launchCount->value();
    r[QStringLiteral("profileCaptureRange")] = m_profileRange->isChecked();
    r[QStringLiteral("cacheControl")] = m_cacheControl->currentData();
    r[QStringLiteral("pcInterval")] = m_pcInterval->value();
    r[QStringLiteral("sourceFolders")] = m_sourceFolders->text();
    r[QStringLiteral("gpuMetricsPeriod")] = m_gpuPeriod->value();
    r[QStringLiteral("benchWorkload")] = m_benchWorkload->currentText();
    r[QStringLiteral("benchSize")] = m_benchSize->text();
    return r;
}

void RunDialog::applyRecipe(const QVariantMap& r)
{
    const auto s = [&r](const char* k) { return r.value(QLatin1String(k)).toString(); };
    m_program->setText(s("program"));
    m_arguments->setText(s("arguments"));
    m_cwd->setText(s("workingDirectory"));
    m_env->setPlainText(s("environment"));
    m_output->setText(s("output"));
    const QStringList collectors
        = r.value(QStringLiteral("collectors"), QStringList {QStringLiteral("trace")}).toStringList();
    m_trace->setChecked(collectors.contains(QStringLiteral("trace")));
    m_gpuMetrics->setChecked(collectors.contains(QStringLiteral("gpu-metrics")));
    m_metrics->setChecked(collectors.contains(QStringLiteral("metrics")));
    m_pc->setChecked(collectors.contains(QStringLiteral("pc-sampling")));
    m_bench->setChecked(collectors.contains(QStringLiteral("bench")));
    m_traceCuda->setChecked(r.value(QStringLiteral("traceCuda"), true).toBool());
    m_traceNvtx->setChecked(r.value(QStringLiteral("traceNvtx"), true).toBool());
    m_allApi->setChecked(r.value(QStringLiteral("allApi"), false).toBool());
    setCaptureRange(s("captureRange"));
    m_duration->setValue(r.value(QStringLiteral("duration"), 0.0).toDouble());
    if (!s("set").isEmpty())
        m_set->setCurrentText(s("set"));
    m_sections->setText(s("sections"));
    m_kernelFilter->setText(s("kernelFilter"));
    m_launchSkip->setValue(r.value(QStringLiteral("launchSkip"), 0).toInt());
    m_launchCount->setValue(r.value(QStringLiteral("launchCount"), 0).toInt());
    m_profileRange->setChecked(r.value(QStringLiteral("profileCaptureRange"), false).toBool());
    m_cacheControl->setCurrentIndex(std::max(0, m_cacheControl->findData(s("cacheControl"))));
    m_pcInterval->setValue(r.value(QStringLiteral("pcInterval"), 7).toInt());
    m_sourceFolders->setText(s("sourceFolders"));
    m_gpuPeriod->setValue(r.value(QStringLiteral("gpuMetricsPeriod"), 200).toInt());
    if (!s("benchWorkload").isEmpty())
        setBenchWorkload(s("benchWorkload"));
    m_benchSize->setText(s("benchSize"));
    updateAppendBox();
}

void RunDialog::loadRecent()
{
    const QVariantList recent = QSettings().value(QLatin1String(kRecentKey)).toList();
    m_recent->clear();
    m_recent->addItem(recent.isEmpty() ? tr("(none yet)") : tr("(pick a recent run)"));
    for (const QVariant& v : recent)
        m_recent->addItem(recipeTitle(v.toMap()), v);
    m_recent->setEnabled(!recent.isEmpty());
    // The last run's settings are where the user left off.
    if (!recent.isEmpty())
        applyRecipe(recent.front().toMap());
}

void RunDialog::rememberRecipe()
{
    QSettings settings;
    QVariantList recent = settings.value(QLatin1String(kRecentKey)).toList();
    const QVariantMap now = recipe();
    recent.removeIf([&now](const QVariant& v) { return v.toMap() == now; });
    recent.prepend(now);
    while (recent.size() > kMaxRecipes)
        recent.removeLast();
    settings.setValue(QLatin1String(kRecentKey), recent);
    const QSignalBlocker block(m_recent);
    m_recent->clear();
    m_recent->addItem(tr("(pick a recent run)"));
    for (const QVariant& v : recent)
        m_recent->addItem(recipeTitle(v.toMap()), v);
    m_recent->setEnabled(true);
}

void RunDialog::setProgram(const QString& program)
{
    m_program->setText(program);
    updateAppendBox();
}

void RunDialog::setArguments(const QString& arguments)
{
    m_arguments->setText(arguments);
}

void RunDialog::setWorkingDirectory(const QString& dir)
{
    m_cwd->setText(dir);
}

void RunDialog::setEnvironmentText(const QString& text)
{
    m_env->setPlainText(text);
}

void RunDialog::setOutputPath(const QString& path)
{
    m_output->setText(path);
}

void RunDialog::setTrace(bool cuda, bool nvtx)
{
    m_traceCuda->setChecked(cuda);
    m_traceNvtx->setChecked(nvtx);
}

void RunDialog::setCaptureRange(const QString& range)
{
    if (range.startsWith(QLatin1String("nvtx:"))) {
        m_range->setCurrentIndex(2);
        m_nvtxName->setText(range.mid(5));
    } else {
        const int i = m_range->findData(range);
        m_range->setCurrentIndex(i >= 0 ? i : 0);
    }
}

void RunDialog::setCollector(Collector c, bool on)
{
    switch (c) {
    case Collector::Trace:
        m_trace->setChecked(on);
        break;
    case Collector::Metrics:
        m_metrics->setChecked(on);
        break;
    case Collector::PcSampling:
        m_pc->setChecked(on);
        break;
    case Collector::GpuMetrics:
        m_gpuMetrics->setChecked(on);
        break;
    case Collector::Bench:
        m_bench->setChecked(on);
        break;
    }
}

bool RunDialog::collector(Collector c) const
{
    switch (c) {
    case Collector::Trace:
        return m_trace->isChecked();
    case Collector::Metrics:
        return m_metrics->isChecked();
    case Collector::PcSampling:
        return m_pc->isChecked();
    case Collector::GpuMetrics:
        return m_gpuMetrics->isChecked();
    case Collector::Bench:
        return m_bench->isChecked();
    }
    return false;
}

void RunDialog::setMetricsSet(const QString& set)
{
    m_set->setCurrentText(set);
}

void RunDialog::setKernelFilter(const QString& filter)
{
    m_kernelFilter->setText(filter);
}

void RunDialog::setBenchWorkload(const QString& workload)
{
    if (m_benchWorkload->findText(workload) < 0)
        m_benchWorkload->addItem(workload);
    m_benchWorkload->setCurrentText(workload);
}

void RunDialog::setOpenSession(const QString& path, const QString& program)
{
    m_openSession = path;
    m_openProgram = program;
    updateAppendBox();
    // Adding to the open session is the default when it ran the same program.
    const QString mine = m_program->text().trimmed();
    m_append->setChecked(m_append->isEnabled() && !program.isEmpty() && !mine.isEmpty()
        && QFileInfo(program).fileName() == QFileInfo(mine).fileName());
}

void RunDialog::setAppendToOpenSession(bool on)
{
    m_append->setChecked(on && m_append->isEnabled());
}

bool RunDialog::appendsToOpenSession() const
{
    return m_append->isEnabled() && m_append->isChecked();
}

void RunDialog::updateAppendBox()
{
    const bool can = !m_openSession.isEmpty() && QFileInfo(m_openSession).isWritable();
    m_append->setEnabled(can);
    m_append->setText(can ? tr("Add the runs to the open session (%1)").arg(QFileInfo(m_openSession).fileName())
                          : tr("Add the runs to the open session (none open)"));
    if (!can)
        m_append->setChecked(false);
    m_output->setEnabled(!m_append->isChecked());
}

QString RunDialog::outputPath() const
{
    if (appendsToOpenSession())
        return QFileInfo(m_openSession).absoluteFilePath();
    QString out = m_output->text().trimmed();
    if (out.isEmpty()) {
        const QString base = QFileInfo(m_program->text().trimmed()).completeBaseName();
        out = QStringLiteral("%1-%2.wscope")
                  .arg(base.isEmpty() ? QStringLiteral("session") : base,
                      QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    }
    if (!out.endsWith(QLatin1String(".wscope")))
        out += QLatin1String(".wscope");
    const QString dir = m_cwd->text().trimmed().isEmpty() ? QDir::currentPath() : m_cwd->text().trimmed();
    return QFileInfo(QDir(dir), out).absoluteFilePath();
}

QStringList RunDialog::programCommand() const
{
    // Split as a POSIX shell would (quotes, escapes), without expanding anything.
    const auto words = splitCommand(m_arguments->text().toStdString());
    return QStringList {m_program->text().trimmed()} + (words ? fromStd(*words) : QStringList {});
}

QList<RunStep> RunDialog::steps(bool appendFirst) const
{
    // CollectorSteps in run order (trace first: the replays link to its launches), each turned
    // into warpscope-cli's argv by the same cliArguments() that rerun uses.
    std::vector<CollectorStep> collectors;
    if (m_trace->isChecked()) {
        CollectorStep s {0, "trace", {"record"}};
        QStringList trace;
        if (m_traceCuda->isChecked())
            trace << QStringLiteral("cuda");
        if (m_traceNvtx->isChecked())
            trace << QStringLiteral("nvtx");
        if (!trace.isEmpty())
            s.arguments.insert(s.arguments.end(), {"--trace", trace.join(QLatin1Char(',')).toStdString()});
        if (m_allApi->isChecked())
            s.arguments.emplace_back("--all-api");
        const QString range = m_range->currentData().toString();
        if (range == QLatin1String("nvtx"))
            s.arguments.insert(
                s.arguments.end(), {"--capture-range", ("nvtx:" + m_nvtxName->text().trimmed()).toStdString()});
        else if (!range.isEmpty())
            s.arguments.insert(s.arguments.end(), {"--capture-range", range.toStdString()});
        if (m_duration->value() > 0)
            s.arguments.insert(s.arguments.end(), {"--duration", QString::number(m_duration->value()).toStdString()});
        if (m_gpuMetrics->isChecked())
            s.arguments.insert(
                s.arguments.end(), {"--gpu-metrics", "--gpu-metrics-period", std::to_string(m_gpuPeriod->value())});
        collectors.push_back(std::move(s));
    }
    if (m_metrics->isChecked()) {
        CollectorStep s {0, "profile", {"profile"}};
        const QStringList sections = m_sections->text().split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (sections.isEmpty())
            s.arguments.insert(s.arguments.end(), {"--set", m_set->currentText().toStdString()});
        for (const QString& id : sections)
            s.arguments.insert(s.arguments.end(), {"--section", id.trimmed().toStdString()});
        if (!m_kernelFilter->text().trimmed().isEmpty())
            s.arguments.insert(s.arguments.end(), {"--kernel-name", m_kernelFilter->text().trimmed().toStdString()});
        if (m_launchSkip->value() > 0)
            s.arguments.insert(s.arguments.end(), {"--launch-skip", std::to_string(m_launchSkip->value())});
        if (m_launchCount->value() > 0)
            s.arguments.insert(s.arguments.end(), {"--launch-count", std::to_string(m_launchCount->value())});
        if (m_profileRange->isChecked())
            s.arguments.insert(s.arguments.end(), {"--capture-range", "cudaProfilerApi"});
        if (m_cacheControl->currentData().toString() != QLatin1String("all"))
            s.arguments.insert(
                s.arguments.end(), {"--cache-control", m_cacheControl->currentData().toString().toStdString()});
        collectors.push_back(std::move(s));
    }
    if (m_pc->isChecked()) {
        CollectorStep s {0, "pc-sampling", {"profile", "--pc-sampling"}};
        if (m_pcInterval->value() != 7)
            s.arguments.insert(s.arguments.end(), {"--pc-sampling-interval", std::to_string(m_pcInterval->value())});
        if (!m_sourceFolders->text().trimmed().isEmpty())
            s.arguments.insert(
                s.arguments.end(), {"--source-folders", m_sourceFolders->text().trimmed().toStdString()});
        collectors.push_back(std::move(s));
    }
    if (m_bench->isChecked()) {
        CollectorStep s {0, "bench", {"bench", "-w", m_benchWorkload->currentText().toStdString()}};
        if (!m_benchSize->text().trimmed().isEmpty())
            s.arguments.insert(s.arguments.end(), {"--size", m_benchSize->text().trimmed().toStdString()});
        collectors.push_back(std::move(s));
    }
    const std::string out = outputPath().toStdString();
    const std::vector<std::string> command = toStd(programCommand());
    QList<RunStep> steps;
    for (size_t i = 0; i < collectors.size(); ++i) {
        const bool append = appendFirst || i > 0;
        steps.append(
            {QString::fromStdString(collectors[i].kind), fromStd(cliArguments(collectors[i], out, append, command))});
    }
    return steps;
}

QStringList RunDialog::commandArguments() const
{
    const QList<RunStep> s = steps(false);
    return s.isEmpty() ? QStringList {} : s.front().arguments;
}

QProcessEnvironment RunDialog::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& line : m_env->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const int eq = line.indexOf(QLatin1Char('='));
        if (eq > 0)
            env.insert(line.left(eq).trimmed(), line.mid(eq + 1));
    }
    return env;
}

QString RunDialog::validate() const
{
    if (m_program->text().trimmed().isEmpty()
        && !(m_bench->isChecked() && !m_trace->isChecked() && !m_metrics->isChecked() && !m_pc->isChecked()))
        return tr("Choose a program to run.");
    if (!m_trace->isChecked() && !m_metrics->isChecked() && !m_pc->isChecked() && !m_bench->isChecked())
        return tr("Choose at least one collector.");
    if (m_trace->isChecked() && !m_traceCuda->isChecked() && !m_traceNvtx->isChecked())
        return tr("Choose at least one thing to collect.");
    if (m_gpuMetrics->isChecked() && !m_trace->isChecked())
        return tr("GPU metrics are sampled during the trace: tick Trace too.");
    if (m_trace->isChecked() && m_range->currentData().toString() == QLatin1String("nvtx")
        && m_nvtxName->text().trimmed().isEmpty())
        return tr("Name the NVTX range that starts the capture.");
    if (m_bench->isChecked() && m_benchWorkload->currentText().isEmpty())
        return tr("Choose a benchmark workload.");
    const QString cwd = m_cwd->text().trimmed();
    if (!cwd.isEmpty() && !QFileInfo(cwd).isDir())
        return tr("The working directory %1 does not exist.").arg(cwd);
    if (!QFileInfo(cliPath()).isExecutable())
        return tr("warpscope-cli was not found at %1 (set WS_CLI to its path).").arg(cliPath());
    if (!splitCommand(m_arguments->text().toStdString()))
        return tr("The arguments have an unterminated quote or a trailing backslash.");
    for (const QString& line : m_env->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (!line.trimmed().isEmpty() && !line.contains(QLatin1Char('=')))
            return tr("Environment line \"%1\" is not NAME=value.").arg(line.trimmed());
    }
    return {};
}

QString RunDialog::log() const
{
    return m_log->toPlainText();
}

void RunDialog::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_close->setEnabled(!running);
    m_progress->setVisible(running);
    m_progress->setRange(0, running ? 0 : 1);
    if (running)
        m_tick.start();
    else
        m_tick.stop();
}

void RunDialog::startRun()
{
    if (isRunning())
        return;
    const QString problem = validate();
    if (!problem.isEmpty()) {
        m_status->setText(problem);
        emit runFinished(false, problem);
        return;
    }
    const QString out = outputPath();
    bool appendFirst = appendsToOpenSession();
    if (!appendFirst && QFileInfo::exists(out)) {
        // Never replace a session silently: it may hold runs that cannot be repeated.
        ExistingFile answer = ExistingFile::Cancel;
        if (m_askExisting) {
            answer = m_askExisting(out);
        } else {
            QMessageBox box(QMessageBox::Question, tr("Session file exists"),
                tr("%1 already exists.\n\nReplace it, or add the new runs to it?").arg(out), QMessageBox::NoButton,
                this);
            auto* replace = box.addButton(tr("&Replace"), QMessageBox::DestructiveRole);
            auto* add = box.addButton(tr("&Add runs to it"), QMessageBox::AcceptRole);
            box.addButton(QMessageBox::Cancel);
            box.setDefaultButton(add);
            box.exec();
            answer = box.clickedButton() == replace ? ExistingFile::Replace
                : box.clickedButton() == add        ? ExistingFile::Append
                                                    : ExistingFile::Cancel;
        }
        if (answer == ExistingFile::Cancel) {
            m_status->setText(tr("Not run: %1 exists.").arg(QFileInfo(out).fileName()));
            emit runFinished(false, m_status->text());
            return;
        }
        appendFirst = answer == ExistingFile::Append;
    }
    rememberRecipe();
    if (m_failure)
        m_failure->close();
    m_target = out;
    m_queue->setWorkingDirectory(m_cwd->text().trimmed());
    m_queue->setEnvironment(environment());
    // The log keeps every earlier run's output; a header separates this one.
    if (!m_log->document()->isEmpty())
        m_log->appendPlainText(QString());
    m_log->appendPlainText(
        tr("──── %1: %2 ────")
            .arg(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss")), QFileInfo(out).fileName()));
    m_stepLabel->clear();
    setRunning(true);
    m_queue->start(steps(appendFirst));
}

void RunDialog::cancelRun()
{
    if (!isRunning())
        return;
    m_status->setText(tr("Cancelling…"));
    m_queue->cancel();
}

void RunDialog::onStepFinished(int index, const RunStepState& state)
{
    const QString kind = m_queue->steps().at(index).kind;
    const int n = static_cast<int>(m_queue->steps().size());
    QString line;
    switch (state.status) {
    case RunStepState::Status::Succeeded:
        line = tr("Run %1 of %2 (%3) finished in %4 s.")
                   .arg(index + 1)
                   .arg(n)
                   .arg(kind)
                   .arg(state.elapsedMs / 1000.0, 0, 'f', 1);
        break;
    case RunStepState::Status::Cancelled:
        line = tr("Run %1 of %2 (%3) cancelled.").arg(index + 1).arg(n).arg(kind);
        break;
    default:
        line = tr("Run %1 of %2 (%3) failed: %4.").arg(index + 1).arg(n).arg(kind, state.reason());
        break;
    }
    m_log->appendPlainText(line);
}

void RunDialog::onQueueFinished(bool ok)
{
    setRunning(false);
    const auto& states = m_queue->states();
    const int done = static_cast<int>(std::count_if(states.begin(), states.end(),
        [](const RunStepState& s) { return s.status == RunStepState::Status::Succeeded; }));
    const QString file = QFileInfo(m_target).fileName();
    const double seconds = m_queue->elapsedMs() / 1000.0;
    QString message;
    if (ok) {
        message = tr("%n run(s) into %1 in %2 s.", nullptr, done).arg(file).arg(seconds, 0, 'f', 1);
    } else if (m_queue->wasCancelled()) {
        message = tr("Cancelled after %1 s; %n finished run(s) kept.", nullptr, done).arg(seconds, 0, 'f', 1);
    } else {
        const int k = m_queue->failedStep();
        message = tr("Run %1 of %2 (%3) failed: %4.")
                      .arg(k + 1)
                      .arg(m_queue->steps().size())
                      .arg(m_queue->steps().at(k).kind, states.at(k).reason());
    }
    m_status->setText(message);
    m_stepLabel->setText(message);
    emit runFinished(ok, message);
    // The session holds new runs when a step succeeded, or when the failed step still wrote it
    // (a target that exits non-zero leaves its host side; a failed append marks its run).
    const bool written = QFileInfo::exists(m_target) && (done > 0 || !m_queue->wasCancelled());
    if (written)
        emit sessionWritten(m_target);
    if (ok) {
        accept();
        return;
    }
    if (!m_queue->wasCancelled()) {
        const int k = m_queue->failedStep();
        showFailure(tr("Run failed"),
            tr("<b>Run %1 of %2 (%3) failed</b><br><br>%4<br><br>%5")
                .arg(k + 1)
                .arg(m_queue->steps().size())
                .arg(m_queue->steps().at(k).kind, states.at(k).reason().toHtmlEscaped(),
                    written ? tr("%1 keeps the earlier runs and was opened; the output stays in the log.")
                                  .arg(file.toHtmlEscaped())
                            : tr("No session was written; the output stays in the log.")));
    }
}

void RunDialog::showFailure(const QString& title, const QString& text)
{
    if (m_failure)
        m_failure->deleteLater();
    // Opened, not exec()'d: the log stays usable behind it (and tests can read it).
    m_failure = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    m_failure->setObjectName(QStringLiteral("runFailure"));
    m_failure->setAttribute(Qt::WA_DeleteOnClose);
    m_failure->open();
}

void RunDialog::closeEvent(QCloseEvent* e)
{
    if (isRunning()) {
        e->ignore();
        return;
    }
    QDialog::closeEvent(e);
}

void RunDialog::reject()
{
    if (isRunning())
        return; // Cancel the run first; closing must not orphan the target
    QDialog::reject();
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/recorddialog.h"

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QToolButton>
#include <QVBoxLayout>

namespace ws {

namespace {

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

} // namespace

QString RecordDialog::defaultCliPath()
{
    const QString env = qEnvironmentVariable("WS_CLI");
    if (!env.isEmpty())
        return env;
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("warpscope-cli"));
    if (QFileInfo(beside).isExecutable())
        return beside;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("warpscope-cli"));
    return onPath.isEmpty() ? beside : onPath;
}

RecordDialog::RecordDialog(QWidget* parent)
    : QDialog(parent)
    , m_cli(defaultCliPath())
    , m_program(new QLineEdit(this))
    , m_arguments(new QLineEdit(this))
    , m_cwd(new QLineEdit(this))
    , m_env(new QPlainTextEdit(this))
    , m_traceCuda(new QCheckBox(tr("CUDA: kernels, copies, memsets, API calls"), this))
    , m_traceNvtx(new QCheckBox(tr("NVTX ranges"), this))
    , m_allApi(new QCheckBox(tr("Every CUDA API call (default: launches, copies, sync, allocation)"), this))
    , m_range(new QComboBox(this))
    , m_nvtxName(new QLineEdit(this))
    , m_duration(new QDoubleSpinBox(this))
    , m_output(new QLineEdit(this))
    , m_log(new QPlainTextEdit(this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_record(new QPushButton(tr("&Record"), this))
    , m_cancel(new QPushButton(tr("&Cancel recording"), this))
    , m_close(new QPushButton(tr("Close"), this))
{
    setWindowTitle(tr("Record a CUDA program"));
    setObjectName(QStringLiteral("recordDialog"));
    m_program->setObjectName(QStringLiteral("program"));
    m_program->setPlaceholderText(tr("program to run, e.g. ./train or python3"));
    m_arguments->setPlaceholderText(tr("its arguments, quoted like a shell"));
    m_cwd->setPlaceholderText(tr("working directory (default: the current one)"));
    m_env->setPlaceholderText(tr("extra environment, one NAME=value per line"));
    m_env->setMaximumHeight(70);
    m_range->addItem(tr("Whole run"), QString());
    m_range->addItem(tr("cudaProfilerStart … cudaProfilerStop"), QStringLiteral("cudaProfilerApi"));
    m_range->addItem(tr("First NVTX range named:"), QStringLiteral("nvtx"));
    m_nvtxName->setPlaceholderText(tr("NVTX range name"));
    m_duration->setRange(0, 86400);
    m_duration->setDecimals(1);
    m_duration->setSuffix(tr(" s"));
    m_duration->setSpecialValueText(tr("no limit"));
    m_duration->setToolTip(tr("Stop collecting after this long; the program keeps running"));
    m_log->setReadOnly(true);
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setMaximumBlockCount(5000);
    m_log->setFont(QFont(QStringLiteral("monospace")));
    m_log->setPlaceholderText(tr("The program's and the recorder's output appear here."));
    m_progress->setVisible(false);
    m_cancel->setEnabled(false);

    auto* form = new QFormLayout;
    form->addRow(tr("Program"), withBrowse(m_program, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Program to record"), m_cwd->text());
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
    auto* collectors = new QWidget(this);
    auto* cl = new QVBoxLayout(collectors);
    cl->setContentsMargins(0, 0, 0, 0);
    cl->addWidget(m_traceCuda);
    cl->addWidget(m_traceNvtx);
    cl->addWidget(m_allApi);
    form->addRow(tr("Collect"), collectors);
    auto* range = new QWidget(this);
    auto* rl = new QHBoxLayout(range);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(m_range);
    rl->addWidget(m_nvtxName, 1);
    form->addRow(tr("Capture range"), range);
    form->addRow(tr("Stop after"), m_duration);
    form->addRow(tr("Session file"), withBrowse(m_output, this, [this] {
        const QString f = QFileDialog::getSaveFileName(
            this, tr("Session file"), m_output->text(), tr("Warpscope sessions (*.wscope)"));
        if (!f.isEmpty())
            m_output->setText(f);
    }));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_record);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_close);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_log, 1);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);
    resize(760, 620);

    m_record->setDefault(true);
    connect(m_record, &QPushButton::clicked, this, &RecordDialog::startRecording);
    connect(m_cancel, &QPushButton::clicked, this, &RecordDialog::cancelRecording);
    connect(m_close, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_range, &QComboBox::currentIndexChanged, this,
        [this] { m_nvtxName->setEnabled(m_range->currentData().toString() == QLatin1String("nvtx")); });
    m_tick.setInterval(200);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        m_status->setText(tr("Recording… %1 s%2")
                              .arg(m_elapsed.elapsed() / 1000.0, 0, 'f', 1)
                              .arg(m_lastNote.isEmpty() ? QString() : QStringLiteral(" — ") + m_lastNote));
    });
    loadSettings();
    m_nvtxName->setEnabled(m_range->currentData().toString() == QLatin1String("nvtx"));
}

RecordDialog::~RecordDialog()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

void RecordDialog::loadSettings()
{
    QSettings s;
    s.beginGroup(QStringLiteral("record"));
    m_program->setText(s.value(QStringLiteral("program")).toString());
    m_arguments->setText(s.value(QStringLiteral("arguments")).toString());
    m_cwd->setText(s.value(QStringLiteral("workingDirectory")).toString());
    m_env->setPlainText(s.value(QStringLiteral("environment")).toString());
    m_traceCuda->setChecked(s.value(QStringLiteral("traceCuda"), true).toBool());
    m_traceNvtx->setChecked(s.value(QStringLiteral("traceNvtx"), true).toBool());
    m_allApi->setChecked(s.value(QStringLiteral("allApi"), false).toBool());
    setCaptureRange(s.value(QStringLiteral("captureRange")).toString());
    m_duration->setValue(s.value(QStringLiteral("duration"), 0.0).toDouble());
    m_output->setText(s.value(QStringLiteral("output")).toString());
    s.endGroup();
}

void RecordDialog::saveSettings() const
{
    QSettings s;
    s.beginGroup(QStringLiteral("record"));
    s.setValue(QStringLiteral("program"), m_program->text());
    s.setValue(QStringLiteral("arguments"), m_arguments->text());
    s.setValue(QStringLiteral("workingDirectory"), m_cwd->text());
    s.setValue(QStringLiteral("environment"), m_env->toPlainText());
    s.setValue(QStringLiteral("traceCuda"), m_traceCuda->isChecked());
    s.setValue(QStringLiteral("traceNvtx"), m_traceNvtx->isChecked());
    s.setValue(QStringLiteral("allApi"), m_allApi->isChecked());
    QString range = m_range->currentData().toString();
    if (range == QLatin1String("nvtx"))
        range += QLatin1Char(':') + m_nvtxName->text();
    s.setValue(QStringLiteral("captureRange"), range);
    s.setValue(QStringLiteral("duration"), m_duration->value());
    s.setValue(QStringLiteral("output"), m_output->text());
    s.endGroup();
}

void RecordDialog::setProgram(const QString& program)
{
    m_program->setText(program);
}

void RecordDialog::setArguments(const QString& arguments)
{
    m_arguments->setText(arguments);
}

void RecordDialog::setWorkingDirectory(const QString& dir)
{
    m_cwd->setText(dir);
}

void RecordDialog::setEnvironmentText(const QString& text)
{
    m_env->setPlainText(text);
}

void RecordDialog::setOutputPath(const QString& path)
{
    m_output->setText(path);
}

void RecordDialog::setTrace(bool cuda, bool nvtx)
{
    m_traceCuda->setChecked(cuda);
    m_traceNvtx->setChecked(nvtx);
}

void RecordDialog::setCaptureRange(const QString& range)
{
    if (range.startsWith(QLatin1String("nvtx:"))) {
        m_range->setCurrentIndex(2);
        m_nvtxName->setText(range.mid(5));
    } else {
        const int i = m_range->findData(range);
        m_range->setCurrentIndex(i >= 0 ? i : 0);
    }
}

QString RecordDialog::outputPath() const
{
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

QStringList RecordDialog::commandArguments() const
{
    QStringList args {QStringLiteral("record"), QStringLiteral("-o"), outputPath()};
    QStringList trace;
    if (m_traceCuda->isChecked())
        trace << QStringLiteral("cuda");
    if (m_traceNvtx->isChecked())
        trace << QStringLiteral("nvtx");
    if (!trace.isEmpty())
        args << QStringLiteral("--trace") << trace.join(QLatin1Char(','));
    if (m_allApi->isChecked())
        args << QStringLiteral("--all-api");
    const QString range = m_range->currentData().toString();
    if (range == QLatin1String("nvtx"))
        args << QStringLiteral("--capture-range") << QStringLiteral("nvtx:") + m_nvtxName->text().trimmed();
    else if (!range.isEmpty())
        args << QStringLiteral("--capture-range") << range;
    if (m_duration->value() > 0)
        args << QStringLiteral("--duration") << QString::number(m_duration->value());
    args << QStringLiteral("--") << m_program->text().trimmed() << QProcess::splitCommand(m_arguments->text());
    return args;
}

QString RecordDialog::validate() const
{
    if (m_program->text().trimmed().isEmpty())
        return tr("Choose a program to record.");
    if (!m_traceCuda->isChecked() && !m_traceNvtx->isChecked())
        return tr("Choose at least one thing to collect.");
    if (m_range->currentData().toString() == QLatin1String("nvtx") && m_nvtxName->text().trimmed().isEmpty())
        return tr("Name the NVTX range that starts the capture.");
    const QString cwd = m_cwd->text().trimmed();
    if (!cwd.isEmpty() && !QFileInfo(cwd).isDir())
        return tr("The working directory %1 does not exist.").arg(cwd);
    if (!QFileInfo(m_cli).isExecutable())
        return tr("warpscope-cli was not found at %1 (set WS_CLI to its path).").arg(m_cli);
    for (const QString& line : m_env->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (!line.trimmed().isEmpty() && !line.contains(QLatin1Char('=')))
            return tr("Environment line \"%1\" is not NAME=value.").arg(line.trimmed());
    }
    return {};
}

bool RecordDialog::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

QString RecordDialog::log() const
{
    return m_log->toPlainText();
}

void RecordDialog::setRunning(bool running)
{
    m_record->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_close->setEnabled(!running);
    m_progress->setVisible(running);
    // The recorder reports phases, not fractions: a busy bar plus elapsed time and the last
    // phase is honest.
    m_progress->setRange(0, running ? 0 : 1);
    if (running)
        m_tick.start();
    else
        m_tick.stop();
}

void RecordDialog::startRecording()
{
    if (isRunning())
        return;
    const QString problem = validate();
    if (!problem.isEmpty()) {
        m_status->setText(problem);
        emit recordingFinished(false, problem);
        return;
    }
    saveSettings();
    delete m_process;
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& line : m_env->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const int eq = line.indexOf(QLatin1Char('='));
        if (eq > 0)
            env.insert(line.left(eq).trimmed(), line.mid(eq + 1));
    }
    m_process->setProcessEnvironment(env);
    if (!m_cwd->text().trimmed().isEmpty())
        m_process->setWorkingDirectory(m_cwd->text().trimmed());
    connect(m_process, &QProcess::readyRead, this, [this] { appendOutput(m_process->readAll()); });
    connect(m_process, &QProcess::finished, this, &RecordDialog::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            onFinished(-1, QProcess::CrashExit);
    });
    const QStringList args = commandArguments();
    m_log->clear();
    m_log->appendPlainText(QStringLiteral("$ %1 %2").arg(m_cli, args.join(QLatin1Char(' '))));
    m_cancelled = false;
    m_lastNote.clear();
    m_elapsed.start();
    setRunning(true);
    m_process->start(m_cli, args);
}

void RecordDialog::cancelRecording()
{
    if (!isRunning())
        return;
    m_cancelled = true;
    m_status->setText(tr("Cancelling…"));
    m_process->terminate();
    // The recorder stops its target on SIGTERM; one that does not gets killed.
    QTimer::singleShot(3000, m_process, [p = m_process] {
        if (p->state() != QProcess::NotRunning)
            p->kill();
    });
}

void RecordDialog::appendOutput(const QByteArray& bytes)
{
    const QString text = QString::fromLocal8Bit(bytes);
    m_log->moveCursor(QTextCursor::End);
    m_log->insertPlainText(text);
    m_log->moveCursor(QTextCursor::End);
    static const QRegularExpression note(QStringLiteral("warpscope-cli record: ([^\\n]*)"));
    auto it = note.globalMatch(text);
    while (it.hasNext())
        m_lastNote = it.next().captured(1).left(80);
}

void RecordDialog::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (!m_process)
        return;
    appendOutput(m_process->readAll());
    setRunning(false);
    const QString out = outputPath();
    QString message;
    bool ok = false;
    if (m_cancelled) {
        message = tr("Recording cancelled.");
    } else if (status == QProcess::CrashExit && exitCode == -1 && m_process->error() == QProcess::FailedToStart) {
        message = tr("Could not start %1: %2").arg(m_cli, m_process->errorString());
    } else if (status != QProcess::NormalExit) {
        message = tr("warpscope-cli crashed.");
    } else if (exitCode != 0) {
        message = tr("Recording failed (exit status %1); see the output above.").arg(exitCode);
    } else if (!QFileInfo::exists(out)) {
        message = tr("warpscope-cli finished but %1 was not written.").arg(out);
    } else {
        ok = true;
        message
            = tr("Recorded %1 in %2 s.").arg(QFileInfo(out).fileName()).arg(m_elapsed.elapsed() / 1000.0, 0, 'f', 1);
    }
    m_status->setText(message);
    m_log->appendPlainText(message);
    emit recordingFinished(ok, message);
    if (ok) {
        emit recorded(out);
        accept();
    }
}

void RecordDialog::closeEvent(QCloseEvent* e)
{
    if (isRunning()) {
        e->ignore();
        return;
    }
    QDialog::closeEvent(e);
}

void RecordDialog::reject()
{
    if (isRunning())
        return; // Cancel recording first; closing must not orphan the target
    QDialog::reject();
}

} // namespace ws

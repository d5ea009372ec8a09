// SPDX-License-Identifier: MIT
#include "ui/run/runqueue.h"

#include "core/util/shellwords.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

#include <csignal>

namespace ws {

namespace {

// How long a cancelled child gets between SIGTERM and SIGKILL: the recorder stops its target
// and writes what it has on SIGTERM; one that hangs is killed.
constexpr int kKillAfterMs = 3000;

// A CLI line that reports an error rather than progress ("warpscope-cli record: /x: no such
// file", "... ERR_NVGPUCTRPERM ...").
bool isErrorLine(const QString& line)
{
    static const QRegularExpression error(
        QStringLiteral("^warpscope-cli( [a-z-]+)?: .*(error|no such file|not found|failed|cannot|could not|refus|"
                       "permission|denied|invalid|ERR_)"),
        QRegularExpression::CaseInsensitiveOption);
    return error.match(line).hasMatch();
}

} // namespace

QString RunProgress::counts() const
{
    const QString of = total >= 0 ? QStringLiteral("%1/%2").arg(done).arg(total) : QString::number(done);
    return QStringLiteral("%1 %2").arg(of, unit).trimmed();
}

QString RunProgress::text() const
{
    return QStringLiteral("%1: %2").arg(kind, counts());
}

std::optional<RunProgress> parseProgressLine(const QString& line)
{
    static const QRegularExpression re(QStringLiteral("^warpscope-cli: progress: (\\S+) (\\d+)/(\\d+|\\?)(?: (.*))?$"));
    const auto m = re.match(line.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    RunProgress p;
    p.kind = m.captured(1);
    p.done = m.captured(2).toLongLong();
    p.total = m.captured(3) == QLatin1String("?") ? -1 : m.captured(3).toLongLong();
    p.unit = m.captured(4).trimmed();
    return p;
}

QString signalName(int signal)
{
    switch (signal) {
    case SIGHUP:
        return QStringLiteral("SIGHUP");
    case SIGINT:
        return QStringLiteral("SIGINT");
    case SIGQUIT:
        return QStringLiteral("SIGQUIT");
    case SIGILL:
        return QStringLiteral("SIGILL");
    case SIGABRT:
        return QStringLiteral("SIGABRT");
    case SIGBUS:
        return QStringLiteral("SIGBUS");
    case SIGFPE:
        return QStringLiteral("SIGFPE");
    case SIGKILL:
        return QStringLiteral("SIGKILL");
    case SIGSEGV:
        return QStringLiteral("SIGSEGV");
    case SIGPIPE:
        return QStringLiteral("SIGPIPE");
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    default:
        return QStringLiteral("signal %1").arg(signal);
    }
}

QString targetFailureIn(const QString& line)
{
    // TargetProcess::describe(): "exited with code N" / "killed by signal N (strsignal text)".
    static const QRegularExpression code(QStringLiteral("^warpscope-cli( [a-z-]+)?: .* exited with code (-?\\d+)"));
    static const QRegularExpression sig(QStringLiteral("^warpscope-cli( [a-z-]+)?: .* killed by signal (\\d+)"));
    if (const auto m = code.match(line); m.hasMatch()) {
        const int c = m.captured(2).toInt();
        return c == 0 ? QString() : QStringLiteral("exit code %1").arg(c);
    }
    if (const auto m = sig.match(line); m.hasMatch())
        return QStringLiteral("killed by %1").arg(signalName(m.captured(2).toInt()));
    return {};
}

QString RunStepState::reason() const
{
    if (status == Status::Cancelled)
        return QCoreApplication::translate("RunQueue", "cancelled");
    if (status != Status::Failed)
        return {};
    if (failedToStart)
        return errorLine.isEmpty() ? QCoreApplication::translate("RunQueue", "warpscope-cli could not be started")
                                   : errorLine;
    if (needsPermission)
        return QCoreApplication::translate("RunQueue",
            "no permission to read GPU performance counters (ERR_NVGPUCTRPERM): run as root or allow profiling "
            "for all users (NVreg_RestrictProfilingToAdminUsers=0)");
    // A crash inside a collector (warpscope-cli profile names it and exits 3) says more than the
    // target's signal: which launch the profiler was replaying.
    if (errorLine.contains(QLatin1String("inside the profiler")))
        return errorLine;
    if (!targetFailure.isEmpty())
        return QCoreApplication::translate("RunQueue", "the target ended with %1").arg(targetFailure);
    if (crashed)
        return QCoreApplication::translate("RunQueue", "warpscope-cli crashed");
    if (!errorLine.isEmpty())
        return QCoreApplication::translate("RunQueue", "%1 (warpscope-cli exit code %2)").arg(errorLine).arg(exitCode);
    return QCoreApplication::translate("RunQueue", "warpscope-cli ended with exit code %1").arg(exitCode);
}

QString RunQueue::defaultCliPath()
{
    QString env = qEnvironmentVariable("WS_CLI");
    if (!env.isEmpty())
        return env;
    QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("warpscope-cli"));
    if (QFileInfo(beside).isExecutable())
        return beside;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("warpscope-cli"));
    return onPath.isEmpty() ? beside : onPath;
}

RunQueue::RunQueue(QObject* parent)
    : QObject(parent)
    , m_cli(defaultCliPath())
    , m_env(QProcessEnvironment::systemEnvironment())
{
    qRegisterMetaType<ws::RunProgress>();
    qRegisterMetaType<ws::RunStepState>();
}

RunQueue::~RunQueue()
{
    // Never orphan a target: a window closing mid-run stops it.
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

bool RunQueue::start(const QList<RunStep>& steps)
{
    if (isRunning() || steps.isEmpty())
        return false;
    m_steps = steps;
    m_states = QList<RunStepState>(steps.size());
    m_output.clear();
    m_cancelled = false;
    m_elapsed.start();
    startStep(0);
    return true;
}

void RunQueue::startStep(int index)
{
    m_current = index;
    m_partial.clear();
    m_states[index].status = RunStepState::Status::Running;
    m_stepElapsed.start();
    if (m_process)
        m_process->deleteLater(); // startStep may run inside the previous child's finished()
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setProcessEnvironment(m_env);
    if (!m_cwd.isEmpty())
        m_process->setWorkingDirectory(m_cwd);
    connect(m_process, &QProcess::readyRead, this, &RunQueue::onReadyRead);
    connect(m_process, &QProcess::finished, this, &RunQueue::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart || m_current < 0)
            return;
        RunStepState& s = m_states[m_current];
        s.failedToStart = true;
        s.errorLine = tr("could not start %1: %2").arg(m_cli, m_process->errorString());
        onLine(s.errorLine);
        finishStep(RunStepState::Status::Failed);
    });
    const QStringList commandLine = QStringList {m_cli} + m_steps[index].arguments;
    // Its own line, quoted so it can be pasted into a shell: whatever the child prints starts
    // on the next one.
    std::vector<std::string> words;
    for (const QString& w : commandLine)
        words.push_back(w.toStdString());
    onLine(QStringLiteral("$ ") + QString::fromStdString(joinCommand(words)));
    emit stepStarted(index, static_cast<int>(m_steps.size()), commandLine);
    m_process->start(m_cli, m_steps[index].arguments);
}

void RunQueue::cancel()
{
    if (!isRunning())
        return;
    m_cancelled = true;
    m_process->terminate();
    QTimer::singleShot(kKillAfterMs, m_process, [p = m_process] {
        if (p->state() != QProcess::NotRunning)
            p->kill();
    });
}

int RunQueue::failedStep() const
{
    for (int i = 0; i < m_states.size(); ++i)
        if (m_states[i].status == RunStepState::Status::Failed)
            return i;
    return -1;
}

void RunQueue::onReadyRead()
{
    if (!m_process)
        return;
    m_partial += m_process->readAll();
    qsizetype nl;
    while ((nl = m_partial.indexOf('\n')) >= 0) {
        onLine(QString::fromLocal8Bit(m_partial.left(nl)));
        m_partial.remove(0, nl + 1);
    }
}

void RunQueue::onLine(const QString& raw)
{
    QString line = raw;
    if (line.endsWith(QLatin1Char('\r')))
        line.chop(1);
    m_output << line;
    if (m_current >= 0 && !line.startsWith(QLatin1String("$ "))) {
        RunStepState& s = m_states[m_current];
        if (auto p = parseProgressLine(line)) {
            s.progress = *p;
            emit progressChanged(m_current, *p);
        } else if (const QString t = targetFailureIn(line); !t.isEmpty()) {
            s.targetFailure = t;
        } else if (isErrorLine(line)) {
            s.errorLine = line;
        }
        if (line.contains(QLatin1String("ERR_NVGPUCTRPERM")))
            s.needsPermission = true;
    }
    emit lineReceived(line);
}

void RunQueue::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (m_current < 0)
        return;
    onReadyRead();
    if (!m_partial.isEmpty()) {
        onLine(QString::fromLocal8Bit(m_partial));
        m_partial.clear();
    }
    RunStepState& s = m_states[m_current];
    s.exitCode = exitCode;
    s.crashed = status == QProcess::CrashExit;
    if (m_cancelled) {
        finishStep(RunStepState::Status::Cancelled);
        return;
    }
    // A target that failed fails the step even where the CLI still wrote the session and exited
    // 0 (today's record keeps the host side of a program that exited with code 2).
    const bool ok = !s.crashed && exitCode == 0 && s.targetFailure.isEmpty() && !s.needsPermission;
    finishStep(ok ? RunStepState::Status::Succeeded : RunStepState::Status::Failed);
}

void RunQueue::finishStep(RunStepState::Status status)
{
    const int index = m_current;
    RunStepState& s = m_states[index];
    s.status = status;
    s.elapsedMs = m_stepElapsed.elapsed();
    if (m_process)
        m_process->disconnect(this);
    emit stepFinished(index, s);
    if (status == RunStepState::Status::Succeeded && index + 1 < m_steps.size()) {
        startStep(index + 1);
        return;
    }
    for (int i = index + 1; i < m_states.size(); ++i)
        m_states[i].status = RunStepState::Status::Cancelled;
    m_current = -1;
    if (m_process) {
        m_process->deleteLater();
        m_process = nullptr;
    }
    emit finished(status == RunStepState::Status::Succeeded);
}

} // namespace ws

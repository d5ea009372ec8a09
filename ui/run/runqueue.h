// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <optional>

namespace ws {

// One warpscope-cli invocation of a run: what the Run dialog, "profile this kernel" and "Run
// again" execute, one after another, into one session.
struct RunStep {
    QString kind;          // trace | profile | pc-sampling | bench | collect | rerun (shown to the user)
    QStringList arguments; // warpscope-cli's arguments
};

// "warpscope-cli: progress: <run kind> <done>/<total or ?> <unit>" (the CLI's progress lines).
struct RunProgress {
    QString kind;
    qint64 done = 0;
    qint64 total = -1;      // -1: unknown ("?")
    QString unit;           // "launches (40 passes each)"
    QString counts() const; // "3/? launches (40 passes each)"
    QString text() const;   // "profile: 3/? launches (40 passes each)"
};
std::optional<RunProgress> parseProgressLine(const QString& line);

// How the target of a collector ended, from the CLI's "<program> exited with code N" / "killed
// by signal N (...)" line: empty when the line is not one, or the target exited with code 0.
QString targetFailureIn(const QString& line);
// "SIGKILL" for 9, "SIGSEGV" for 11 ...; "signal N" for others.
QString signalName(int signal);

// Where a step stands, and for a finished one how it ended.
struct RunStepState {
    enum class Status { Pending, Running, Succeeded, Failed, Cancelled };
    Status status = Status::Pending;
    int exitCode = 0;
    bool crashed = false; // warpscope-cli itself died of a signal
    bool failedToStart = false;
    QString targetFailure;        // "exit code 2", "killed by SIGKILL"
    QString errorLine;            // the CLI's last error line ("warpscope-cli record: ...: no such file")
    bool needsPermission = false; // ERR_NVGPUCTRPERM in the output
    std::optional<RunProgress> progress;
    qint64 elapsedMs = 0;
    // Why the step failed, in one sentence: the target's end, the permission, the CLI's error
    // line or its exit code; empty when it succeeded.
    QString reason() const;
};

// Runs a list of warpscope-cli steps as child processes, one after another (never blocking the
// GUI thread): live output line by line, per-step state and progress, and Cancel that stops the
// running child (SIGTERM, SIGKILL 3 s later) and keeps what the finished steps wrote. A failed
// step stops the queue: the later steps would append to a session whose program just failed.
class RunQueue : public QObject {
    Q_OBJECT
public:
    explicit RunQueue(QObject* parent = nullptr);
    ~RunQueue() override;

    // WS_CLI from the environment, else warpscope-cli next to this executable, else PATH.
    static QString defaultCliPath();
    void setCliPath(const QString& path) { m_cli = path; }
    QString cliPath() const { return m_cli; }
    // Working directory and environment of every child (the CLI passes them to the target).
    void setWorkingDirectory(const QString& dir) { m_cwd = dir; }
    void setEnvironment(const QProcessEnvironment& env) { m_env = env; }

    // Starts the steps; false (nothing started) when a queue is already running or `steps` is
    // empty.
    bool start(const QList<RunStep>& steps);
    void cancel();
    bool isRunning() const { return m_current >= 0; }
    bool wasCancelled() const { return m_cancelled; }

    const QList<RunStep>& steps() const { return m_steps; }
    const QList<RunStepState>& states() const { return m_states; }
    int currentStep() const { return m_current; }
    // The index of the step that failed, -1 when none did.
    int failedStep() const;
    qint64 elapsedMs() const { return m_elapsed.isValid() ? m_elapsed.elapsed() : 0; }
    // Everything the children printed (and the command lines), one entry per line.
    const QStringList& output() const { return m_output; }

signals:
    void stepStarted(int index, int count, const QStringList& commandLine);
    void lineReceived(const QString& line);
    void progressChanged(int index, const ws::RunProgress& progress);
    void stepFinished(int index, const ws::RunStepState& state);
    // After the last step, a failed step or a cancel. `ok`: every step succeeded.
    void finished(bool ok);

private:
    void startStep(int index);
    void onReadyRead();
    void onLine(const QString& line);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void finishStep(RunStepState::Status status);

    QString m_cli;
    QString m_cwd;
    QProcessEnvironment m_env;
    QList<RunStep> m_steps;
    QList<RunStepState> m_states;
    QStringList m_output;
    QProcess* m_process = nullptr;
    QByteArray m_partial;
    QElapsedTimer m_elapsed;
    QElapsedTimer m_stepElapsed;
    int m_current = -1;
    bool m_cancelled = false;
};

} // namespace ws

Q_DECLARE_METATYPE(ws::RunProgress)
Q_DECLARE_METATYPE(ws::RunStepState)

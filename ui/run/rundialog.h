// SPDX-License-Identifier: MIT
#pragma once

#include "ui/run/runqueue.h"

#include <QDialog>
#include <QMessageBox>
#include <QPointer>
#include <QTimer>
#include <QVariantMap>

#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ws {

// File > Run...: runs a program under the collectors the user ticks — trace, metrics, PC
// sampling, GPU metrics sampling (during the trace), benchmark — as consecutive warpscope-cli
// runs into one session (trace first: `record -o OUT`, then each other `--append OUT`), through
// a RunQueue: live output, per-run progress, elapsed time, Cancel that keeps finished runs. The
// runs go to a new file or are added to the session open in the window. The output of every
// run stays in the log (the window keeps the dialog), a failed run gets a dialog naming it and
// its reason, and the last ten run recipes are remembered.
class RunDialog : public QDialog {
    Q_OBJECT
public:
    enum class Collector { Trace, Metrics, PcSampling, GpuMetrics, Bench };
    // What to do when the new file already exists.
    enum class ExistingFile { Replace, Append, Cancel };

    explicit RunDialog(QWidget* parent = nullptr);
    ~RunDialog() override;

    static QString defaultCliPath() { return RunQueue::defaultCliPath(); }
    void setCliPath(const QString& path) { m_queue->setCliPath(path); }
    QString cliPath() const { return m_queue->cliPath(); }

    void setProgram(const QString& program);
    void setArguments(const QString& arguments);
    void setWorkingDirectory(const QString& dir);
    void setEnvironmentText(const QString& text);
    void setOutputPath(const QString& path);
    void setTrace(bool cuda, bool nvtx);
    // "" (whole run), "cudaProfilerApi" or "nvtx:NAME".
    void setCaptureRange(const QString& range);
    void setCollector(Collector c, bool on);
    bool collector(Collector c) const;
    void setMetricsSet(const QString& set);
    void setKernelFilter(const QString& filter);
    void setBenchWorkload(const QString& workload);
    QStringList benchWorkloads() const;

    // The session open in the window (empty: none) and its program: "Add to the open session"
    // is offered, and ticked when the program is the same.
    void setOpenSession(const QString& path, const QString& program);
    void setAppendToOpenSession(bool on);
    bool appendsToOpenSession() const;
    // Answers "the file exists: replace, add runs to it or cancel?" (tests answer it here;
    // by default a message box asks).
    void setExistingFileHandler(std::function<ExistingFile(const QString& path)> handler)
    {
        m_askExisting = std::move(handler);
    }

    // Where the runs go: the open session when adding to it, else the file named (relative to
    // the working directory), else <program>-<time>.wscope there.
    QString outputPath() const;
    // warpscope-cli's arguments of the first run into a new file (`record -o OUT ... -- program`).
    QStringList commandArguments() const;
    // Every run the ticked collectors make; the first writes OUT unless `appendFirst`.
    QList<RunStep> steps(bool appendFirst) const;
    bool isRunning() const { return m_queue->isRunning(); }
    QString log() const;
    RunQueue* queue() const { return m_queue; }
    // The dialog shown after a failed run (null when none is open).
    QMessageBox* failureDialog() const { return m_failure; }
    // The current settings as a recipe (what the recent list stores) and back.
    QVariantMap recipe() const;
    void applyRecipe(const QVariantMap& recipe);

public slots:
    void startRun();
    void cancelRun();

signals:
    // The session holds new runs (also after a failed or cancelled run that kept earlier ones):
    // the window (re)opens it.
    void sessionWritten(const QString& sessionPath);
    void runFinished(bool ok, const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;
    void reject() override;

private:
    QWidget* buildCollectors();
    void loadRecent();
    void rememberRecipe();
    void setRunning(bool running);
    void onStepFinished(int index, const RunStepState& state);
    void onQueueFinished(bool ok);
    void showFailure(const QString& title, const QString& text);
    void listBenchWorkloads();
    void updateAppendBox();
    QString validate() const;
    QStringList programCommand() const;
    QProcessEnvironment environment() const;

    RunQueue* m_queue;
    QComboBox* m_recent;
    QLineEdit* m_program;
    QLineEdit* m_arguments;
    QLineEdit* m_cwd;
    QPlainTextEdit* m_env;
    QGroupBox* m_trace;
    QCheckBox* m_traceCuda;
    QCheckBox* m_traceNvtx;
    QCheckBox* m_allApi;
    QComboBox* m_range;
    QLineEdit* m_nvtxName;
    QDoubleSpinBox* m_duration;
    QGroupBox* m_metrics;
    QComboBox* m_set;
    QLineEdit* m_sections;
    QLineEdit* m_kernelFilter;
    QSpinBox* m_launchSkip;
    QSpinBox* m_launchCount;
    QCheckBox* m_profileRange; // --capture-range cudaProfilerApi (ncu --profile-from-start off)
    QComboBox* m_cacheControl;
    QGroupBox* m_pc;
    QSpinBox* m_pcInterval;
    QLineEdit* m_sourceFolders;
    QGroupBox* m_gpuMetrics;
    QSpinBox* m_gpuPeriod;
    QGroupBox* m_bench;
    QComboBox* m_benchWorkload;
    QLineEdit* m_benchSize;
    QLineEdit* m_output;
    QCheckBox* m_append;
    QPlainTextEdit* m_log;
    QLabel* m_stepLabel;
    QProgressBar* m_progress;
    QLabel* m_status;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QPushButton* m_close;
    QTimer m_tick;
    QString m_openSession;
    QString m_openProgram;
    QString m_target; // the session the running queue writes
    std::function<ExistingFile(const QString&)> m_askExisting;
    QPointer<QMessageBox> m_failure;
};

} // namespace ws

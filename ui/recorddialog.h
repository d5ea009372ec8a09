// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>
#include <QElapsedTimer>
#include <QProcess>
#include <QTimer>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace ws {

// File > Record...: runs `warpscope-cli record -o OUT [options] -- program args` as a child
// process (the same path a remote GPU server will use), streams its output live, and hands
// the finished session to the main window. The last settings are remembered (QSettings).
class RecordDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(QWidget* parent = nullptr);
    ~RecordDialog() override;

    // WS_CLI from the environment, else warpscope-cli next to this executable, else PATH.
    static QString defaultCliPath();
    void setCliPath(const QString& path) { m_cli = path; }
    QString cliPath() const { return m_cli; }

    void setProgram(const QString& program);
    void setArguments(const QString& arguments);
    void setWorkingDirectory(const QString& dir);
    void setEnvironmentText(const QString& text);
    void setOutputPath(const QString& path);
    void setTrace(bool cuda, bool nvtx);
    // "" (whole run), "cudaProfilerApi" or "nvtx:NAME".
    void setCaptureRange(const QString& range);

    QString outputPath() const;
    // warpscope-cli's arguments for the current settings.
    QStringList commandArguments() const;
    bool isRunning() const;
    QString log() const;

public slots:
    void startRecording();
    void cancelRecording();

signals:
    void recorded(const QString& sessionPath);
    void recordingFinished(bool ok, const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;
    void reject() override;

private:
    void loadSettings();
    void saveSettings() const;
    void setRunning(bool running);
    void appendOutput(const QByteArray& bytes);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    QString validate() const;

    QString m_cli;
    QLineEdit* m_program;
    QLineEdit* m_arguments;
    QLineEdit* m_cwd;
    QPlainTextEdit* m_env;
    QCheckBox* m_traceCuda;
    QCheckBox* m_traceNvtx;
    QCheckBox* m_allApi;
    QComboBox* m_range;
    QLineEdit* m_nvtxName;
    QDoubleSpinBox* m_duration;
    QLineEdit* m_output;
    QPlainTextEdit* m_log;
    QProgressBar* m_progress;
    QLabel* m_status;
    QPushButton* m_record;
    QPushButton* m_cancel;
    QPushButton* m_close;
    QProcess* m_process = nullptr;
    QElapsedTimer m_elapsed;
    QTimer m_tick;
    bool m_cancelled = false;
    QString m_lastNote;
};

} // namespace ws

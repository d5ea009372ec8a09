// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/selectionmodel.h"

#include <QPointer>
#include <QWidget>

class QLabel;

namespace ws {

class CompareWindow;
class FleetView;

// A window for one fleet result (a .wsfleet file of python/warpscope/fleet): the result's
// per-rank metrics are read on a worker thread, then shown as a FleetView. A click on a cell
// asks for that rank's session (at that step: openStep with the step's range; else an empty
// range); the main window opens it. A second click on the cell (or its menu's "Compare with the
// median rank") opens the compare window: the median rank's session as baseline A, the clicked
// rank's as B, at that step (the step's NVTX range as the compare window's iteration range and
// origin, the view on the step).
class FleetWindow : public QWidget {
    Q_OBJECT
public:
    explicit FleetWindow(const QString& resultPath, QWidget* parent = nullptr);
    FleetView* view() const { return m_view; }
    QString errorText() const;
    // The line above the heatmap (what the metric's colours mean, or why a compare did not open).
    QString messageText() const;

    // Opens the compare window for cell (row, col) of the metric shown; null (and a message)
    // when no rank of another session file has a value there.
    CompareWindow* compareWithMedian(int row, int col);
    // The compare window opened last, or null.
    CompareWindow* compareWindow() const;

signals:
    void loaded();
    void failed(const QString& reason);
    void openStep(const QString& sessionPath, ws::TimeRange range);

private:
    void describe(int metric);
    QString sessionPath(const std::string& session) const;

    QString m_path;
    FleetView* m_view = nullptr;
    QLabel* m_message = nullptr;
    QPointer<CompareWindow> m_compare;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/selectionmodel.h"

#include <QWidget>

class QLabel;

namespace ws {

class FleetView;

// A window for one fleet result (a .wsfleet file of python/warpscope/fleet): the result is read
// on a worker thread, then shown as a FleetView. A click on a cell asks for that rank's session
// at that step (openStep); the main window opens it with the step's range in view.
class FleetWindow : public QWidget {
    Q_OBJECT
public:
    explicit FleetWindow(const QString& resultPath, QWidget* parent = nullptr);
    FleetView* view() const { return m_view; }
    QString errorText() const;

signals:
    void loaded();
    void failed(const QString& reason);
    void openStep(const QString& sessionPath, ws::TimeRange range);

private:
    QString m_path;
    FleetView* m_view = nullptr;
    QLabel* m_message = nullptr;
};

} // namespace ws

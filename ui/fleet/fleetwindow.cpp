// SPDX-License-Identifier: MIT
#include "ui/fleet/fleetwindow.h"

#include "core/store/fleetresult.h"
#include "ui/fleet/fleetview.h"

#include <QApplication>
#include <QFileInfo>
#include <QLabel>
#include <QPointer>
#include <QThreadPool>
#include <QVBoxLayout>

#include <memory>
#include <stdexcept>

namespace ws {

FleetWindow::FleetWindow(const QString& resultPath, QWidget* parent)
    : QWidget(parent, Qt::Window)
    , m_path(resultPath)
    , m_view(new FleetView)
    , m_message(new QLabel(tr("Reading %1 …").arg(resultPath)))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Fleet: %1").arg(QFileInfo(resultPath).fileName()));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addWidget(m_view, 1);
    m_view->hide();
    resize(900, 600);
    connect(m_view, &FleetView::stepActivated, this,
        [this](const QString& session, qint64, qint64, qint64 start, qint64 end) {
            emit openStep(QString::fromStdString(resolveFleetSession(m_path.toStdString(), session.toStdString())),
                TimeRange {start, end});
        });
    // Reading is file I/O: off the GUI thread, the result handed back as a value.
    QPointer<FleetWindow> self(this);
    const std::string path = resultPath.toStdString();
    QThreadPool::globalInstance()->start([self, path] {
        auto grid = std::make_shared<FleetStepGrid>();
        QString error;
        try {
            *grid = readFleetStepGrid(path);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, grid, error] {
                if (!self)
                    return;
                if (!error.isEmpty()) {
                    self->m_message->setText(error);
                    emit self->failed(error);
                    return;
                }
                const auto skipped = grid->skipped;
                self->m_message->setText(
                    tr("%1 ranks × %2 steps; colour: step time / the step's median over ranks (red slower, blue "
                       "faster); framed: straggler steps; %3 session(s) skipped. Click a cell to open that rank at "
                       "that step.")
                        .arg(grid->ranks.size())
                        .arg(grid->steps.size())
                        .arg(skipped));
                self->m_view->setGrid(std::move(*grid));
                self->m_view->show();
                emit self->loaded();
            },
            Qt::QueuedConnection);
    });
}

QString FleetWindow::errorText() const
{
    return m_view->isHidden() ? m_message->text() : QString();
}

} // namespace ws

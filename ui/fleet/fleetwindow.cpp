// SPDX-License-Identifier: MIT
#include "ui/fleet/fleetwindow.h"

#include "core/store/fleetresult.h"
#include "ui/compare/comparedocument.h"
#include "ui/compare/comparetimeline.h"
#include "ui/compare/comparewindow.h"
#include "ui/fleet/fleetheatmap.h"
#include "ui/fleet/fleetview.h"

#include <QApplication>
#include <QFileInfo>
#include <QLabel>
#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace ws {

namespace {

QString rankName(const FleetRank& r)
{
    return r.rank >= 0 ? FleetWindow::tr("rank %1").arg(r.rank) : FleetWindow::tr("pid %1").arg(r.pid);
}

} // namespace

FleetWindow::FleetWindow(const QString& resultPath, QWidget* parent)
    : QWidget(parent, Qt::Window)
    , m_path(resultPath)
    , m_view(new FleetView)
    , m_message(new QLabel(tr("Reading %1 …").arg(resultPath)))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Fleet: %1").arg(QFileInfo(resultPath).fileName()));
    m_message->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addWidget(m_view, 1);
    m_view->hide();
    resize(900, 600);
    connect(m_view, &FleetView::stepActivated, this,
        [this](const QString& session, qint64, qint64, qint64 start, qint64 end) {
            emit openStep(sessionPath(session.toStdString()), TimeRange {start, end});
        });
    connect(m_view, &FleetView::rankActivated, this,
        [this](const QString& session, qint64) { emit openStep(sessionPath(session.toStdString()), TimeRange {}); });
    connect(m_view, &FleetView::compareRequested, this, &FleetWindow::compareWithMedian);
    connect(m_view, &FleetView::metricChanged, this, &FleetWindow::describe);
    // Reading is file I/O: off the GUI thread, the result handed back as a value.
    QPointer<FleetWindow> self(this);
    const std::string path = resultPath.toStdString();
    QThreadPool::globalInstance()->start([self, path] {
        auto grids = std::make_shared<std::vector<FleetStepGrid>>();
        QString error;
        try {
            *grids = readFleetGrids(path);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, grids, error] {
                if (!self)
                    return;
                if (!error.isEmpty()) {
                    self->m_message->setText(error);
                    emit self->failed(error);
                    return;
                }
                self->m_view->setGrids(std::move(*grids));
                self->m_view->show();
                emit self->loaded();
            },
            Qt::QueuedConnection);
    });
}

QString FleetWindow::sessionPath(const std::string& session) const
{
    return QString::fromStdString(resolveFleetSession(m_path.toStdString(), session));
}

void FleetWindow::describe(int metric)
{
    const FleetStepGrid& g = m_view->grids()[static_cast<size_t>(metric)];
    const QString columns = g.metric.columns == FleetColumns::Steps ? tr("%1 steps").arg(g.steps.size())
        : g.metric.columns == FleetColumns::Kernels                 ? tr("%1 kernel names").arg(g.steps.size())
                                                                    : tr("one value");
    const QString open
        = g.metric.columns == FleetColumns::Steps ? tr("that rank at that step") : tr("that rank's session");
    m_message->setText(tr("%1 ranks × %2; colour: %3 against the column's median over ranks (red worse, blue "
                          "better); framed: outliers; %4 session(s) skipped. Click a cell to open %5; click it "
                          "again to compare it with the median rank.")
                           .arg(g.ranks.size())
                           .arg(columns, QString::fromStdString(g.metric.title).toLower())
                           .arg(g.skipped)
                           .arg(open));
}

QString FleetWindow::messageText() const
{
    return m_message->text();
}

CompareWindow* FleetWindow::compareWithMedian(int row, int col)
{
    const FleetStepGrid& g = m_view->heatmap()->grid();
    const auto r = static_cast<size_t>(row);
    const auto c = static_cast<size_t>(col);
    const int median = fleetMedianRow(g, r, c);
    if (median < 0) {
        m_message->setText(
            tr("No rank to compare %1 with: the compare window compares two session files, and no "
               "rank in a file other than %2 has a value there.")
                .arg(rankName(g.ranks[r]), QFileInfo(QString::fromStdString(g.ranks[r].session)).fileName()));
        return nullptr;
    }
    const auto m = static_cast<size_t>(median);
    const QString a = sessionPath(g.ranks[m].session);
    const QString b = sessionPath(g.ranks[r].session);
    auto* w = new CompareWindow(this);
    w->setAttribute(Qt::WA_DeleteOnClose);
    const bool step = g.metric.columns == FleetColumns::Steps && !g.rangeName[g.cell(r, c)].empty();
    if (step) {
        // The step's NVTX range is the iteration range and the shared origin: both timelines
        // start at that step; the view shows it (the longer of the two).
        w->document()->setRange(QString::fromStdString(g.rangeName[g.cell(r, c)]));
        const double span = std::max(g.at(r, c), g.at(m, c));
        connect(
            w->document(), &CompareDocument::changed, w, [w, span] { w->timeline()->setRange(0, span); },
            Qt::SingleShotConnection);
    }
    w->open(a, b);
    w->setWindowTitle(tr("Warpscope — Compare %1 (B) with the median rank %2 (A)%3")
                          .arg(rankName(g.ranks[r]), rankName(g.ranks[m]),
                              step ? tr(" at %1").arg(QString::fromStdString(g.rangeName[g.cell(r, c)])) : QString()));
    w->show();
    m_compare = w;
    return w;
}

CompareWindow* FleetWindow::compareWindow() const
{
    return m_compare;
}

QString FleetWindow::errorText() const
{
    return m_view->isHidden() ? m_message->text() : QString();
}

} // namespace ws

// SPDX-License-Identifier: MIT
// Renders every panel on the real H200 fixtures, as a user sees them, and probes each rendering
// where the panel drew something (tables' first rows, labels, plotted points: pixelprobe.h). With WS_SCREENSHOT_DIR
// set, the PNGs are written there (docs/screenshots/panel-*.png are made this way: see docs/panels.md).
#include "panelfixtures.h"
#include "pixelprobe.h"

#include "core/ranking/kernelranking.h"
#include "ui/mainwindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/panels/detailspanel.h"
#include "ui/panels/diagnosispanel.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/launchpanel.h"
#include "ui/panels/memorypanel.h"
#include "ui/panels/rooflinepanel.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/statspanel.h"
#include "ui/panels/throughputpanel.h"
#include "ui/session/sessiondocument.h"
#include "ui/timeline/timelineview.h"

#include <QDockWidget>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;
using namespace ws::test;

class TestPanelsScreenshots : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_out;

    // Saves the rendering and probes it where the panel says it drew something (pixelprobe.h):
    // the first row of each visible table, each label, each graph's first point.
    void shoot(QWidget* w, const QString& name, const QSize& size)
    {
        // Panels live as hidden children of a host until docked: make them windows of their own.
        if (!w->isWindow())
            w->setWindowFlag(Qt::Window, true);
        QSize target = size;
        // A details page is shot whole: tall enough that nothing scrolls.
        if (auto* details = qobject_cast<DetailsPanel*>(w)) {
            details->resize(size);
            details->show();
            QCoreApplication::sendPostedEvents(); // its layout, before asking for the page's size
            target.setHeight(std::max(size.height(), details->page()->sizeHint().height() + 60));
        }
        w->resize(target);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w));
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        // A window with a timeline: its frame is built off-thread; grab once it is current.
        for (TimelineView* view : w->findChildren<TimelineView*>())
            if (view->isVisible())
                QTRY_VERIFY_WITH_TIMEOUT(view->isFrameCurrent(), 10000);
        const QImage image = w->grab().toImage();
        QCOMPARE(image.size(), target);
        // Saved first, so a failing probe leaves the picture to look at.
        QVERIFY(image.save(m_out + QLatin1Char('/') + name + QStringLiteral(".png")));
        const ProbeResult probes = probeRendering(w, image);
        qInfo("%s: %d probes", qPrintable(name), probes.probes);
        QVERIFY2(probes.probes >= 3, qPrintable(name + QStringLiteral(": only %1 probe(s)").arg(probes.probes)));
        QVERIFY2(probes.blank.isEmpty(), qPrintable(name + QStringLiteral(": blank at ") + probes.blank.join("; ")));
    }

    struct Open {
        SelectionModel selection;
        std::unique_ptr<QWidget> host = std::make_unique<QWidget>();
        std::unique_ptr<AnalysisPanels> panels;
        explicit Open(const char* rel)
        {
            panels = std::make_unique<AnalysisPanels>(&selection, host.get());
            const QString path = fixturePath(rel);
            panels->setData(panelDataOf(path), snapshotOf(path));
        }
        KernelFocus* focus() const { return panels->focus(); }
    };

private slots:
    void initTestCase()
    {
        m_out = qEnvironmentVariable("WS_SCREENSHOT_DIR");
        if (m_out.isEmpty())
            m_out = m_tmp.path();
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_panels_screenshots"));
        QSettings().clear();
    }

    void ranking()
    {
        Open s("recorder/sessions/torch_nvtx.wscope");
        shoot(s.panels->ranking(), QStringLiteral("panel-ranking"), {1100, 520});
    }

    void stats()
    {
        Open s("recorder/sessions/torch_nvtx.wscope");
        StatsPanel* stats = s.panels->stats();
        for (const char* report : {"cuda_gpu_kern_sum", "cuda_kern_exec_trace", "nvtx_gpu_proj_sum", "gpu_idle_gaps"}) {
            stats->showReport(QString::fromLatin1(report));
            QVERIFY(waitUntil([&] { return !stats->isComputing() && stats->fullReport(); }));
            shoot(stats, QStringLiteral("panel-stats-%1").arg(QString::fromLatin1(report).replace('_', '-')),
                {1400, 520});
        }
    }

    void details()
    {
        Open s("metrics/gemm_relu.wscope");
        // The GEMM pinned next to the ReLU it feeds: compute- against latency-bound.
        s.focus()->selectKernel(3);
        s.focus()->pin(3);
        s.focus()->selectKernel(4);
        shoot(s.panels->launch(), QStringLiteral("panel-launch-occupancy"), {1500, 1150});
        shoot(s.panels->throughput(), QStringLiteral("panel-throughput"), {1500, 1500});
        shoot(s.panels->scheduler(), QStringLiteral("panel-scheduler"), {1500, 1250});
        shoot(s.panels->memory(), QStringLiteral("panel-memory"), {1500, 1100});
    }

    void roofline()
    {
        Open s("metrics/gemm_relu.wscope");
        s.focus()->selectKernel(3);
        s.focus()->pin(3);
        s.focus()->selectKernel(1);
        shoot(s.panels->roofline(), QStringLiteral("panel-roofline"), {1100, 720});
        Open softmax("metrics/torch_softmax.wscope");
        softmax.focus()->selectKernel(1);
        shoot(softmax.panels->roofline(), QStringLiteral("panel-roofline-softmax"), {1100, 720});
    }

    void diagnosis()
    {
        Open chase("metrics/chase.wscope");
        chase.focus()->selectKernel(1);
        shoot(chase.panels->diagnosis(), QStringLiteral("panel-diagnosis-chase"), {1000, 900});
        Open gemm("metrics/gemm_relu.wscope");
        gemm.focus()->selectKernel(3);
        shoot(gemm.panels->diagnosis(), QStringLiteral("panel-diagnosis-gemm"), {1000, 760});
        Open trace("recorder/sessions/torch_nvtx.wscope");
        shoot(trace.panels->diagnosis(), QStringLiteral("panel-diagnosis-trace"), {1000, 600});
    }

    // The whole window: timeline in the centre, the panels docked below it (README), on a
    // trace and on a profile session.
    void mainWindow_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("name");
        QTest::newRow("trace") << "recorder/sessions/torch_nvtx.wscope"
                               << "panel-mainwindow-trace";
        QTest::newRow("profile") << "metrics/gemm_relu.wscope"
                                 << "panel-mainwindow";
    }
    void mainWindow()
    {
        QFETCH(QString, file);
        QFETCH(QString, name);
        QSettings().clear();
        MainWindow window;
        // The window docks its own analysis panels (and follows its loader with them).
        AnalysisPanels& panels = *window.analysisPanels();
        QSignalSpy ready(&panels, &AnalysisPanels::dataReady);
        window.resize(1920, 1080);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(fixturePath(file.toLatin1().constData()));
        QVERIFY(ready.wait(30000));
        // Side by side: kernels, launch & occupancy (tabbed with throughput, scheduler, memory, source),
        // roofline (three tab groups).
        QVERIFY(window.tabifiedDockWidgets(window.findChild<QDockWidget*>("launchDock")).size() == 4);
        QList<QDockWidget*> shown;
        for (const char* dock : {"kernelRankingDock", "launchDock", "rooflineDock"}) {
            auto* d = window.findChild<QDockWidget*>(QLatin1String(dock));
            QVERIFY(d);
            d->raise();
            shown << d;
        }
        // Room for the panels: the bottom area half the window, the three groups side by side.
        window.resizeDocks({shown[0]}, {640}, Qt::Vertical);
        window.resizeDocks(shown, {470, 640, 560}, Qt::Horizontal);
        // The most expensive kernel, picked in the ranking: the timeline selects the same launch.
        const auto data = panels.focus()->data();
        const auto ranks = rankKernels(data->launches);
        panels.focus()->selectGroup(static_cast<int>(ranks.front().group));
        QVERIFY(window.selection()->selectedEvent().isValid());
        QCOMPARE(window.selection()->selectedEvent().ref.rowid(), panels.focus()->current());
        shoot(&window, name, {1920, 1080});
    }
};

QTEST_MAIN(TestPanelsScreenshots)
#include "tst_panels_screenshots.moc"

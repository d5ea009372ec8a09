// SPDX-License-Identifier: MIT
// Issue 24 item 3, on the real window offscreen with the demo session at 1366x768 and 1920x1080:
// each dock raised in turn, every value column of its tables is inside what the dock shows (the
// kernel ranking keeps Total, Avg and Calls), and every plot keeps its text inside: title lines
// not cut, legend entries whole, labels in the plot, numeric tick labels apart, notes whole.
#include "ui/mainwindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/plottextfit.h"
#include "ui/timeline/timelineview.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>
#include <qcustomplot.h>

using namespace ws;

namespace {

bool showing(QWidget* w)
{
    return w->isVisible() && !w->visibleRegion().isEmpty();
}

// Problems with the text of one plot, as readable sentences ("" when none).
QStringList plotProblems(QCustomPlot* plot)
{
    QStringList out;
    const QRect view = plot->viewport();
    const QString name = plot->objectName();
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i));
        if (!t || !t->visible())
            continue;
        const QFontMetricsF fm(t->font());
        for (const QString& line : t->text().split(QLatin1Char('\n')))
            if (fm.horizontalAdvance(line) > t->outerRect().width() + 1)
                out << QStringLiteral("%1: title line '%2' is %3 px in %4 px")
                           .arg(name, line)
                           .arg(fm.horizontalAdvance(line))
                           .arg(t->outerRect().width());
    }
    if (plot->legend->visible()) {
        for (int i = 0; i < plot->legend->itemCount(); ++i) {
            QCPAbstractLegendItem* item = plot->legend->item(i);
            const QRect r = item->outerRect();
            if (!view.contains(r) || r.width() < item->minimumOuterSizeHint().width())
                out << QStringLiteral("%1: legend entry %2 at %3,%4 %5x%6 (needs %7 px) in %8x%9")
                           .arg(name)
                           .arg(i)
                           .arg(r.x())
                           .arg(r.y())
                           .arg(r.width())
                           .arg(r.height())
                           .arg(item->minimumOuterSizeHint().width())
                           .arg(view.width())
                           .arg(view.height());
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* t = qobject_cast<QCPItemText*>(plot->item(i));
        if (!t || !t->visible() || t->text().isEmpty())
            continue;
        const QRectF r = PlotTextFit::textRect(t);
        if (!QRectF(view).adjusted(-1, -1, 1, 1).contains(r))
            out << QStringLiteral("%1: label '%2' at %3..%4 of 0..%5")
                       .arg(name, t->text())
                       .arg(r.left())
                       .arg(r.right())
                       .arg(view.width());
    }
    // Labels beside the data leave the data most of the width (they once left a bar chart 32 px).
    if (plot->axisRect()->visible() && plot->axisRect()->width() < 0.4 * view.width())
        out << QStringLiteral("%1: data area %2 px of %3").arg(name).arg(plot->axisRect()->width()).arg(view.width());
    for (QCPAxis* a : plot->axisRect()->axes(QCPAxis::atBottom)) {
        if (!a->visible() || !a->tickLabels() || a->ticker().dynamicCast<QCPAxisTickerText>())
            continue;
        const QVector<double> ticks = a->tickVector();
        const QVector<QString> labels = a->tickVectorLabels();
        const QFontMetricsF fm(a->tickLabelFont());
        double lastRight = -1e9;
        for (int k = 0; k < ticks.size() && k < labels.size(); ++k) {
            const double x = a->coordToPixel(ticks[k]);
            if (x < a->axisRect()->left() - 1 || x > a->axisRect()->right() + 1)
                continue;
            // Superscript exponents ("10^15") are drawn smaller: the plain text is an upper bound.
            const double w = fm.horizontalAdvance(QString(labels[k]).remove(QLatin1Char('^')));
            if (x - w / 2 < lastRight)
                out << QStringLiteral(
                    "%1: tick label '%2' at %3 px overlaps the one before (ends at %4 px; axis %5 px)")
                           .arg(name, labels[k])
                           .arg(x - w / 2)
                           .arg(lastRight)
                           .arg(a->axisRect()->width());
            lastRight = x + w / 2;
        }
    }
    return out;
}

} // namespace

class TestLayoutFit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_layoutfit"));
        QSettings().clear();
        if (!QFile::exists(MainWindow::demoResourcePath()))
            QSKIP("resources/demo/h200-gemm-relu.wscope is not in this build");
    }

    void cleanup() { QSettings().clear(); }

    void everythingFits_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1366x768") << QSize(1366, 768);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void everythingFits()
    {
        QFETCH(QSize, size);
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy ready(w.analysisPanels(), &AnalysisPanels::dataReady);
        QVERIFY(w.openDemo());
        QVERIFY(ready.wait(30000));
        QTRY_VERIFY(w.selection()->selectedEvent().isValid()
            || !w.analysisPanels()->ranking()->view()->selectionModel()->selectedRows().isEmpty());
        QCOMPARE(w.size(), size);

        // The ranking keeps its most used value columns.
        KernelRankingPanel* ranking = w.analysisPanels()->ranking();
        for (int c : {KernelRankingModel::Total, KernelRankingModel::Average, KernelRankingModel::Calls})
            QVERIFY2(!ranking->columnsLeftOut().contains(c) && !ranking->view()->isColumnHidden(c),
                qPrintable(ranking->model()->headerData(c, Qt::Horizontal).toString()));

        QStringList problems;
        int tables = 0;
        int plots = 0;
        for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
            if (dock->isHidden())
                continue; // closed by default (Tracks)
            dock->raise();
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents();
            if (!showing(dock)) {
                problems << QStringLiteral("%1 not shown when raised").arg(dock->objectName());
                continue;
            }
            const QRect shown = dock->visibleRegion().boundingRect();
            for (QTableView* t : dock->findChildren<QTableView*>()) {
                // Not the Stats reports: nsys's tables (up to 9 columns, the name last) are wider
                // than any dock and scroll sideways, as in nsys.
                if (dock->objectName() == QLatin1String("statsDock"))
                    break;
                if (!showing(t) || !t->model() || t->model()->columnCount() < 2 || t->model()->rowCount() == 0)
                    continue;
                ++tables;
                for (int c = 1; c < t->model()->columnCount(); ++c) {
                    if (t->isColumnHidden(c))
                        continue;
                    const int x0 = t->horizontalHeader()->sectionViewportPosition(c);
                    const int x1 = x0 + t->horizontalHeader()->sectionSize(c);
                    const QPoint left = t->viewport()->mapTo(dock, QPoint(x0, 0));
                    const QPoint right = t->viewport()->mapTo(dock, QPoint(x1 - 1, 0));
                    if (x0 < 0 || x1 > t->viewport()->width() || left.x() < shown.left() || right.x() > shown.right())
                        problems << QStringLiteral("%1/%2: column %3 '%4' at %5..%6 of %7 px")
                                        .arg(dock->objectName(), t->objectName())
                                        .arg(c)
                                        .arg(t->model()->headerData(c, Qt::Horizontal).toString())
                                        .arg(x0)
                                        .arg(x1)
                                        .arg(t->viewport()->width());
                }
            }
            for (QCustomPlot* plot : dock->findChildren<QCustomPlot*>()) {
                // The details panels' plots sit below their tables: scrolled into view first.
                for (QWidget* p = plot->parentWidget(); p && p != dock; p = p->parentWidget())
                    if (auto* area = qobject_cast<QScrollArea*>(p)) {
                        area->ensureWidgetVisible(plot);
                        QCoreApplication::processEvents();
                        break;
                    }
                if (!showing(plot) || plot->objectName().isEmpty())
                    continue;
                ++plots;
                plot->replot();
                problems << plotProblems(plot);
            }
            for (QLabel* l : dock->findChildren<QLabel*>()) {
                if (showing(l) && l->wordWrap() && !l->text().isEmpty() && l->hasHeightForWidth()
                    && l->heightForWidth(l->width()) > l->height() + 2)
                    problems << QStringLiteral("%1/%2: note needs %3 px, has %4")
                                    .arg(dock->objectName(), l->objectName())
                                    .arg(l->heightForWidth(l->width()))
                                    .arg(l->height());
            }
        }
        QVERIFY(tables >= 4);
        QVERIFY(plots >= 3);
        QVERIFY2(problems.isEmpty(), qPrintable(QLatin1Char('\n') + problems.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestLayoutFit)
#include "tst_layoutfit.moc"

// SPDX-License-Identifier: MIT
// Issue 24 item 11 (the rest): CSV exports write the shortest text that reads back as the same
// double; a PNG export of a plot is drawn at its own size, not clipped as in its dock; the start-up
// --view/--search apply to the first session only; the "thread not recorded" row says what it is.
#include "panelfixtures.h"

#include "ui/mainwindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/rooflinepanel.h"
#include "ui/startupoptions.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"

#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest>
#include <qcustomplot.h>

#include <cstdlib>

using namespace ws;
using namespace ws::test;

namespace {

const char* const kThreeRuns = "multirun/h200-gemm-relu-3runs.wscope";

// Significant digits of a number's text ("0.257696" -> 6, "1.5e-07" -> 2, "1000000" -> 1).
int significantDigits(const QString& text)
{
    QString m = text.section(QLatin1Char('e'), 0, 0);
    m.remove(QLatin1Char('-')).remove(QLatin1Char('+')).remove(QLatin1Char('.'));
    while (m.startsWith(QLatin1Char('0')))
        m.remove(0, 1);
    while (m.endsWith(QLatin1Char('0')))
        m.chop(1);
    return std::max(1, static_cast<int>(m.size()));
}

// The fewest significant digits that read back as `v`.
int fewestDigits(double v)
{
    for (int p = 1; p <= 17; ++p) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*g", p, v);
        if (std::strtod(buf, nullptr) == v)
            return p;
    }
    return 17;
}

} // namespace

class TestExportsAndStart : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_exportsandstart"));
        QSettings().clear();
    }

    void cleanupTestCase() { QSettings().clear(); }

    void csvNumber_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("float noise") << 0.25769599999999998 << QStringLiteral("0.257696");
        QTest::newRow("sum noise") << 0.1 + 0.2 << QStringLiteral("0.30000000000000004");
        QTest::newRow("third") << 1.0 / 3.0 << QStringLiteral("0.3333333333333333");
        QTest::newRow("integral") << 1000000.0 << QStringLiteral("1000000");
        QTest::newRow("ns") << 171554.25 << QStringLiteral("171554.25");
        QTest::newRow("negative") << -2.5 << QStringLiteral("-2.5");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0");
        QTest::newRow("negative zero") << -0.0 << QStringLiteral("0");
        QTest::newRow("tiny") << 1.5e-7 << QStringLiteral("1.5e-07");
        QTest::newRow("huge") << 2.14e18 << QStringLiteral("2.14e+18");
        QTest::newRow("small plain") << 0.00042 << QStringLiteral("0.00042");
    }

    void csvNumber()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        const QString got = panelexport::csvNumber(value);
        QCOMPARE(got, text);
        QCOMPARE(std::strtod(got.toLatin1().constData(), nullptr), value == 0.0 ? 0.0 : value);
    }

    // The ranking's CSV (profiled metrics: medians, averages in µs) through the panel's export:
    // every number reads back as the raw value, with no more digits than that needs.
    void rankingCsvIsShortestRoundTrip()
    {
        const auto data = panelDataOf(fixturePath(kThreeRuns));
        SelectionModel selection;
        KernelFocus focus(&selection);
        KernelRankingPanel ranking(&focus);
        focus.setData(data, snapshotOf(fixturePath(kThreeRuns)));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ranking.csv"));
        QVERIFY(ranking.exportCsv(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), ranking.proxy()->rowCount() + 1);
        int numbers = 0;
        int noisy = 0; // numbers that %.17g would have printed with more digits
        for (int r = 0; r < ranking.proxy()->rowCount(); ++r) {
            // Names may hold commas inside quotes: compare the numeric tail, column by column.
            const QStringList fields = lines[r + 1].split(QLatin1Char(','));
            const int columns = ranking.proxy()->columnCount();
            for (int c = 1; c < columns; ++c) {
                const QVariant raw = ranking.proxy()->index(r, c).data(panelexport::kRawRole);
                if (raw.typeId() != QMetaType::Double)
                    continue;
                const QString text = fields[fields.size() - columns + c];
                const double v = raw.toDouble();
                QVERIFY2(std::strtod(text.toLatin1().constData(), nullptr) == v,
                    qPrintable(
                        QStringLiteral("row %1 column %2: '%3' for %4").arg(r).arg(c).arg(text).arg(v, 0, 'g', 17)));
                QVERIFY2(significantDigits(text) <= fewestDigits(v),
                    qPrintable(QStringLiteral("row %1 column %2: '%3' has %4 digits, %5 suffice")
                                   .arg(r)
                                   .arg(c)
                                   .arg(text)
                                   .arg(significantDigits(text))
                                   .arg(fewestDigits(v))));
                ++numbers;
                char buf[64];
                std::snprintf(buf, sizeof buf, "%.17g", v);
                noisy += QString::fromLatin1(buf).size() > text.size();
            }
        }
        QVERIFY(numbers >= 10);
        QVERIFY2(noisy > 0, "no value in this fixture that %.17g prints noisily: the check proves nothing");
    }

    // A roofline in a dock-sized panel (its title wrapped, a label elided), exported as PNG: the
    // image is drawn at the export width, with nothing cut at its edges.
    void plotPngIsNotClippedLikeTheDock()
    {
        const auto data = panelDataOf(fixturePath(kThreeRuns));
        SelectionModel selection;
        KernelFocus focus(&selection);
        RooflinePanel panel(&focus);
        focus.setData(data, snapshotOf(fixturePath(kThreeRuns)));
        focus.selectKernel(3);
        panel.resize(320, 360);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCustomPlot* plot = panel.plot();
        plot->replot();
        QVERIFY(plot->width() < panelexport::kExportWidth);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("roofline.png"));
        QString error;
        QVERIFY2(panelexport::savePlot(plot, path, &error), qPrintable(error));
        QImage png(path);
        QVERIFY(!png.isNull());
        const QSize want = panelexport::exportSize(plot->size());
        QCOMPARE(want.width(), panelexport::kExportWidth);
        QCOMPARE(png.size(), want * 2); // drawn at twice the resolution
        // Nothing drawn up to an edge: text or a label running past the plot would end there.
        const QRgb bg = png.pixel(png.width() / 2, 1);
        int ink = 0;
        for (int y = 0; y < png.height(); ++y)
            for (int x : {0, 1, png.width() - 2, png.width() - 1})
                ink += png.pixel(x, y) != bg;
        for (int x = 0; x < png.width(); ++x)
            for (int y : {0, 1, png.height() - 2, png.height() - 1})
                ink += png.pixel(x, y) != bg;
        QCOMPARE(ink, 0);
        // The panel on screen is fitted back to its own size.
        QTRY_VERIFY(plot->plotLayout()->element(0, 0) != nullptr);
        const auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
        QVERIFY(title);
        for (const QString& line : title->text().split(QLatin1Char('\n')))
            QVERIFY2(QFontMetricsF(title->font()).horizontalAdvance(line) <= plot->width(), qPrintable(line));
    }

    // --view (and --search) are for the first session: opening another file shows it whole.
    void startupViewOnlyForTheFirstSession()
    {
        MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        StartupOptions options;
        options.view = QStringLiteral("1ms:2ms");
        options.search = QStringLiteral("relu_kernel");
        options.applyToFirstSession(&w);

        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openFile(fixturePath(kThreeRuns));
        QVERIFY(loaded.wait(30000));
        const TimeNs first = w.snapshot()->begin();
        QCOMPARE(w.selection()->viewRange().begin, first + 1000000);
        QCOMPARE(w.selection()->viewRange().end, first + 2000000);
        QTRY_VERIFY(w.selection()->selectedEvent().name.contains(QLatin1String("relu_kernel")));

        w.openFile(fixturePath("recorder/sessions/gemm_relu.wscope"));
        QVERIFY(loaded.wait(30000));
        const auto s = w.snapshot();
        QVERIFY(s->begin() != first);
        const TimeRange v = w.selection()->viewRange();
        QVERIFY2(v.end - v.begin > 2000000,
            qPrintable(QStringLiteral("view %1 ns wide").arg(v.end - v.begin))); // the whole session, not 1 ms
        QVERIFY(v.begin <= s->begin() + 1000000);
        QVERIFY(!w.selection()->selectedEvent().isValid());
    }

    // The demo's first row: the tooltip of its label (timeline and Tracks dock) says what it is.
    void threadNotRecordedIsExplained()
    {
        if (!QFile::exists(MainWindow::demoResourcePath()))
            QSKIP("no demo session in this build");
        MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QVERIFY(w.openDemo());
        QVERIFY(loaded.wait(30000));
        TimelineView* view = w.timelineView();
        view->fitAll();
        // The lane under it: the syncs with no thread (tid 0).
        int lane = -1;
        const auto& lanes = w.snapshot()->model->lanes;
        for (size_t i = 0; i < lanes.size() && lane < 0; ++i)
            if (lanes[i].tid == 0 && lanes[i].pid != 0 && lanes[i].kind == LaneKind::Sync)
                lane = static_cast<int>(i);
        QVERIFY(lane >= 0);
        view->scrollToLane(lane);
        QCoreApplication::processEvents();
        const QRect laneRect = view->laneRect(lane);
        const QPoint header(20, laneRect.top() - 4); // the group header above the lane
        QHelpEvent tip(QEvent::ToolTip, header, view->mapToGlobal(header));
        QApplication::sendEvent(view, &tip);
        QTRY_VERIFY2(QToolTip::text().contains(QLatin1String("CUPTI")), qPrintable(QToolTip::text()));
        QVERIFY(QToolTip::text().contains(QLatin1String("thread not recorded")));
        QToolTip::hideText();
        // The same words in the Tracks dock.
        bool found = false;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < w.rowModel()->rowCount(parent); ++r) {
                const QModelIndex i = w.rowModel()->index(r, 0, parent);
                if (i.data().toString() == QLatin1String("thread not recorded"))
                    found = found || i.data(Qt::ToolTipRole).toString().contains(QLatin1String("CUPTI"));
                walk(i);
            }
        };
        walk({});
        QVERIFY(found);
    }
};

QTEST_MAIN(TestExportsAndStart)
#include "tst_exportsandstart.moc"

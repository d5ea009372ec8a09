// SPDX-License-Identifier: MIT
// One palette for widgets and plots (issue 24, dark mode): a panel plot takes its background,
// axes, grid, legend and title from the palette, follows a palette change, and every text item
// the panels draw stays readable on that background (its lightness at least kApart away).
#include "panelfixtures.h"

#include "ui/panels/launchpanel.h"
#include "ui/panels/memorypanel.h"
#include "ui/panels/plotstyle.h"
#include "ui/panels/rooflinepanel.h"
#include "ui/style/colorscheme.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QtTest>

using namespace ws;
using namespace ws::test;

namespace {

// The colour the plot paints behind everything: a pixel probe in its top-left corner.
QColor paintedBackground(QCustomPlot* plot)
{
    return plot->toPixmap(240, 180).toImage().pixelColor(1, 1);
}

QPalette lightPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(239, 239, 239));
    p.setColor(QPalette::WindowText, QColor(20, 20, 20));
    p.setColor(QPalette::Base, QColor(255, 255, 255));
    p.setColor(QPalette::Text, QColor(20, 20, 20));
    return p;
}

// Every text item and title of every plot under `root`: lightness apart from the plot's background.
void checkReadable(QWidget* root)
{
    const auto plots = root->findChildren<QCustomPlot*>();
    QVERIFY(!plots.isEmpty());
    for (QCustomPlot* plot : plots) {
        const QColor bg = paintedBackground(plot);
        QCOMPARE(bg, plot->palette().color(QPalette::Base));
        QCOMPARE(plot->xAxis->tickLabelColor(), plot->palette().color(QPalette::WindowText));
        for (int i = 0; i < plot->itemCount(); ++i) {
            if (auto* t = qobject_cast<QCPItemText*>(plot->item(i))) {
                const int apart = std::abs(t->color().lightness() - bg.lightness());
                QVERIFY2(apart >= 100,
                    qPrintable(QStringLiteral("%1: '%2' in %3 on %4")
                                   .arg(plot->objectName(), t->text(), t->color().name(), bg.name())));
            }
        }
    }
}

} // namespace

class TestPlotPalette : public QObject {
    Q_OBJECT
private slots:
    void plotFollowsPalette()
    {
        QWidget parent;
        parent.setPalette(lightPalette());
        QCustomPlot* plot = plotstyle::makePlot(QStringLiteral("p"), &parent);
        plotstyle::setTitle(plot, QStringLiteral("Title"));
        QCOMPARE(paintedBackground(plot), QColor(255, 255, 255));
        QCOMPARE(plot->yAxis->labelColor(), QColor(20, 20, 20));
        // The palette changes after the plot exists (the user switches theme): it follows.
        parent.setPalette(ColorScheme::darkPalette());
        QCOMPARE(paintedBackground(plot), QColor(30, 30, 32));
        QCOMPARE(plot->xAxis->tickLabelColor(), QColor(225, 225, 225));
        QCOMPARE(plot->legend->textColor(), QColor(225, 225, 225));
        auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
        QVERIFY(title);
        QCOMPARE(title->textColor(), QColor(225, 225, 225));
    }

    void readableKeepsHue_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::addColumn<QColor>("color");
        QTest::addColumn<bool>("changed");
        QTest::newRow("dark red on dark") << true << QColor(150, 60, 40) << true;
        QTest::newRow("near black on dark") << true << QColor(60, 60, 90) << true;
        QTest::newRow("light on dark") << true << QColor(230, 200, 120) << false;
        QTest::newRow("dark red on light") << false << QColor(150, 60, 40) << false;
        QTest::newRow("pale on light") << false << QColor(240, 240, 200) << true;
    }
    void readableKeepsHue()
    {
        QFETCH(bool, dark);
        QFETCH(QColor, color);
        QFETCH(bool, changed);
        QWidget w;
        w.setPalette(dark ? ColorScheme::darkPalette() : lightPalette());
        const QColor got = plotstyle::readable(&w, color);
        QCOMPARE(got != color, changed);
        QVERIFY(std::abs(got.lightness() - w.palette().color(QPalette::Base).lightness()) >= 100);
        if (changed && color.hslSaturation() > 0)
            QVERIFY(std::abs(got.hslHue() - color.hslHue()) <= 2);
    }

    // The panels' own plots on the demo session, light and dark: background, axes and every
    // text item readable.
    void panelsReadable_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void panelsReadable()
    {
        QFETCH(bool, dark);
        const QString path = QStringLiteral(WS_RESOURCES_DIR "/demo/h200-gemm-relu.wscope");
        QWidget root;
        root.setPalette(dark ? ColorScheme::darkPalette() : lightPalette());
        SelectionModel selection;
        KernelFocus focus(&selection);
        auto* launch = new LaunchPanel(&focus, &root);
        auto* memory = new MemoryPanel(&focus, &root);
        auto* roofline = new RooflinePanel(&focus, &root);
        Q_UNUSED(memory);
        Q_UNUSED(roofline);
        const auto data = panelDataOf(path);
        focus.setData(data, snapshotOf(path));
        focus.selectKernel(data->metrics.kernels().front().launch.id);
        checkReadable(&root);
        // The notice banner takes the palette's variant: dark amber with light text on dark.
        QCOMPARE(launch->banner()->styleSheet().contains(QStringLiteral("background: #4a3b00")), dark);
    }
};

QTEST_MAIN(TestPlotPalette)
#include "tst_plotpalette.moc"

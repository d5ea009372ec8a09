// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QRectF>

class QCustomPlot;
class QCPItemText;

namespace ws {

// Keeps a plot's text inside the plot at any dock size (issue 24 item 3: the roofline's title
// and legend were cut at 1366x768). Before each replot the plot's text scales with its width
// (down to kMinScale of the fonts it was given), titles wrap at word boundaries, the legend puts
// as many entries on a row as fit and the numeric axes space their ticks by the labels' width;
// after the layout, a text label that would still leave the plot is elided. The fonts and texts
// the panels set stay the reference: scaling and wrapping start from them every time.
class PlotTextFit : public QObject {
    Q_OBJECT
public:
    static constexpr double kReferenceWidth = 440; // px of plot at which text is at full size
    static constexpr double kMinScale = 0.8;

    // Attaches to `plot` once (later calls do nothing); owned by the plot.
    static void attach(QCustomPlot* plot);
    // The scale applied to the plot's text at its current width.
    static double scaleFor(int plotWidth);
    // Where a label is drawn (pixels of the plot), as QCPItemText places it: the text's box,
    // padding included, aligned on its position.
    static QRectF textRect(const QCPItemText* item);
    // Fits the text to an export `width` (the next replot fits it back to the screen).
    static void prepareExport(QCustomPlot* plot, int width);

private:
    explicit PlotTextFit(QCustomPlot* plot);
    void beforeReplot();
    void fitWidth(double width);
    void afterLayout();

    QCustomPlot* m_plot;
};

} // namespace ws

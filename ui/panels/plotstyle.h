// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>

class QCustomPlot;
class QWidget;

namespace ws {

// Shared look and building blocks of the panels' QCustomPlot figures: a title that says what
// was measured, axis labels with units, grouped bars with value labels, a legend naming every
// series (colour never carries meaning alone).
namespace plotstyle {

// A fresh plot with the panels' fonts, margins and interactions, following the widget palette
// (followPalette).
QCustomPlot* makePlot(const QString& objectName, QWidget* parent);
// Background, axes, ticks, grid, legend and title in the plot's palette, now and whenever the
// palette changes (a dark palette gives a dark plot; data colours stay as they are).
void followPalette(QCustomPlot* plot);
// The plot's text colour (the palette's WindowText): for reference lines and labels that carry
// no series colour.
QColor ink(const QWidget* plot);
// `color`, or the same hue lightened (darkened) where `color` would be hard to read on the plot's
// background (a dark label on a dark palette).
QColor readable(const QWidget* plot, const QColor& color);
// Sets (or replaces) the title row above the axis rect; `subtitle` is a smaller second line.
void setTitle(QCustomPlot* plot, const QString& title, const QString& subtitle = {});
// Removes every plottable and item, keeps the title.
void clear(QCustomPlot* plot);
// Shows a centred message instead of data ("not collected ...").
void showMessage(QCustomPlot* plot, const QString& message);

struct BarSeries {
    QString name;
    QColor color;
    QVector<double> values; // one per category; NaN = not collected
};

struct BarChart {
    QStringList categories;
    QString valueLabel;     // axis label with unit: "% of peak", "warp-cycles per issued instruction"
    bool horizontal = true; // categories down the left side
    double valueMax = 0;    // 0 = from the data
    std::function<QString(double value, int series, int category)> valueText; // labels at bar ends; empty = none
};

void groupedBars(QCustomPlot* plot, const BarChart& chart, const QList<BarSeries>& series);

// The legend in a row of its own under the axis rect (never over the data); hidden for a
// single series when `always` is false.
void legendBelow(QCustomPlot* plot, bool always = false);
// A text label next to a data point that stays inside the axis rect: right of the point unless
// it is in the right third, above it unless it is in the top fifth. `stack` shifts labels of
// several points at one place apart. Call after the axis ranges are final.
void pointLabel(QCustomPlot* plot, double x, double y, const QString& text, const QColor& color, int stack = 0);

} // namespace plotstyle

} // namespace ws

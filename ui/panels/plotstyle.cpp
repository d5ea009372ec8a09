// SPDX-License-Identifier: MIT
#include "panels/plotstyle.h"

#include <qcustomplot.h>

#include <cmath>

namespace ws::plotstyle {

namespace {

QCPTextElement* titleOf(QCustomPlot* plot)
{
    if (plot->plotLayout()->rowCount() > 1)
        return qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
    return nullptr;
}

} // namespace

QCustomPlot* makePlot(const QString& objectName, QWidget* parent)
{
    auto* plot = new QCustomPlot(parent);
    plot->setObjectName(objectName);
    plot->setMinimumSize(260, 200);
    plot->setNoAntialiasingOnDrag(true);
    QFont f = plot->font();
    f.setPointSizeF(f.pointSizeF() * 0.92);
    for (QCPAxis* a : {plot->xAxis, plot->yAxis}) {
        a->setTickLabelFont(f);
        a->setLabelFont(f);
    }
    plot->legend->setFont(f);
    plot->legend->setBrush(QColor(255, 255, 255, 220));
    plot->legend->setBorderPen(QPen(QColor(180, 180, 180)));
    return plot;
}

void setTitle(QCustomPlot* plot, const QString& title, const QString& subtitle)
{
    const QString text = subtitle.isEmpty() ? title : title + QLatin1Char('\n') + subtitle;
    if (QCPTextElement* t = titleOf(plot)) {
        t->setText(text);
        return;
    }
    plot->plotLayout()->insertRow(0);
    QFont f = plot->font();
    f.setBold(true);
    auto* t = new QCPTextElement(plot, text, f);
    t->setMargins(QMargins(4, 4, 4, 0));
    plot->plotLayout()->addElement(0, 0, t);
}

void clear(QCustomPlot* plot)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->legend->setVisible(false);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    plot->yAxis->setScaleType(QCPAxis::stLinear);
    plot->yAxis->setRangeReversed(false);
    plot->xAxis->setVisible(true);
    plot->yAxis->setVisible(true);
}

void showMessage(QCustomPlot* plot, const QString& message)
{
    clear(plot);
    plot->xAxis->setVisible(false);
    plot->yAxis->setVisible(false);
    auto* text = new QCPItemText(plot);
    text->position->setType(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(0.5, 0.5);
    text->setPositionAlignment(Qt::AlignCenter);
    text->setText(message);
    text->setColor(QColor(90, 90, 90));
    plot->replot();
}

void groupedBars(QCustomPlot* plot, const BarChart& chart, const QList<BarSeries>& series)
{
    clear(plot);
    QCPAxis* keyAxis = chart.horizontal ? plot->yAxis : plot->xAxis;
    QCPAxis* valueAxis = chart.horizontal ? plot->xAxis : plot->yAxis;
    const int n = static_cast<int>(chart.categories.size());
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < n; ++i)
        ticker->addTick(i, chart.categories[i]);
    keyAxis->setTicker(ticker);
    keyAxis->setSubTicks(false);
    keyAxis->setTickLength(0, 3);
    keyAxis->grid()->setVisible(false);
    keyAxis->setRange(-0.6, n - 0.4);
    keyAxis->setLabel(QString());
    if (chart.horizontal)
        keyAxis->setRangeReversed(true); // first category on top
    valueAxis->setLabel(chart.valueLabel);

    // Series sit side by side within a category at fixed key offsets (not QCPBarsGroup, whose
    // pixel offsets are unknown before the first layout, so the value labels could not follow).
    const int count = static_cast<int>(series.size());
    const double width = count > 0 ? std::min(0.8 / count, 0.45) : 0.8;
    auto offset = [&](int s) { return (s - (count - 1) / 2.0) * width; };
    double maxValue = 0;
    for (int s = 0; s < count; ++s) {
        const BarSeries& bs = series[s];
        auto* bars = new QCPBars(keyAxis, valueAxis);
        bars->setName(bs.name);
        bars->setWidth(width);
        bars->setPen(QPen(bs.color.darker(130)));
        bars->setBrush(bs.color);
        QVector<double> keys;
        QVector<double> values;
        for (int i = 0; i < n && i < bs.values.size(); ++i) {
            if (std::isnan(bs.values[i]))
                continue;
            keys << i + offset(s);
            values << bs.values[i];
            maxValue = std::max(maxValue, bs.values[i]);
        }
        bars->setData(keys, values, true);
    }
    const double top = chart.valueMax > 0 ? chart.valueMax : (maxValue > 0 ? maxValue * 1.18 : 1.0);
    valueAxis->setRange(0, top);

    if (chart.valueText) {
        // Labels sit at the end of each bar, at the bar's key offset within its group.
        for (int s = 0; s < count; ++s) {
            const BarSeries& bs = series[s];
            for (int i = 0; i < n && i < bs.values.size(); ++i) {
                const double v = bs.values[i];
                if (std::isnan(v))
                    continue;
                const double key = i + offset(s);
                auto* label = new QCPItemText(plot);
                label->setClipToAxisRect(false);
                label->position->setAxes(plot->xAxis, plot->yAxis);
                if (chart.horizontal) {
                    label->position->setCoords(v, key);
                    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
                    label->setPadding(QMargins(3, 0, 0, 0));
                } else {
                    label->position->setCoords(key, v);
                    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
                }
                QFont f = plot->font();
                f.setPointSizeF(f.pointSizeF() * 0.8);
                label->setFont(f);
                label->setText(chart.valueText(v, s, i));
            }
        }
    }
    plot->legend->setVisible(count > 1);
    if (count > 1) {
        plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    }
    plot->replot();
}

} // namespace ws::plotstyle

// SPDX-License-Identifier: MIT
#include "ui/panels/plotstyle.h"

#include "ui/panels/plottextfit.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace ws::plotstyle {

namespace {

QCPTextElement* titleOf(QCustomPlot* plot)
{
    if (plot->plotLayout()->rowCount() > 1)
        return qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
    return nullptr;
}

void applyPalette(QCustomPlot* plot)
{
    const QPalette& pal = plot->palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor base = pal.color(QPalette::Base);
    // The grid between background and text, so it reads on either palette without shouting.
    const QColor grid = QColor::fromRgbF((base.redF() * 3 + text.redF()) / 4, (base.greenF() * 3 + text.greenF()) / 4,
        (base.blueF() * 3 + text.blueF()) / 4);
    plot->setBackground(base);
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* a : rect->axes()) {
            a->setBasePen(QPen(text, 0));
            a->setTickPen(QPen(text, 0));
            a->setSubTickPen(QPen(text, 0));
            a->setTickLabelColor(text);
            a->setLabelColor(text);
            a->grid()->setPen(QPen(grid, 0, Qt::DotLine));
            a->grid()->setZeroLinePen(QPen(grid, 0));
        }
    }
    QColor legendFill = base;
    legendFill.setAlpha(220);
    plot->legend->setBrush(legendFill);
    plot->legend->setBorderPen(QPen(grid));
    plot->legend->setTextColor(text);
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
            t->setTextColor(text);
}

// Re-applies the palette when it changes (the application switches theme, a parent's palette).
class PaletteFollower : public QObject {
public:
    explicit PaletteFollower(QCustomPlot* plot)
        : QObject(plot)
        , m_plot(plot)
    {
        plot->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == m_plot && event->type() == QEvent::PaletteChange) {
            applyPalette(m_plot);
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QCustomPlot* m_plot;
};

} // namespace

QColor ink(const QWidget* plot)
{
    return plot->palette().color(QPalette::WindowText);
}

QColor readable(const QWidget* plot, const QColor& color)
{
    const int base = plot->palette().color(QPalette::Base).lightness();
    // Lightness apart by less than ~0.4 of the range reads poorly at label sizes: keep the hue
    // (a roof's level, a series), move the lightness away from the background.
    constexpr int kApart = 110;
    if (std::abs(color.lightness() - base) >= kApart)
        return color;
    const int lightness = base < 128 ? std::min(255, base + kApart) : std::max(0, base - kApart);
    return QColor::fromHsl(color.hslHue(), color.hslSaturation(), lightness, color.alpha());
}

void followPalette(QCustomPlot* plot)
{
    applyPalette(plot);
    // A property, not findChild: PaletteFollower has no meta-object of its own to look it up by.
    static const char* const kFollowed = "ws_followsPalette";
    if (!plot->property(kFollowed).toBool()) {
        plot->setProperty(kFollowed, true);
        new PaletteFollower(plot);
    }
}

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
    followPalette(plot);
    // Text fits the plot at any dock size: scaled, wrapped, elided (issue 24 item 3).
    PlotTextFit::attach(plot);
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
    t->setTextColor(plot->palette().color(QPalette::WindowText));
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
    text->setColor(readable(plot, QColor(90, 90, 90)));
    plot->replot();
}

void groupedBars(QCustomPlot* plot, const BarChart& chart, const QList<BarSeries>& series)
{
    clear(plot);
    QCPAxis* keyAxis = chart.horizontal ? plot->yAxis : plot->xAxis;
    QCPAxis* valueAxis = chart.horizontal ? plot->xAxis : plot->yAxis;
    const int n = static_cast<int>(chart.categories.size());
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < n; ++i) {
        // Long counter names would squeeze the bars: keep head and tail (the hover/table has all).
        QString label = chart.categories[i];
        if (label.size() > 40)
            label = label.left(26) + QChar(0x2026) + label.right(13);
        ticker->addTick(i, label);
    }
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
                // A bar too short to see gets no label either (it would only add clutter).
                if (std::isnan(v) || v <= 0.01 * maxValue)
                    continue;
                const double key = i + offset(s);
                auto* label = new QCPItemText(plot);
                label->setColor(ink(plot));
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
    legendBelow(plot);
    plot->replot();
}

void legendBelow(QCustomPlot* plot, bool always)
{
    QCPLayoutGrid* layout = plot->plotLayout();
    // Move the legend out of the axis rect's inset layout once, into a row below it.
    if (plot->legend->layout() != layout) {
        if (plot->legend->layout())
            plot->legend->layout()->take(plot->legend);
        layout->addElement(layout->rowCount(), 0, plot->legend);
        layout->setRowStretchFactor(layout->rowCount() - 1, 0.001);
        plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
        plot->legend->setWrap(3);
        plot->legend->setBorderPen(Qt::NoPen);
        plot->legend->setBrush(Qt::NoBrush);
        plot->legend->setMargins(QMargins(4, 0, 4, 2));
    }
    int items = 0;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        ++items;
    plot->legend->setVisible(always ? items > 0 : items > 1);
}

void pointLabel(QCustomPlot* plot, double x, double y, const QString& text, const QColor& color, int stack)
{
    auto* label = new QCPItemText(plot);
    label->position->setCoords(x, y);
    const QCPAxis* xa = plot->xAxis;
    const QCPAxis* ya = plot->yAxis;
    const double fx = (xa->coordToPixel(x) - plot->axisRect()->left()) / std::max(1, plot->axisRect()->width());
    const double fy = (ya->coordToPixel(y) - plot->axisRect()->top()) / std::max(1, plot->axisRect()->height());
    // Pixel fractions are only known after a layout; before it, judge by the axis range.
    const bool laidOut = plot->axisRect()->width() > 10;
    const bool right = laidOut ? fx > 0.66 : (x - xa->range().lower) > 0.66 * xa->range().size();
    const bool top = laidOut ? fy < 0.2 : (ya->range().upper - y) < 0.2 * ya->range().size();
    Qt::Alignment a = (right ? Qt::AlignRight : Qt::AlignLeft) | (top ? Qt::AlignTop : Qt::AlignBottom);
    label->setPositionAlignment(a);
    const int shift = 14 * stack;
    label->setPadding(QMargins(right ? 0 : 8, top ? 6 + shift : 0, right ? 8 : 0, top ? 0 : 4 + shift));
    label->setText(text);
    label->setColor(readable(plot, color));
    QColor fill = plot->palette().color(QPalette::Base);
    fill.setAlpha(210);
    label->setBrush(fill);
    label->setClipToAxisRect(false);
}

} // namespace ws::plotstyle

// SPDX-License-Identifier: MIT
#include "ui/panels/plottextfit.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace ws {

namespace {

// The font and text a panel set, kept on the element the first time it is seen (or when the
// panel set another since): every fit starts from them.
constexpr const char* kBaseFont = "ws_baseFont";
constexpr const char* kBaseTickFont = "ws_baseTickFont";
constexpr const char* kBaseText = "ws_baseText";
constexpr const char* kFitFont = "ws_fitFont"; // what we last set, to tell a panel's change
constexpr const char* kFitTickFont = "ws_fitTickFont";
constexpr const char* kFitText = "ws_fitText";
constexpr const char* kFitHidden = "ws_fitHidden"; // a label we left out for overlapping

QFont scaled(QFont f, double scale)
{
    if (f.pointSizeF() > 0)
        f.setPointSizeF(f.pointSizeF() * scale);
    else if (f.pixelSize() > 0)
        f.setPixelSize(std::max(1, static_cast<int>(std::lround(f.pixelSize() * scale))));
    return f;
}

// The reference value of a property: the current one unless it is the one we set last.
template <typename T> T base(QObject* o, const char* baseKey, const char* fitKey, const T& current)
{
    const QVariant fit = o->property(fitKey);
    if (!fit.isValid() || fit.value<T>() != current)
        o->setProperty(baseKey, QVariant::fromValue(current));
    return o->property(baseKey).value<T>();
}

QFont fitFont(
    QObject* o, const QFont& current, double scale, const char* baseKey = kBaseFont, const char* fitKey = kFitFont)
{
    const QFont f = scaled(base<QFont>(o, baseKey, fitKey, current), scale);
    o->setProperty(fitKey, QVariant::fromValue(f));
    return f;
}

// `text` with each line broken at spaces so that no line is wider than `width`.
QString wrap(const QString& text, const QFontMetricsF& fm, double width)
{
    QStringList out;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString current;
        for (const QString& word : line.split(QLatin1Char(' '))) {
            const QString candidate = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
            if (!current.isEmpty() && fm.horizontalAdvance(candidate) > width) {
                out << current;
                current = word;
            } else {
                current = candidate;
            }
        }
        out << current;
    }
    return out.join(QLatin1Char('\n'));
}

} // namespace

PlotTextFit::PlotTextFit(QCustomPlot* plot)
    : QObject(plot)
    , m_plot(plot)
{
    connect(plot, &QCustomPlot::beforeReplot, this, &PlotTextFit::beforeReplot);
    connect(plot, &QCustomPlot::afterLayout, this, &PlotTextFit::afterLayout);
}

void PlotTextFit::attach(QCustomPlot* plot)
{
    if (plot->property("ws_textFit").toBool())
        return;
    plot->setProperty("ws_textFit", true);
    new PlotTextFit(plot);
}

double PlotTextFit::scaleFor(int plotWidth)
{
    return std::clamp(plotWidth / kReferenceWidth, kMinScale, 1.0);
}

QRectF PlotTextFit::textRect(const QCPItemText* item)
{
    const QFontMetricsF fm(item->font());
    const QRectF text = fm.boundingRect(QRectF(0, 0, 0, 0), Qt::TextDontClip | item->textAlignment(), item->text());
    const QMargins pad = item->padding();
    const QSizeF size(text.width() + pad.left() + pad.right(), text.height() + pad.top() + pad.bottom());
    const QPointF p = item->position->pixelPosition();
    const Qt::Alignment a = item->positionAlignment();
    double x = p.x();
    double y = p.y();
    if (a & Qt::AlignHCenter)
        x -= size.width() / 2;
    else if (a & Qt::AlignRight)
        x -= size.width();
    if (a & Qt::AlignVCenter)
        y -= size.height() / 2;
    else if (a & Qt::AlignBottom)
        y -= size.height();
    return {QPointF(x, y), size};
}

void PlotTextFit::prepareExport(QCustomPlot* plot, int width)
{
    if (auto* fit = plot->findChild<PlotTextFit*>(QString(), Qt::FindDirectChildrenOnly))
        fit->fitWidth(width);
}

void PlotTextFit::beforeReplot()
{
    fitWidth(m_plot->width());
}

void PlotTextFit::fitWidth(double width)
{
    const double s = scaleFor(static_cast<int>(width));
    for (QCPAxisRect* rect : m_plot->axisRects()) {
        for (QCPAxis* a : rect->axes()) {
            a->setLabelFont(fitFont(a, a->labelFont(), s));
            a->setTickLabelFont(fitFont(a, a->tickLabelFont(), s, kBaseTickFont, kFitTickFont));
            // Numeric tickers: as many ticks as their labels leave room for (a text ticker's
            // ticks are categories, all needed).
            const QSharedPointer<QCPAxisTicker> ticker = a->ticker();
            if (const auto text = ticker.dynamicCast<QCPAxisTickerText>(); text && a->orientation() == Qt::Vertical) {
                // Category names beside horizontal bars: at most 40 % of the plot's width, so
                // the bars keep the rest.
                QStringList current;
                for (const QString& t : std::as_const(text->ticks()))
                    current << t;
                const QStringList names = base<QStringList>(a, kBaseText, kFitText, current);
                if (names.size() == current.size()) {
                    const QFontMetricsF fm(a->tickLabelFont());
                    const double most = 0.4 * width;
                    QStringList fitted;
                    int k = 0;
                    for (auto it = text->ticks().begin(); it != text->ticks().end(); ++it, ++k) {
                        const QString& full = names[k];
                        *it = fm.horizontalAdvance(full) > most ? fm.elidedText(full, Qt::ElideMiddle, most) : full;
                        fitted << *it;
                    }
                    a->setProperty(kFitText, fitted);
                }
            }
            if (ticker && !ticker.dynamicCast<QCPAxisTickerText>()) {
                const double length = a->orientation() == Qt::Horizontal ? rect->width() : rect->height();
                const double label = a->orientation() == Qt::Horizontal
                    ? QFontMetricsF(a->tickLabelFont()).horizontalAdvance(QStringLiteral("10000.0")) * 1.3
                    : QFontMetricsF(a->tickLabelFont()).height() * 2.5;
                if (length > 10)
                    ticker->setTickCount(std::clamp(static_cast<int>(length / label), 2, 5));
            }
        }
    }
    // Titles and other text rows of the layout: scaled, then wrapped to the plot's width.
    for (int i = 0; i < m_plot->plotLayout()->elementCount(); ++i) {
        auto* t = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->elementAt(i));
        if (!t)
            continue;
        t->setFont(fitFont(t, t->font(), s));
        const QString text = base<QString>(t, kBaseText, kFitText, t->text());
        const QMargins m = t->margins();
        const QString wrapped = wrap(text, QFontMetricsF(t->font()), width - m.left() - m.right() - 8);
        t->setProperty(kFitText, wrapped);
        t->setText(wrapped);
    }
    // The legend: scaled, with as many entries on a row as fit (two at least where there are
    // several: a long series name is elided in the middle rather than given a row of its own).
    QCPLegend* legend = m_plot->legend;
    legend->setFont(fitFont(legend, legend->font(), s));
    // The entries, in order (a wrapped grid has empty cells, which legend->item() returns as null).
    std::vector<QCPAbstractLegendItem*> items;
    for (int i = 0; i < legend->elementCount(); ++i)
        if (auto* item = qobject_cast<QCPAbstractLegendItem*>(legend->elementAt(i)))
            items.push_back(item);
    const int n = static_cast<int>(items.size());
    for (QCPAbstractLegendItem* item : items) {
        item->setFont(fitFont(item, item->font(), s));
        if (auto* p = qobject_cast<QCPPlottableLegendItem*>(item)) {
            const QString name = base<QString>(p->plottable(), kBaseText, kFitText, p->plottable()->name());
            p->plottable()->setProperty(kFitText, name);
            p->plottable()->setName(name);
        }
    }
    if (legend->layout() == m_plot->plotLayout() && n > 0 && legend->fillOrder() == QCPLegend::foColumnsFirst) {
        const int spacing = legend->columnSpacing();
        const int room = static_cast<int>(width) - legend->margins().left() - legend->margins().right() - 4;
        // Columns as wide as their widest entry (entry i in column i % wrap).
        const auto fits = [&](int wrap) {
            std::vector<int> cols(static_cast<size_t>(wrap), 0);
            for (int i = 0; i < n; ++i)
                cols[static_cast<size_t>(i % wrap)] = std::max(
                    cols[static_cast<size_t>(i % wrap)], items[static_cast<size_t>(i)]->minimumOuterSizeHint().width());
            int total = spacing * (wrap - 1);
            for (int c : cols)
                total += c;
            return total <= room;
        };
        int wrap = std::min(3, n);
        while (wrap > 1 && !fits(wrap))
            --wrap;
        if (wrap == 1 && n > 2) {
            // Elide the long names to half the room each.
            wrap = 2;
            const int half = (room - spacing) / 2;
            for (QCPAbstractLegendItem* item : items) {
                auto* p = qobject_cast<QCPPlottableLegendItem*>(item);
                const int over = p ? item->minimumOuterSizeHint().width() - half : 0;
                if (over <= 0)
                    continue;
                const QFontMetricsF fm(p->font());
                const QString name = p->plottable()->name();
                const QString elided = fm.elidedText(name, Qt::ElideMiddle, fm.horizontalAdvance(name) - over - 2);
                p->plottable()->setProperty(kFitText, elided);
                p->plottable()->setName(elided);
            }
        }
        if (wrap != legend->wrap()) {
            legend->setWrap(wrap);
            legend->setFillOrder(QCPLegend::foColumnsFirst, true); // re-flows the entries
        }
    }
    // Labels in the data: scaled (their fitting to the plot follows the layout), and those left
    // out for overlapping shown again, to be judged at this size.
    for (int i = 0; i < m_plot->itemCount(); ++i) {
        if (auto* t = qobject_cast<QCPItemText*>(m_plot->item(i))) {
            if (t->property(kFitHidden).toBool()) {
                t->setVisible(true);
                t->setProperty(kFitHidden, false);
            }
            t->setFont(fitFont(t, t->font(), s));
            const QString text = base<QString>(t, kBaseText, kFitText, t->text());
            t->setProperty(kFitText, text);
            t->setText(text);
        }
    }
}

void PlotTextFit::afterLayout()
{
    // A label that would leave the plot (a long kernel name next to a point near the edge) is
    // elided in the middle to what fits; its whole text is in the panel's tooltip.
    const QRectF view = m_plot->viewport();
    for (int i = 0; i < m_plot->itemCount(); ++i) {
        auto* t = qobject_cast<QCPItemText*>(m_plot->item(i));
        if (!t || !t->visible())
            continue;
        QRectF r = textRect(t);
        if (view.contains(r))
            continue;
        // Each line that is wider than the room left is elided (a label has a name line and a
        // value line; usually only the name is long).
        const QFontMetricsF fm(t->font());
        const double over = std::max(view.left() - r.left(), 0.0) + std::max(r.right() - view.right(), 0.0);
        const QStringList lines = t->text().split(QLatin1Char('\n'));
        double widest = 0;
        for (const QString& l : lines)
            widest = std::max(widest, fm.horizontalAdvance(l));
        const double room = std::max(0.0, widest - over - 2);
        QStringList fitted;
        for (const QString& l : lines)
            fitted << (fm.horizontalAdvance(l) > room ? fm.elidedText(l, Qt::ElideMiddle, room) : l);
        const QString elided = fitted.join(QLatin1Char('\n'));
        t->setProperty(kFitText, elided);
        t->setText(elided);
    }
    // Labels drawn over each other read as neither: where two overlap, the later one is left
    // out (a label on a filled box, a point's, goes first; the others in the order the panel
    // made them), until the plot is large enough for both.
    std::vector<QCPItemText*> order;
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(m_plot->item(i)); t && t->visible() && !t->text().isEmpty())
            order.push_back(t);
    std::stable_partition(
        order.begin(), order.end(), [](const QCPItemText* t) { return t->brush().style() != Qt::NoBrush; });
    std::vector<QRectF> kept;
    for (QCPItemText* t : order) {
        const QMargins pad = t->padding();
        const QRectF r = textRect(t).adjusted(pad.left(), pad.top(), -pad.right(), -pad.bottom());
        const bool overlaps = std::any_of(kept.begin(), kept.end(), [&](const QRectF& k) {
            const QRectF both = k.intersected(r);
            return !both.isEmpty()
                && both.width() * both.height() > 0.15 * std::min(k.width() * k.height(), r.width() * r.height());
        });
        if (overlaps) {
            t->setVisible(false);
            t->setProperty(kFitHidden, true);
        } else {
            kept.push_back(r);
        }
    }
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

// Pixel probes for screenshot tests: instead of counting colours (which any noise passes),
// look at the places where the widget says it drew something and check the grab has ink
// there — the first row in view of every visible table (each cell that has text), every visible label
// with text, and the first data point of every plotted graph. Each probe names the place, so a
// blank or misplaced rendering fails with where it went wrong.
#include <QAbstractItemView>
#include <QAbstractTextDocumentLayout>
#include <QHash>
#include <QImage>
#include <QLabel>
#include <QScrollBar>
#include <QStringList>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextEdit>
#include <QWidget>
#include <qcustomplot.h>

namespace ws::test {

// The most frequent colour in `r` (image coordinates): the background there.
inline QRgb backgroundOf(const QImage& image, QRect r)
{
    r = r.intersected(image.rect());
    QHash<QRgb, int> counts;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            ++counts[image.pixel(x, y)];
    QRgb best = 0;
    int most = -1;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        if (it.value() > most) {
            most = it.value();
            best = it.key();
        }
    return best;
}

// Pixels in `r` that differ from `background`.
inline int inkIn(const QImage& image, QRect r, QRgb background)
{
    r = r.intersected(image.rect());
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            n += image.pixel(x, y) != background ? 1 : 0;
    return n;
}

struct ProbeResult {
    int probes = 0;
    QStringList blank; // the places that should have shown something and did not
};

// Probes `image` (a grab of `root`, same size).
inline ProbeResult probeRendering(QWidget* root, const QImage& image)
{
    ProbeResult out;
    // `background`: in root coordinates, where the background colour is read (default: the
    // probed rectangle itself — text on a cell or a label).
    const auto probe = [&](QWidget* child, QRect local, const QString& what, QRect background = {}) {
        const QRect r(child->mapTo(root, local.topLeft()), local.size());
        if (!image.rect().contains(r))
            return;
        ++out.probes;
        // Ink: a few pixels of glyph, line or marker, not a flat background.
        if (inkIn(image, r, backgroundOf(image, background.isEmpty() ? r : background)) < 4)
            out.blank
                << QStringLiteral("%1 at %2,%3 %4x%5").arg(what).arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
    };
    for (QAbstractItemView* view : root->findChildren<QAbstractItemView*>()) {
        QAbstractItemModel* m = view->model();
        if (!view->isVisible() || !m || m->rowCount() == 0)
            continue;
        // The first row in view (a panel may have scrolled to its hottest line).
        const QModelIndex top = view->indexAt(QPoint(2, 2));
        const int row = top.isValid() ? top.row() : 0;
        for (int c = 0; c < m->columnCount(); ++c) {
            const QModelIndex i = m->index(row, c, top.isValid() ? top.parent() : QModelIndex());
            const QRect cell = view->visualRect(i);
            // Only cells shown whole: a clipped one may show none of its (aligned) text.
            if (!view->viewport()->rect().contains(cell) || m->data(i).toString().trimmed().isEmpty())
                continue;
            probe(view->viewport(), cell,
                QStringLiteral("%1 row %2 column %3 ('%4')")
                    .arg(view->objectName())
                    .arg(row)
                    .arg(c)
                    .arg(m->data(i).toString()));
        }
    }
    for (QLabel* label : root->findChildren<QLabel*>()) {
        if (!label->isVisible() || label->text().trimmed().isEmpty() || label->width() < 8 || label->height() < 8)
            continue;
        probe(label, label->contentsRect(), QStringLiteral("label '%1'").arg(label->text().left(40)));
    }
    for (QTextEdit* text : root->findChildren<QTextEdit*>()) {
        if (!text->isVisible())
            continue;
        // The first three non-empty paragraphs in view.
        const QPoint scroll(text->horizontalScrollBar()->value(), text->verticalScrollBar()->value());
        int probed = 0;
        for (QTextBlock b = text->document()->begin(); b.isValid() && probed < 3; b = b.next()) {
            if (b.text().trimmed().isEmpty())
                continue;
            const QRect r = text->document()->documentLayout()->blockBoundingRect(b).toRect().translated(-scroll);
            if (!text->viewport()->rect().contains(r))
                continue;
            probe(text->viewport(), r, QStringLiteral("text '%1'").arg(b.text().left(40)));
            ++probed;
        }
    }
    for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
        if (!plot->isVisible())
            continue;
        plot->replot(QCustomPlot::rpImmediateRefresh);
        for (int g = 0; g < plot->graphCount(); ++g) {
            QCPGraph* graph = plot->graph(g);
            if (!graph->visible() || graph->data()->isEmpty())
                continue;
            const auto point = graph->data()->constBegin();
            const QPointF at = graph->coordsToPixels(point->key, point->value);
            const QRect area = graph->keyAxis()->axisRect()->rect();
            if (!area.contains(at.toPoint()))
                continue;
            // A marker may lie under another one (filled): compare with the plot's background.
            probe(plot, QRect(at.toPoint() - QPoint(4, 4), QSize(9, 9)),
                QStringLiteral("%1 graph '%2' first point").arg(plot->objectName(), graph->name()),
                QRect(plot->mapTo(root, area.topLeft()), area.size()));
        }
    }
    return out;
}

} // namespace ws::test

// SPDX-License-Identifier: MIT
#include "ui/panels/panelexport.h"

#include "core/util/numbertext.h"

#include "ui/panels/plottextfit.h"

#include "core/report/reportformat.h"
#include "core/report/textescape.h"

#include <QAbstractItemModel>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QScopeGuard>
#include <qcustomplot.h>

#ifdef WS_HAVE_QTSVG
#include <QSvgGenerator>
#endif

#include <charconv>
#include <cmath>
#include <sstream>

namespace ws::panelexport {

namespace {

bool fail(QString* error, const QString& why)
{
    if (error)
        *error = why;
    return false;
}

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return fail(error, QStringLiteral("%1: %2").arg(path, f.errorString()));
    return true;
}

} // namespace

bool hasSvg()
{
#ifdef WS_HAVE_QTSVG
    return true;
#else
    return false;
#endif
}

QStringList plotFormats()
{
    QStringList f {QStringLiteral("png"), QStringLiteral("pdf")};
    if (hasSvg())
        f << QStringLiteral("svg");
    return f;
}

QString csvNumber(double value)
{
    return QString::fromStdString(shortestText(value));
}

QSize exportSize(QSize onScreen)
{
    if (onScreen.width() <= 0 || onScreen.height() <= 0)
        return {kExportWidth, kExportWidth * 5 / 8};
    if (onScreen.width() >= kExportWidth)
        return onScreen;
    return {kExportWidth, onScreen.height() * kExportWidth / onScreen.width()};
}

bool savePlot(QCustomPlot* plot, const QString& path, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    // Exported at its own size, not the dock's (a narrow dock shrinks and elides the text), with
    // the text fitted to that size; the plot on screen is fitted back after.
    const QSize size = exportSize(plot->size());
    const int w = size.width();
    const int h = size.height();
    PlotTextFit::prepareExport(plot, w);
    const auto restore = qScopeGuard([plot] { plot->replot(); });
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot->savePng(path, w, h, 2.0);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot->savePdf(path, w, h, QCP::epNoCosmetic, QStringLiteral("Warpscope"), plot->objectName());
    } else if (suffix == QLatin1String("svg")) {
#ifdef WS_HAVE_QTSVG
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(plot->objectName());
        svg.setDescription(QStringLiteral("Warpscope plot"));
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, w, h);
            ok = painter.end();
        }
#else
        return fail(error, QStringLiteral("%1: SVG export needs Qt SVG, which this build does not have").arg(path));
#endif
    } else {
        return fail(error,
            QStringLiteral("%1: unknown plot format '%2' (use %3)")
                .arg(path, suffix, plotFormats().join(QStringLiteral(", "))));
    }
    if (!ok || !QFileInfo::exists(path))
        return fail(error, QStringLiteral("%1: could not write the plot").arg(path));
    return true;
}

bool saveModelCsv(const QAbstractItemModel* model, const QString& path, QString* error)
{
    std::string out;
    const int columns = model->columnCount();
    for (int c = 0; c < columns; ++c) {
        if (c)
            out += ',';
        appendCsvField(out, model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().toStdString());
    }
    out += '\n';
    for (int r = 0; r < model->rowCount(); ++r) {
        for (int c = 0; c < columns; ++c) {
            if (c)
                out += ',';
            const QModelIndex index = model->index(r, c);
            QVariant v = model->data(index, kRawRole);
            if (!v.isValid())
                v = model->data(index, Qt::DisplayRole);
            QString text;
            if (v.typeId() == QMetaType::Double)
                text = csvNumber(v.toDouble());
            else
                text = v.toString();
            appendCsvField(out, text.toStdString());
        }
        out += '\n';
    }
    return writeAtomically(path, QByteArray::fromStdString(out), error);
}

bool saveReportCsv(const ReportTable& report, const QString& path, QString* error)
{
    std::ostringstream s;
    writeReportCsv(s, report);
    return writeAtomically(path, QByteArray::fromStdString(s.str()), error);
}

void addPlotExportMenu(QCustomPlot* plot, const QString& baseName, const PlotMenuItems& before)
{
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, baseName, before](const QPoint& pos) {
        QMenu menu(plot);
        if (before)
            before(menu, pos);
        for (const QString& format : plotFormats()) {
            menu.addAction(QObject::tr("Export plot as %1…").arg(format.toUpper()), plot, [plot, baseName, format] {
                QString path = QFileDialog::getSaveFileName(plot, QObject::tr("Export plot"),
                    baseName + QLatin1Char('.') + format, QStringLiteral("%1 (*.%2)").arg(format.toUpper(), format));
                if (path.isEmpty())
                    return;
                QString error;
                if (!savePlot(plot, path, &error))
                    QMessageBox::warning(plot, QObject::tr("Export failed"), error);
            });
        }
        if (!hasSvg())
            menu.addAction(QObject::tr("(SVG needs Qt SVG, not in this build)"))->setEnabled(false);
        menu.exec(plot->mapToGlobal(pos));
    });
}

QString exportModelDialog(QWidget* parent, const QAbstractItemModel* model, const QString& baseName)
{
    const QString path = QFileDialog::getSaveFileName(
        parent, QObject::tr("Export table as CSV"), baseName + QStringLiteral(".csv"), QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty())
        return {};
    QString error;
    if (!saveModelCsv(model, path, &error)) {
        QMessageBox::warning(parent, QObject::tr("Export failed"), error);
        return {};
    }
    return path;
}

} // namespace ws::panelexport

// SPDX-License-Identifier: MIT
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>

class QAbstractItemModel;
class QCustomPlot;
class QMenu;
class QPoint;
class QWidget;

namespace ws {

struct ReportTable;

// Exporting what the panels show: every plot as PNG, PDF or SVG (SVG when this build has
// Qt SVG; plotFormats() lists what is available), every table as CSV.
namespace panelexport {

// The role the panels' models answer with the raw value (for sorting and CSV): numbers
// unformatted, in the unit the column header names.
constexpr int kRawRole = 0x0100 + 17; // Qt::UserRole + 17

QStringList plotFormats(); // "png", "pdf" and, with Qt SVG, "svg"
bool hasSvg();

// Saves by the file's suffix (png, pdf, svg). PNG at twice the widget's size for print.
bool savePlot(QCustomPlot* plot, const QString& path, QString* error = nullptr);
// CSV (RFC 4180) of a model: header row from the horizontal header, then every row; cells
// are the raw values when the model answers kRawRole, else the displayed text.
bool saveModelCsv(const QAbstractItemModel* model, const QString& path, QString* error = nullptr);
// A number as CSV writes it: the shortest text that reads back as the same double (0.257696,
// not 0.25769599999999998), in plain notation from 1e-4 to 1e15 and in scientific beyond.
QString csvNumber(double value);
// The size a plot is exported at: its size on screen, but at least kExportWidth px wide (same
// aspect), so text the dock had to shrink, wrap or elide is drawn whole.
constexpr int kExportWidth = 960;
QSize exportSize(QSize onScreen);
// A stats report exactly as `warpscope-cli stats --format csv` writes it.
bool saveReportCsv(const ReportTable& report, const QString& path, QString* error = nullptr);

// Items a plot's own context menu puts before the export items (e.g. a kernel's actions for
// the point under the mouse); `pos` is in the plot's coordinates.
using PlotMenuItems = std::function<void(QMenu& menu, const QPoint& pos)>;
// Adds "Export plot as PNG / SVG / PDF…" to the plot's context menu (file dialog), after
// `before`'s items when given.
void addPlotExportMenu(QCustomPlot* plot, const QString& baseName, const PlotMenuItems& before = {});
// Asks for a file name and saves the model as CSV; returns the path or "" when cancelled.
QString exportModelDialog(QWidget* parent, const QAbstractItemModel* model, const QString& baseName);

} // namespace panelexport

} // namespace ws

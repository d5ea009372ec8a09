// SPDX-License-Identifier: MIT
// The kernel analysis panels on real H200 sessions: every model under
// QAbstractItemModelTester, the ranking against the core ranking, the stats tables against the
// CLI's report code (whole session and range selection, CSV byte for byte), the details tables
// against the stored metrics and the occupancy calculator, the "not collected" state of trace
// sessions, and plot/table export.
#include "panelfixtures.h"

#include "core/analysis/nsysreports.h"
#include "core/analysis/sessionfilesource.h"
#include "core/diagnosis/occupancycurves.h"
#include "core/ranking/kernelranking.h"
#include "core/ranking/windowedsource.h"
#include "core/report/reportformat.h"
#include "core/store/sessionmerge.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "ui/panels/analysispanels.h"
#include "ui/panels/diagnosispanel.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/launchpanel.h"
#include "ui/panels/memorypanel.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/statspanel.h"
#include "ui/panels/throughputpanel.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>
#include <map>
#include <sstream>

using namespace ws;
using namespace ws::test;

namespace {

QString cellText(const QAbstractItemModel* m, int row, int column)
{
    return m->data(m->index(row, column)).toString();
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The stored output of `warpscope-cli stats SESSION -r REPORT -f csv [--range RANGE]`:
// tests/fixtures/stats-panel/torch_nvtx.REPORT[.half].csv. WS_UPDATE_GOLDEN=1 runs the CLI to
// rewrite it (review the diff: the panel and the CLI must agree with what was stored).
void compareWithCliGolden(const QByteArray& actual, const QString& report, const QString& session, const QString& range)
{
    const QString golden = QStringLiteral(WS_FIXTURES_DIR "/stats-panel/torch_nvtx.%1%2.csv")
                               .arg(report, range.isEmpty() ? QString() : QStringLiteral(".half"));
    if (qEnvironmentVariableIsSet("WS_UPDATE_GOLDEN")) {
        QProcess cli;
        QStringList args {QStringLiteral("stats"), session, QStringLiteral("-r"), report, QStringLiteral("-f"),
            QStringLiteral("csv")};
        if (!range.isEmpty())
            args << QStringLiteral("--range") << range;
        cli.start(QStringLiteral(WS_CLI_PATH), args);
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        QFile f(golden);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(cli.readAllStandardOutput());
    }
    const QByteArray expected = readAll(golden);
    QVERIFY2(!expected.isEmpty(), qPrintable(golden + QStringLiteral(" is missing")));
    QCOMPARE(actual, expected);
}

// One CSV record: fields split at commas outside quotes, "" inside quotes an escaped quote.
QStringList csvFields(const QString& line)
{
    QStringList out;
    QString field;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out << field;
            field.clear();
        } else {
            field += c;
        }
    }
    out << field;
    return out;
}

} // namespace

class TestPanels : public QObject {
    Q_OBJECT

    struct Session {
        std::shared_ptr<const PanelData> data;
        std::shared_ptr<const SessionSnapshot> snapshot;
    };
    static Session open(const char* rel)
    {
        const QString path = fixturePath(rel);
        return {panelDataOf(path), snapshotOf(path)};
    }

private slots:
    void initTestCase() { qRegisterMetaType<ws::EventSelection>(); }

    void rankingModel()
    {
        const Session s = open("recorder/sessions/torch_nvtx.wscope");
        KernelRankingModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPanelData(s.data);
        const auto ranks = rankKernels(s.data->launches);
        QCOMPARE(model.rowCount(), static_cast<int>(ranks.size()));
        QVERIFY(model.rowCount() > 3);
        for (int r = 0; r < model.rowCount(); ++r) {
            const KernelRank& k = ranks[static_cast<size_t>(r)];
            QCOMPARE(
                model.data(model.index(r, KernelRankingModel::Calls), panelexport::kRawRole).toLongLong(), k.calls);
            QCOMPARE(model.data(model.index(r, KernelRankingModel::Total), panelexport::kRawRole).toDouble(),
                static_cast<double>(k.totalNs) / 1e6);
            QCOMPARE(model.data(model.index(r, KernelRankingModel::Median), panelexport::kRawRole).toDouble(),
                k.medianNs / 1e3);
            QCOMPARE(
                model.data(model.index(r, KernelRankingModel::Share), panelexport::kRawRole).toDouble(), k.sharePct);
            // Full demangled name on hover, a shorter one in the cell.
            const QString full = QString::fromStdString(s.data->launches.groups()[k.group].name);
            QVERIFY(model.data(model.index(r, 0), Qt::ToolTipRole).toString().contains(full.toHtmlEscaped()));
            QVERIFY(cellText(&model, r, 0).size() <= full.size());
        }
        QVERIFY(model.headerData(KernelRankingModel::Total, Qt::Horizontal).toString().contains("ms"));
        QVERIFY(model.headerData(KernelRankingModel::Average, Qt::Horizontal).toString().contains("µs"));
        // A window: the middle of the session.
        const auto& launches = s.data->launches.launches();
        const TimeWindow w {launches[launches.size() / 3].start, launches[2 * launches.size() / 3].start};
        model.setWindow(w);
        QCOMPARE(model.rowCount(), static_cast<int>(rankKernels(s.data->launches, w).size()));
        int64_t calls = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            calls += model.data(model.index(r, KernelRankingModel::Calls), panelexport::kRawRole).toLongLong();
        QCOMPARE(calls, model.launchesInWindow());
        QVERIFY(calls < static_cast<int64_t>(launches.size()));
    }

    void rankingPanelFollowsRangeAndFilters()
    {
        const Session s = open("recorder/sessions/gemm_relu.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        KernelRankingPanel panel(&focus);
        focus.setData(s.data, s.snapshot);
        QVERIFY(panel.model()->rowCount() >= 2);
        const int all = panel.model()->rowCount();
        QVERIFY(panel.scopeLabel()->text().contains("whole session"));
        // Sorted by total, descending.
        const auto* proxy = panel.proxy();
        for (int r = 1; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->data(proxy->index(r - 1, KernelRankingModel::Total), panelexport::kRawRole).toDouble()
                >= proxy->data(proxy->index(r, KernelRankingModel::Total), panelexport::kRawRole).toDouble());
        // Filter over the full names (regular expression).
        panel.filterEdit()->setText(QStringLiteral("relu|fill"));
        QVERIFY(proxy->rowCount() >= 1 && proxy->rowCount() < all);
        for (int r = 0; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->data(proxy->index(r, 0), panelexport::kRawRole)
                        .toString()
                        .contains(QRegularExpression(QStringLiteral("relu|fill"))));
        QVERIFY(panel.scopeLabel()->text().contains("shown by the filter"));
        panel.filterEdit()->setText(QStringLiteral("[")); // invalid regex: taken literally, no crash
        QCOMPARE(proxy->rowCount(), 0);
        panel.filterEdit()->clear();
        // The range selection drives the ranking.
        const auto& launches = s.data->launches.launches();
        selection.setTimeRange({launches.front().start, launches.front().end});
        QVERIFY(panel.model()->launchesInWindow() < static_cast<int64_t>(launches.size()));
        QVERIFY(panel.scopeLabel()->text().contains("range selection"));
        selection.clearTimeRange();
        QCOMPARE(panel.model()->rowCount(), all);
        // CSV: the visible rows, exact values.
        QTemporaryDir dir;
        const QString csv = dir.filePath("ranking.csv");
        QVERIFY(panel.exportCsv(csv));
        const QList<QByteArray> lines = readAll(csv).split('\n');
        QVERIFY(lines.first().startsWith("Kernel,Calls,Total (ms),Avg (µs)"));
        QCOMPARE(lines.size(), all + 2); // header, rows, trailing newline
    }

    void statsTablesAreTheCliReports_data()
    {
        QTest::addColumn<QString>("report");
        for (const auto& r : StatsPanel::reports())
            QTest::newRow(qPrintable(r.id)) << r.id;
    }
    void statsTablesAreTheCliReports()
    {
        QFETCH(QString, report);
        const Session s = open("recorder/sessions/torch_nvtx.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        StatsPanel panel(&focus);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy ready(&panel, &StatsPanel::reportReady);
        focus.setData(s.data, s.snapshot);
        panel.showReport(report);
        QVERIFY(
            waitUntil([&] { return !panel.isComputing() && panel.fullReport() && panel.currentReport() == report; }));

        const SessionReader reader(s.data->path.toStdString());
        const SessionFileSource source(reader);
        QTemporaryDir dir;
        const QString csv = dir.filePath("r.csv");
        QVERIFY(panel.exportCsv(csv));
        // Expected: what `warpscope-cli stats` printed for the same session, stored once
        // (tests/fixtures/stats-panel; WS_UPDATE_GOLDEN=1 rewrites them from the CLI).
        compareWithCliGolden(readAll(csv), report, s.data->path, {});
        QCOMPARE(panel.model()->rowCount(), static_cast<int>(panel.fullReport()->rows.size()));
        // Headers with units, as nsys prints them.
        for (int c = 0; c < panel.model()->columnCount(); ++c)
            QCOMPARE(panel.model()->headerData(c, Qt::Horizontal).toString(),
                QString::fromStdString(panel.fullReport()->columns[static_cast<size_t>(c)].header()));

        // Range selection: the report over the events overlapping it.
        const TimeSpan span = source.timeSpan();
        const TimeRange half {span.begin, span.begin + (span.end - span.begin) / 2};
        selection.setTimeRange(half);
        QVERIFY(waitUntil([&] { return !panel.isComputing(); }));
        QVERIFY(panel.exportCsv(csv));
        compareWithCliGolden(
            readAll(csv), report, s.data->path, QStringLiteral("0ns:%1ns").arg((span.end - span.begin) / 2));
        QVERIFY(panel.noteLabel()->text().contains("range selection"));
    }

    // The stored kernel summary checked against the kernels themselves, by brute force: per
    // demangled name the launches, total, min and max of end - start, and the share of the sum.
    void cliGoldenKernelSumIsTheKernelsByHand()
    {
        const SessionData d = SessionReader(fixturePath("recorder/sessions/torch_nvtx.wscope").toStdString()).readAll();
        struct Sum {
            int64_t n = 0, total = 0, min = INT64_MAX, max = 0;
        };
        std::map<QString, Sum> byName;
        int64_t all = 0;
        for (const KernelRecord& k : d.kernels) {
            Sum& x = byName[QString::fromStdString(d.str(k.demangledName))];
            const int64_t t = k.end - k.start;
            ++x.n;
            x.total += t;
            x.min = std::min(x.min, t);
            x.max = std::max(x.max, t);
            all += t;
        }
        const QList<QByteArray> lines
            = readAll(QStringLiteral(WS_FIXTURES_DIR "/stats-panel/torch_nvtx.cuda_gpu_kern_sum.csv")).split('\n');
        QCOMPARE(csvFields(QString::fromUtf8(lines[0])),
            (QStringList {"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                "StdDev (ns)", "Name"}));
        size_t rows = 0;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            if (lines[i].isEmpty())
                continue;
            const QStringList f = csvFields(QString::fromUtf8(lines[i]));
            QCOMPARE(f.size(), 9);
            QVERIFY2(byName.count(f[8]), qPrintable(f[8]));
            const Sum& x = byName.at(f[8]);
            QCOMPARE(f[1].toLongLong(), x.total);
            QCOMPARE(f[2].toLongLong(), x.n);
            QCOMPARE(f[5].toLongLong(), x.min);
            QCOMPARE(f[6].toLongLong(), x.max);
            QCOMPARE(f[0], QString::number(std::round(1000.0 * x.total / all) / 10, 'f', 1));
            ++rows;
        }
        QCOMPARE(rows, byName.size());
    }

    void detailsOnProfiledKernels()
    {
        const Session s = open("metrics/gemm_relu.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        LaunchPanel launch(&focus);
        ThroughputPanel throughput(&focus);
        SchedulerPanel scheduler(&focus);
        MemoryPanel memory(&focus);
        for (DetailsPanel* p : std::initializer_list<DetailsPanel*> {&launch, &throughput, &scheduler, &memory})
            new QAbstractItemModelTester(p->table(), QAbstractItemModelTester::FailureReportingMode::QtTest, p);
        focus.setData(s.data, s.snapshot);
        focus.selectKernel(3); // the nvjet BF16 GEMM
        QCOMPARE(focus.current(), qint64(3));
        const auto* k = s.data->profiled(3);
        QVERIFY(k);
        auto valueOf = [](DetailsPanel& p, const QString& label, int column = 0) {
            const int row = p.table()->rowOf(label);
            return row < 0 ? QVariant() : p.table()->data(p.table()->index(row, 2 + column), panelexport::kRawRole);
        };
        // Block limits and occupancy: the stored (collected/launch) metrics.
        QCOMPARE(
            valueOf(launch, "Block limit registers").toDouble(), *k->metrics.get("launch__occupancy_limit_registers"));
        QCOMPARE(valueOf(launch, "Theoretical occupancy").toDouble(),
            *k->metrics.get("sm__maximum_warps_per_active_cycle_pct"));
        QCOMPARE(valueOf(launch, "Achieved occupancy").toDouble(),
            *k->metrics.get("sm__warps_active.avg.pct_of_peak_sustained_active"));
        QCOMPARE(valueOf(launch, "Grid").toString(),
            QStringLiteral("(%1, %2, %3)").arg(k->launch.gridX).arg(k->launch.gridY).arg(k->launch.gridZ));
        QVERIFY(!launch.banner()->isVisible() || launch.banner()->isHidden());
        // What the numbers measured: the H200 fixture was profiled with --cache-control all.
        QVERIFY2(throughput.provenance()->text().contains("26 replay passes each; cache control all"),
            qPrintable(throughput.provenance()->text()));
        QVERIFY(!throughput.provenance()->isHidden());
        QCOMPARE(valueOf(throughput, "Compute (SM) throughput").toDouble(),
            *k->metrics.get("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
        // Pipe utilization in both denominators, labelled.
        QVERIFY(throughput.table()->rowOf("Pipe utilization: % of elapsed cycles the pipe was active") >= 0);
        QVERIFY(
            throughput.table()->rowOf("Pipe utilization: % of peak instructions executed over elapsed cycles") >= 0);
        QCOMPARE(valueOf(scheduler, "Eligible warps").toDouble(),
            *k->metrics.get("smsp__warps_eligible.avg.per_cycle_active"));
        // Stall reasons sorted, largest first, with the share next to the value.
        const auto order = scheduler.stallOrder();
        QVERIFY(order.size() > 5);
        const int first = scheduler.table()->rowOf(QString::fromStdString(stallLabel(order[0])));
        QVERIFY(first > 0);
        QVERIFY(scheduler.table()->data(scheduler.table()->index(first, 2)).toString().contains("%)"));
        QCOMPARE(valueOf(memory, "DRAM bytes").toDouble(), *k->metrics.get("dram__bytes.sum") / 1e6);
        // Every plot titled and with labelled axes.
        for (DetailsPanel* p : std::initializer_list<DetailsPanel*> {&launch, &throughput, &scheduler, &memory}) {
            for (QCustomPlot* plot : p->plots()) {
                QVERIFY2(plot->plottableCount() > 0, qPrintable(plot->objectName()));
                QVERIFY2(
                    !plot->xAxis->label().isEmpty() || !plot->yAxis->label().isEmpty(), qPrintable(plot->objectName()));
            }
        }

        // Pinning puts kernels side by side.
        focus.pin(3);
        focus.selectKernel(4);                      // relu
        QCOMPARE(launch.table()->columnCount(), 4); // Metric, Unit, #3 (pinned), #4 (current)
        QVERIFY(launch.table()->headerData(2, Qt::Horizontal).toString().startsWith("#3 "));
        QVERIFY(launch.table()->headerData(3, Qt::Horizontal).toString().startsWith("#4 "));
        QCOMPARE(throughput.speedOfLightPlot()->plottableCount(), 2); // one bar series per kernel
        focus.clearPins();
        QCOMPARE(launch.table()->columnCount(), 3);
    }

    // The occupancy curves drawn are the calculator's, with the launch's own point on them.
    void occupancyCurvesAreTheCalculator()
    {
        const Session s = open("metrics/torch_softmax.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        LaunchPanel panel(&focus);
        focus.setData(s.data, s.snapshot);
        focus.selectKernel(1);
        const auto* l = s.data->launches.find(1);
        ArchitectureLimits limits;
        QVERIFY(ArchitectureLimits::forDevice(*s.data->device(l->deviceId), limits));
        const OccupancyCalculator calc(limits);
        const auto& config = s.data->launches.configs()[l->config];
        const OccupancyCurves expected = occupancyCurves(calc, occupancyInput(config, limits));
        QCustomPlot* plot = panel.registersPlot();
        QVERIFY(plot->graphCount() >= 2);
        QCPGraph* curve = plot->graph(0);
        QCOMPARE(curve->dataCount(), static_cast<int>(expected.byRegisters.size()));
        for (int i = 0; i < curve->dataCount(); ++i) {
            QCOMPARE(curve->data()->at(i)->key, expected.byRegisters[static_cast<size_t>(i)].x);
            QCOMPARE(curve->data()->at(i)->value, expected.byRegisters[static_cast<size_t>(i)].occupancyPct);
        }
        QCPGraph* mark = plot->graph(1);
        QCOMPARE(mark->dataCount(), 1);
        QCOMPARE(mark->data()->at(0)->key, static_cast<double>(config.registersPerThread));
        QCOMPARE(mark->data()->at(0)->value, expected.current.occupancyPct);
        // ncu's theoretical occupancy (stored by the profile) is the calculator's.
        QCOMPARE(
            *s.data->profiled(1)->metrics.get("sm__maximum_warps_per_active_cycle_pct"), expected.current.occupancyPct);
        QCPGraph* smem = panel.sharedMemPlot()->graph(0);
        QCOMPARE(smem->dataCount(), static_cast<int>(expected.bySharedMem.size()));
        QCOMPARE(smem->data()->at(48)->key, 48.0); // KiB on the axis
    }

    void panelsSayWhileTheirSessionLoads()
    {
        // Until the worker's read arrives the panels show neither the previous session nor
        // "No session.": they say what they are loading.
        const Session s = open("metrics/gemm_relu.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        KernelRankingPanel ranking(&focus);
        StatsPanel stats(&focus);
        DiagnosisPanel diagnosis(&focus);
        focus.setData(s.data, s.snapshot);
        QVERIFY(ranking.model()->rowCount() > 0);
        focus.setLoading(QStringLiteral("/data/runs/big-10m.wscope"));
        QVERIFY(focus.isLoading());
        QVERIFY(!focus.data());
        QCOMPARE(ranking.model()->rowCount(), 0);
        const QString loading = QStringLiteral("Loading the kernels of big-10m.wscope");
        QVERIFY2(ranking.scopeLabel()->text().startsWith(loading), qPrintable(ranking.scopeLabel()->text()));
        QVERIFY2(stats.noteLabel()->text().startsWith(loading), qPrintable(stats.noteLabel()->text()));
        QVERIFY2(
            diagnosis.browser()->toPlainText().startsWith(loading), qPrintable(diagnosis.browser()->toPlainText()));
        focus.setData(s.data, s.snapshot);
        QVERIFY(!focus.isLoading());
        QVERIFY(!ranking.scopeLabel()->text().startsWith(loading));
        focus.setLoading(QStringLiteral("x.wscope"));
        focus.setData(nullptr, nullptr); // the read failed or was cancelled
        QCOMPARE(ranking.scopeLabel()->text(), QStringLiteral("No session."));
    }

    void traceSessionSaysNotCollected()
    {
        const Session s = open("recorder/sessions/gemm_relu.wscope");
        QVERIFY(!s.data->hasMetrics());
        SelectionModel selection;
        KernelFocus focus(&selection);
        LaunchPanel launch(&focus);
        ThroughputPanel throughput(&focus);
        DiagnosisPanel diagnosis(&focus);
        launch.show();
        throughput.show();
        focus.setData(s.data, s.snapshot);
        QVERIFY(focus.current() >= 0); // opens on the most expensive kernel
        QVERIFY(throughput.banner()->isVisible());
        // How to get them without leaving the window (issue 17: no more "run warpscope-cli profile").
        QVERIFY(throughput.banner()->text().contains(PanelData::notProfiledText()));
        QVERIFY(!throughput.provenance()->isVisible()); // nothing measured, nothing to describe
        // The launch configuration is in the trace: theoretical occupancy is computed...
        const int theo = launch.table()->rowOf("Theoretical occupancy");
        QVERIFY(launch.table()->data(launch.table()->index(theo, 2), panelexport::kRawRole).toDouble() > 0);
        // ... achieved is not collected.
        const int ach = launch.table()->rowOf("Achieved occupancy");
        QCOMPARE(launch.table()->data(launch.table()->index(ach, 2)).toString(), QStringLiteral("n/c"));
        QVERIFY(launch.banner()->text().contains("occupancy calculator"));
        QVERIFY(diagnosis.browser()->toPlainText().contains("Kernel metrics not collected"));
        QVERIFY(diagnosis.browser()->toPlainText().contains("Timeline: is the GPU busy?"));
    }

    // The window reads the panels' launches from the timeline's lanes when the lane cache has
    // launch rows (what today's writer stores): every panel's data must be what reading the
    // kernel rows gives: the ranking's rows, each launch with its name and configuration (what
    // the details and the occupancy show for a kernel), the GPU busy summary and the session facts
    // of the diagnosis, the first kernel shown. On real sessions rewritten by today's writer and as
    // committed (no launch rows: the rows are read either way).
    void panelDataFromLanesEqualsRowRead_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("rewrite");
        for (const char* f : {"recorder/sessions/gemm_relu.wscope", "recorder/sessions/torch_nvtx.wscope",
                 "multigpu/ddp-2gpu.wscope", "multirun/h200-gemm-relu-3runs.wscope"}) {
            QTest::addRow("%s rewritten", f) << fixturePath(f) << true;
            QTest::addRow("%s as committed", f) << fixturePath(f) << false;
        }
    }
    void panelDataFromLanesEqualsRowRead()
    {
        QFETCH(QString, file);
        QFETCH(bool, rewrite);
        QTemporaryDir dir;
        QString path = file;
        if (rewrite) {
            path = dir.filePath(QStringLiteral("rewritten.wscope"));
            const SessionData data = SessionReader(file.toStdString()).readAll();
            SessionWriter w(path.toStdString());
            attachLaneCache(w);
            w.write(data);
            w.commit();
        }
        const auto snapshot = snapshotOf(path);
        const auto rows = PanelData::load(SessionFile::open(path), {}, snapshot->begin());
        const auto lanes = PanelData::load(SessionFile::open(path), {}, snapshot->begin(), snapshot->model);

        QCOMPARE(lanes->ranking.size(), rows->ranking.size());
        QVERIFY(!rows->ranking.empty());
        for (size_t r = 0; r < rows->ranking.size(); ++r) {
            const KernelRank& a = lanes->ranking[r];
            const KernelRank& b = rows->ranking[r];
            QCOMPARE(lanes->launches.groups()[a.group].name, rows->launches.groups()[b.group].name);
            QCOMPARE(a.calls, b.calls);
            QCOMPARE(a.totalNs, b.totalNs);
            QCOMPARE(a.avgNs, b.avgNs);
            QCOMPARE(a.medianNs, b.medianNs);
            QCOMPARE(a.minNs, b.minNs);
            QCOMPARE(a.maxNs, b.maxNs);
            QCOMPARE(a.stdevNs, b.stdevNs);
            QCOMPARE(a.sharePct, b.sharePct);
            QCOMPARE(lanes->representative(a.group)->id, rows->representative(b.group)->id);
        }
        QCOMPARE(lanes->launches.size(), rows->launches.size());
        for (const KernelLaunchTable::Launch& b : rows->launches.launches()) {
            const KernelLaunchTable::Launch* a = lanes->launches.find(b.id);
            QVERIFY(a);
            QCOMPARE(a->start, b.start);
            QCOMPARE(a->end, b.end);
            QCOMPARE(a->pid, b.pid);
            QCOMPARE(a->streamId, b.streamId);
            QCOMPARE(a->deviceId, b.deviceId);
            QCOMPARE(lanes->kernelName(b.id), rows->kernelName(b.id));
            QCOMPARE(lanes->shortName(b.id), rows->shortName(b.id));
            QVERIFY(lanes->launches.configs()[a->config] == rows->launches.configs()[b.config]);
        }
        QCOMPARE(lanes->gpuBusy.size(), rows->gpuBusy.size());
        for (size_t d = 0; d < rows->gpuBusy.size(); ++d) {
            QCOMPARE(lanes->gpuBusy[d].deviceId, rows->gpuBusy[d].deviceId);
            QCOMPARE(lanes->gpuBusy[d].busyNs, rows->gpuBusy[d].busyNs);
            QCOMPARE(lanes->gpuBusy[d].idleNs, rows->gpuBusy[d].idleNs);
            QCOMPARE(lanes->gpuBusy[d].gaps, rows->gpuBusy[d].gaps);
            QCOMPARE(lanes->gpuBusy[d].largestGapNs, rows->gpuBusy[d].largestGapNs);
            QCOMPARE(lanes->gpuBusy[d].operations, rows->gpuBusy[d].operations);
        }
        for (const double tiny : {10'000.0, 1e6}) {
            const SessionFacts a = lanes->sessionFacts(tiny);
            const SessionFacts b = rows->sessionFacts(tiny);
            QCOMPARE(a.kernelLaunches, b.kernelLaunches);
            QCOMPARE(a.kernelTimeNs, b.kernelTimeNs);
            QCOMPARE(a.tinyLaunches, b.tinyLaunches);
            QCOMPARE(a.tinyTimeNs, b.tinyTimeNs);
        }

        // The first kernel the panels show and its launch configuration, as the details read it.
        SelectionModel selectionA;
        SelectionModel selectionB;
        KernelFocus focusA(&selectionA);
        KernelFocus focusB(&selectionB);
        focusA.setData(lanes, snapshot);
        focusB.setData(rows, snapshot);
        QCOMPARE(focusA.current(), focusB.current());
        QVERIFY(focusA.current() >= 0);
        const auto* a = lanes->launches.find(focusA.current());
        const auto* b = rows->launches.find(focusB.current());
        const LaunchConfig& ca = lanes->launches.configs()[a->config];
        const LaunchConfig& cb = rows->launches.configs()[b->config];
        QVERIFY(ca == cb);
        QVERIFY(cb.blockThreads() > 0);
    }

    void multiRunSessionShowsProfileMetricsOnTracedLaunches()
    {
        // A trace and a --set full profile of the same program, merged into one schema-v2
        // session (what `warpscope-cli merge` writes): the panels show the profile's metrics on
        // the traced launches, the ranking counts the traced launches only.
        QTemporaryDir dir;
        const QString merged = dir.filePath(QStringLiteral("both.wscope"));
        {
            const SessionData trace
                = SessionReader(fixturePath("recorder/sessions/gemm_relu.wscope").toStdString()).readAll();
            const SessionData profile = SessionReader(fixturePath("metrics/gemm_relu.wscope").toStdString()).readAll();
            SessionWriter w(merged.toStdString());
            attachLaneCache(w);
            w.write(mergeSessions(trace, profile));
            w.commit();
        }
        const auto links = SessionReader(merged.toStdString()).readKernelLinks();
        QCOMPARE(links.size(), size_t(14));
        const auto data = panelDataOf(merged);
        const int gemm = data->launches.groupIndex("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
        QVERIFY(gemm >= 0);
        QCOMPARE(rankKernels(data->launches)[0].calls, int64_t(24)); // the trace's 24, not 24 + 6 replayed

        SelectionModel selection;
        KernelFocus focus(&selection);
        LaunchPanel launch(&focus);
        ThroughputPanel throughput(&focus);
        focus.setData(data, snapshotOf(merged));
        const int64_t traced = links.front().traceKernelId;
        focus.selectKernel(traced);
        QCOMPARE(focus.current(), traced);
        const auto* k = data->profiled(traced);
        QVERIFY(k);
        QCOMPARE(k->metricsRunId, 2u);
        QCOMPARE(k->measuredKernelId, links.front().kernelId);
        const int ach = launch.table()->rowOf("Achieved occupancy");
        QCOMPARE(launch.table()->data(launch.table()->index(ach, 2), panelexport::kRawRole).toDouble(),
            *k->metrics.get("sm__warps_active.avg.pct_of_peak_sustained_active"));
        QVERIFY2(throughput.provenance()->text().contains("26 replay passes each; cache control all"),
            qPrintable(throughput.provenance()->text()));
        // Clicking the profiled launch itself (the profile run's lane) focuses its traced launch.
        selection.setSelectedEvent(focus.eventFor(traced)); // something else first
        EventSelection profiled = focus.eventFor(traced);
        profiled.ref = EventRef::make(EventTable::Kernel, links[1].kernelId);
        selection.setSelectedEvent(profiled);
        QCOMPARE(focus.current(), links[1].traceKernelId);
    }

    void h200MultiRunSessionSaysHowItWasRun()
    {
        // Three runs of one program recorded on the H200 by record, profile and profile
        // --section SourceCounters, merged (docs/evidence/2026-12-02-multirun).
        const auto data = panelDataOf(fixturePath("multirun/h200-gemm-relu-3runs.wscope"));
        QCOMPARE(data->runs.size(), size_t(3));
        const std::vector<std::string> kinds {"trace", "profile", "pc-sampling"};
        for (size_t i = 0; i < kinds.size(); ++i) {
            const RunInfo& run = data->runs[i];
            QCOMPARE(run.kind, kinds[i]);
            // Written by the collector that started the program, the same for every run.
            QCOMPARE(run.commandLine, data->runs[0].commandLine);
            QVERIFY(run.commandLine.find("ws-example-gemm-relu --warmup 3 --iters 20") != std::string::npos);
            QVERIFY(!run.cwd.empty() && !run.host.empty() && !run.user.empty());
            QVERIFY(run.endRealtimeNs > run.startRealtimeNs);
        }
        QVERIFY(data->runs[1].startRealtimeNs >= data->runs[0].endRealtimeNs); // one after the other
        QCOMPARE(data->links.size(), size_t(15));
        const int gemm = data->launches.groupIndex("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
        QVERIFY(gemm >= 0);
        for (const KernelRank& r : rankKernels(data->launches)) {
            if (static_cast<int>(r.group) == gemm)
                QCOMPARE(r.calls, int64_t(24)); // traced launches only
        }
        // Traced launch #3 (the first GEMM) carries the profile's metrics and says how they were measured.
        const auto* k = data->profiled(3);
        QVERIFY(k);
        QCOMPARE(k->metricsRunId, 2u);
        QVERIFY(k->metrics.get("sm__throughput.avg.pct_of_peak_sustained_elapsed").has_value());
        QCOMPARE(data->measurementMeta(3).at("profile_passes"), std::string("26"));
        QVERIFY(data->profiled(15) == nullptr); // beyond the 14 profiled launches
    }

    void diagnosisReadsInOrder()
    {
        const Session s = open("metrics/chase.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        DiagnosisPanel panel(&focus);
        focus.setData(s.data, s.snapshot);
        focus.selectKernel(1);
        QCOMPARE(panel.kernelDiagnoses().size(), size_t {1});
        const KernelDiagnosis& d = panel.kernelDiagnoses().front().second;
        QCOMPARE(d.limiter, Limiter::Latency);
        const QString text = panel.browser()->toPlainText();
        QVERIFY(text.contains("latency-bound"));
        QVERIFY(text.contains("Est. Speedup"));
        // Launch before occupancy before speed of light before warp states.
        const int launchAt = text.indexOf("[Launch]");
        const int occupancyAt = text.indexOf("[Occupancy]");
        const int solAt = text.indexOf("[Speed of light]");
        const int warpAt = text.indexOf("[Warp states]");
        QVERIFY(launchAt >= 0 && launchAt < occupancyAt && occupancyAt < solAt && solAt < warpAt);
        // A profile run's timeline is replay order, not the application's.
        QVERIFY(text.contains("profile run"));
    }

    void exports()
    {
        const Session s = open("metrics/copy.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        MemoryPanel panel(&focus);
        panel.resize(900, 700);
        focus.setData(s.data, s.snapshot);
        QTemporaryDir dir;
        QCustomPlot* plot = panel.bytesPlot();
        QVERIFY(panelexport::savePlot(plot, dir.filePath("p.png")));
        QVERIFY(readAll(dir.filePath("p.png")).startsWith("\x89PNG"));
        QVERIFY(panelexport::savePlot(plot, dir.filePath("p.pdf")));
        QVERIFY(readAll(dir.filePath("p.pdf")).startsWith("%PDF"));
        QCOMPARE(panelexport::plotFormats().contains("svg"), panelexport::hasSvg());
        if (panelexport::hasSvg()) {
            QVERIFY(panelexport::savePlot(plot, dir.filePath("p.svg")));
            const QByteArray svg = readAll(dir.filePath("p.svg"));
            QVERIFY(svg.contains("<svg"));
            QVERIFY(svg.contains("Bytes moved per memory level"));
        }
        QString error;
        QVERIFY(!panelexport::savePlot(plot, dir.filePath("p.bmpx"), &error));
        QVERIFY(error.contains("unknown plot format"));
        QVERIFY(!panelexport::savePlot(plot, QStringLiteral("/nonexistent-dir/p.png"), &error));
        QVERIFY(panelexport::saveModelCsv(panel.table(), dir.filePath("t.csv")));
        const QList<QByteArray> lines = readAll(dir.filePath("t.csv")).split('\n');
        QVERIFY(lines.first().startsWith("Metric,Unit,#"));
        QCOMPARE(lines.size(), panel.table()->rowCount() + 2);
    }
};

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"

// SPDX-License-Identifier: MIT
// Tables that lead somewhere (issue 24 items 4 and 6): a Stats row that names a launch or an
// interval shows it on the timeline (double-click, Enter, "Show in timeline"), through the shared
// SelectionModel; its timestamps read in the ruler's frame while CSV keeps the raw values; a
// click in the kernel ranking brings the launch into view; and pinned kernels get Δ and Δ%
// columns against the first pin, coloured by better / worse. Expected values come from the
// session itself (SessionReader) or the fixture's stored metrics, not from the panels.
#include "panelfixtures.h"

#include "core/analysis/sessionfilesource.h"
#include "core/store/sessionreader.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/metricbaselinemodel.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/statspanel.h"
#include "ui/panels/throughputpanel.h"
#include "ui/style/timeformat.h"

#include <QAction>
#include <QBrush>
#include <QFile>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ws;
using namespace ws::test;

namespace {

const char* const kDemo = WS_FIXTURES_DIR "/../../resources/demo/h200-gemm-relu.wscope";

QString sessionPath(const QString& name)
{
    return name == QLatin1String("demo") ? QString::fromUtf8(kDemo) : fixturePath(qPrintable(name));
}

// The raw (kRawRole) value of a column named `name` in a report row, found by header name.
qint64 rawOf(const StatsPanel& panel, int sourceRow, const char* name)
{
    const int c = panel.fullReport()->columnIndex(name);
    if (c < 0)
        return -1;
    return panel.model()->data(panel.model()->index(sourceRow, c), panelexport::kRawRole).toLongLong();
}

} // namespace

class TestTableLinks : public QObject {
    Q_OBJECT

    struct Open {
        explicit Open(const QString& path)
            : data(panelDataOf(path))
            , snapshot(snapshotOf(path))
            , session(SessionReader(path.toStdString()).readAll())
        {
        }
        std::shared_ptr<PanelData> data;
        std::shared_ptr<const SessionSnapshot> snapshot;
        SessionData session;
    };

    static bool computed(StatsPanel& panel, const QString& report)
    {
        panel.showReport(report);
        return waitUntil([&] { return !panel.isComputing() && panel.fullReport() && panel.currentReport() == report; });
    }

private slots:
    void initTestCase()
    {
        qRegisterMetaType<ws::EventSelection>();
        qRegisterMetaType<ws::TimeRange>();
    }

    void statsRowShowsItsInterval_data()
    {
        QTest::addColumn<QString>("session");
        QTest::addColumn<QString>("report");
        QTest::addColumn<QString>("how");
        for (const char* session : {"demo", "recorder/sessions/gemm_relu.wscope"}) {
            for (const char* report : {"cuda_kern_exec_trace", "gpu_idle_gaps"}) {
                for (const char* how : {"double-click", "enter", "context menu"})
                    QTest::addRow("%s %s %s", session, report, how) << session << report << how;
            }
        }
    }
    void statsRowShowsItsInterval()
    {
        QFETCH(QString, session);
        QFETCH(QString, report);
        QFETCH(QString, how);
        const Open s(sessionPath(session));
        SelectionModel selection;
        KernelFocus focus(&selection);
        StatsPanel panel(&focus);
        panel.resize(1200, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        focus.setData(s.data, s.snapshot);
        QVERIFY(computed(panel, report));
        QVERIFY2(panel.model()->rowCount() >= 2, "the report has rows to pick");
        selection.reset({s.data->origin, s.data->origin + 1000}); // somewhere else

        // The second-last row (not the first: the view must move to that row, not stay put).
        const int sourceRow = panel.model()->rowCount() - 2;
        const bool kernel = report == QLatin1String("cuda_kern_exec_trace");
        const qint64 start = rawOf(panel, sourceRow, kernel ? "Kernel Start" : "Start");
        const qint64 duration = rawOf(panel, sourceRow, kernel ? "Kernel Dur" : "Duration");
        QVERIFY(start > 0 && duration > 0);
        const qint64 end = start + duration;
        // The interval checked against the session's own records.
        if (kernel) {
            const auto k = std::find_if(s.session.kernels.begin(), s.session.kernels.end(),
                [&](const KernelRecord& r) { return r.start == start && r.end == end; });
            QVERIFY2(k != s.session.kernels.end(), "the row is a recorded launch");
        } else {
            const uint32_t device = static_cast<uint32_t>(rawOf(panel, sourceRow, "DevId"));
            for (const KernelRecord& r : s.session.kernels)
                QVERIFY2(r.deviceId != device || r.end <= start || r.start >= end, "no kernel runs in a gap");
            QVERIFY(std::any_of(s.session.kernels.begin(), s.session.kernels.end(), [&](const KernelRecord& r) {
                return r.end == start;
            }) || std::any_of(s.session.memcpys.begin(), s.session.memcpys.end(), [&](const MemcpyRecord& r) {
                return r.end == start;
            }) || std::any_of(s.session.memsets.begin(), s.session.memsets.end(), [&](const MemsetRecord& r) {
                return r.end == start;
            }));
        }

        QTableView* view = panel.view();
        const QModelIndex index = panel.proxy()->mapFromSource(panel.model()->index(sourceRow, 1));
        view->scrollTo(index);
        QCoreApplication::processEvents();
        if (how == QLatin1String("double-click")) {
            // A real double-click: a click, then the press the system reports as a double-click.
            const QPoint at = view->visualRect(index).center();
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
            QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
        } else if (how == QLatin1String("enter")) {
            view->setFocus();
            view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
            QTest::keyClick(view, Qt::Key_Return);
        } else {
            QMenu menu;
            panel.fillContextMenu(menu, index);
            QAction* show = nullptr;
            for (QAction* a : menu.actions()) {
                if (a->text() == QLatin1String("Show in timeline"))
                    show = a;
            }
            QVERIFY2(show, "the row's context menu offers Show in timeline");
            show->trigger();
        }

        const TimeRange v = selection.viewRange();
        QVERIFY2(v.begin <= start && end <= v.end,
            qPrintable(QStringLiteral("view %1..%2, row %3..%4").arg(v.begin).arg(v.end).arg(start).arg(end)));
        // Framed with a tenth of margin each side, as search frames a hit.
        QCOMPARE(v.begin, start - duration / 10);
        QCOMPARE(v.end, end + duration / 10);
        QVERIFY(selection.canGoBack()); // a jump, remembered for Back
        if (kernel) {
            const EventSelection e = selection.selectedEvent();
            QVERIFY(e.isValid());
            QCOMPARE(e.start, start);
            QCOMPARE(e.end, end);
        }
    }

    // A kernel summary row names a kernel: it shows the kernel's longest launch, found here by
    // brute force over the session's kernels with that name.
    void kernelSummaryRowShowsItsLongestLaunch()
    {
        const Open s(fixturePath("recorder/sessions/gemm_relu.wscope"));
        SelectionModel selection;
        KernelFocus focus(&selection);
        StatsPanel panel(&focus);
        focus.setData(s.data, s.snapshot);
        QVERIFY(computed(panel, QStringLiteral("cuda_gpu_kern_sum")));
        const int name = panel.fullReport()->columnIndex("Name");
        QVERIFY(panel.model()->rowCount() >= 2);
        for (int r = 0; r < panel.model()->rowCount(); ++r) {
            const QString kernel = panel.model()->data(panel.model()->index(r, name), panelexport::kRawRole).toString();
            const KernelRecord* longest = nullptr;
            for (const KernelRecord& k : s.session.kernels) {
                if (QString::fromStdString(s.session.str(k.demangledName)) == kernel
                    && (!longest || k.end - k.start > longest->end - longest->start))
                    longest = &k;
            }
            QVERIFY2(longest, qPrintable(kernel));
            QMenu menu;
            panel.fillContextMenu(menu, panel.proxy()->mapFromSource(panel.model()->index(r, 0)));
            QCOMPARE(menu.actions().size(), 1);
            menu.actions().front()->trigger();
            const TimeRange v = selection.viewRange();
            QVERIFY(v.begin <= longest->start && longest->end <= v.end);
            QCOMPARE(selection.selectedEvent().start, longest->start);
            QCOMPARE(selection.selectedEvent().end, longest->end);
        }
    }

    // Other summary rows name no single interval: no menu item, and activation leaves the view
    // alone.
    void summaryRowsOfferNoJump()
    {
        const Open s(fixturePath("recorder/sessions/gemm_relu.wscope"));
        SelectionModel selection;
        KernelFocus focus(&selection);
        StatsPanel panel(&focus);
        focus.setData(s.data, s.snapshot);
        QVERIFY(computed(panel, QStringLiteral("cuda_api_sum")));
        QVERIFY(panel.model()->rowCount() > 0);
        const TimeRange before = selection.viewRange();
        QMenu menu;
        const QModelIndex index = panel.proxy()->index(0, 0);
        panel.fillContextMenu(menu, index);
        QVERIFY(menu.isEmpty());
        QVERIFY(!panel.showInTimeline(index));
        QCOMPARE(selection.viewRange(), before);
    }

    void statsTimesReadInTheRulersFrame_data()
    {
        QTest::addColumn<QString>("session");
        QTest::addColumn<QString>("report");
        for (const char* session : {"demo", "recorder/sessions/torch_nvtx.wscope"}) {
            for (const char* report : {"cuda_kern_exec_trace", "gpu_idle_gaps"})
                QTest::addRow("%s %s", session, report) << session << report;
        }
    }
    void statsTimesReadInTheRulersFrame()
    {
        QFETCH(QString, session);
        QFETCH(QString, report);
        const QString path = sessionPath(session);
        const Open s(path);
        SelectionModel selection;
        KernelFocus focus(&selection);
        StatsPanel panel(&focus);
        focus.setData(s.data, s.snapshot);
        QVERIFY(computed(panel, report));
        // The session start as the reader sees it: the ruler's 0.
        const SessionReader reader(path.toStdString());
        const TimeNs origin = SessionFileSource(reader).timeSpan().begin;
        QCOMPARE(s.data->origin, origin);

        const ReportTable& table = *panel.fullReport();
        int checked = 0;
        for (int c = 0; c < static_cast<int>(table.columns.size()); ++c) {
            if (table.columns[static_cast<size_t>(c)].kind != ColumnKind::Timestamp)
                continue;
            QCOMPARE(panel.proxy()->headerData(c, Qt::Horizontal).toString(),
                QStringLiteral("%1 (from start)")
                    .arg(QString::fromStdString(table.columns[static_cast<size_t>(c)].name)));
            for (int r = 0; r < panel.proxy()->rowCount(); ++r) {
                const QModelIndex index = panel.proxy()->index(r, c);
                const QVariant raw = panel.proxy()->data(index, panelexport::kRawRole);
                if (raw.isNull()) {
                    QCOMPARE(panel.proxy()->data(index).toString(), QString());
                    continue;
                }
                QCOMPARE(panel.proxy()->data(index).toString(), formatTick(raw.toLongLong() - origin, 1));
                ++checked;
            }
        }
        QVERIFY(checked > 0);
        // The relative value reads back to the raw one: e.g. "1.234567 ms" is 1234567 ns.
        const int start = table.columnIndex(report == QLatin1String("gpu_idle_gaps") ? "Start" : "Kernel Start");
        const QString text = panel.proxy()->data(panel.proxy()->index(0, start)).toString();
        const QStringList parts = text.split(QLatin1Char(' '));
        QCOMPARE(parts.size(), 2);
        const double scale = parts[1] == "s"      ? 1e9
            : parts[1] == "ms"                    ? 1e6
            : parts[1] == QString::fromUtf8("µs") ? 1e3
                                                  : 1;
        const qint64 raw = panel.proxy()->data(panel.proxy()->index(0, start), panelexport::kRawRole).toLongLong();
        QCOMPARE(std::llround(parts[0].toDouble() * scale), raw - origin);

        // CSV export keeps the raw timestamps and nsys's headers.
        QTemporaryDir dir;
        const QString csv = dir.filePath("r.csv");
        QVERIFY(panel.exportCsv(csv));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QVERIFY(lines[0].contains(report == QLatin1String("gpu_idle_gaps") ? "Start (ns)" : "Kernel Start (ns)"));
        QVERIFY(lines[1].contains(QByteArray::number(raw)));
    }

    void rankingClickBringsTheLaunchIntoView_data()
    {
        QTest::addColumn<QString>("session");
        QTest::addColumn<int>("row");
        for (const char* session : {"demo", "metrics/gemm_relu.wscope"}) {
            QTest::addRow("%s first", session) << session << 0;
            QTest::addRow("%s second", session) << session << 1;
        }
    }
    void rankingClickBringsTheLaunchIntoView()
    {
        QFETCH(QString, session);
        QFETCH(int, row);
        const Open s(sessionPath(session));
        SelectionModel selection;
        KernelFocus focus(&selection);
        KernelRankingPanel ranking(&focus);
        ranking.resize(900, 500);
        ranking.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ranking));
        focus.setData(s.data, s.snapshot);
        QVERIFY(ranking.proxy()->rowCount() > row);
        const QModelIndex index = ranking.proxy()->index(row, 0);
        const int group = ranking.proxy()->data(index, KernelRankingModel::kGroupRole).toInt();
        const auto* launch = s.data->representative(static_cast<uint32_t>(group));
        QVERIFY(launch);
        // The view somewhere the launch is not: the session's last microsecond, 1 µs wide.
        const TimeNs last = std::max_element(
            s.session.kernels.begin(), s.session.kernels.end(), [](const KernelRecord& a, const KernelRecord& b) {
                return a.end < b.end;
            })->end;
        selection.reset({last + 1'000'000, last + 1'001'000});
        focus.clearPins();
        ranking.view()->selectionModel()->clearCurrentIndex();
        // Make the row not current, so the click changes the current row.
        QTest::mouseClick(ranking.view()->viewport(), Qt::LeftButton, {}, ranking.view()->visualRect(index).center());
        const TimeRange v = selection.viewRange();
        QVERIFY2(v.begin <= launch->start && launch->end <= v.end,
            qPrintable(QStringLiteral("view %1..%2, launch %3..%4")
                           .arg(v.begin)
                           .arg(v.end)
                           .arg(launch->start)
                           .arg(launch->end)));
        QCOMPARE(focus.current(), launch->id);
        // Clicking again with the launch in view leaves the zoom alone.
        const TimeRange wide {launch->start - 10'000'000, launch->end + 10'000'000};
        selection.setViewRange(wide);
        const QModelIndex other = ranking.proxy()->index(row == 0 ? 1 : 0, 0);
        QTest::mouseClick(ranking.view()->viewport(), Qt::LeftButton, {}, ranking.view()->visualRect(other).center());
        QTest::mouseClick(ranking.view()->viewport(), Qt::LeftButton, {}, ranking.view()->visualRect(index).center());
        QCOMPARE(focus.current(), launch->id);
        const TimeRange after = selection.viewRange();
        // The other kernel's launch may have scrolled the view; this launch is in it either way.
        QVERIFY(after.begin <= launch->start && launch->end <= after.end);
    }

    void pinsShowDifferencesAgainstTheFirstPin_data()
    {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("metric");
        QTest::addColumn<double>("divide");
        QTest::addColumn<int>("preference"); // which way is better, by hand: -1 lower, +1 higher
        QTest::newRow("duration") << "Duration"
                                  << "gpu__time_duration.sum" << 1000.0 << -1;
        QTest::newRow("sm throughput") << "Compute (SM) throughput"
                                       << "sm__throughput.avg.pct_of_peak_sustained_elapsed" << 1.0 << +1;
        QTest::newRow("dram throughput") << "DRAM throughput"
                                         << "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed" << 1.0 << +1;
        QTest::newRow("elapsed cycles") << "Elapsed cycles"
                                        << "gpc__cycles_elapsed.max" << 1.0 << -1;
        QTest::newRow("ipc (unknown direction)") << "Executed IPC elapsed"
                                                 << "sm__inst_executed.avg.per_cycle_elapsed" << 1.0 << 0;
    }
    void pinsShowDifferencesAgainstTheFirstPin()
    {
        QFETCH(QString, label);
        QFETCH(QString, metric);
        QFETCH(double, divide);
        QFETCH(int, preference);
        const Open s(fixturePath("metrics/gemm_relu.wscope"));
        SelectionModel selection;
        KernelFocus focus(&selection);
        ThroughputPanel panel(&focus);
        panel.resize(1366, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        focus.setData(s.data, s.snapshot);
        // Two pins (GEMM #3, ReLU #4) and the current GEMM #5: Δ against #3 for #4 and #5.
        focus.pin(3);
        focus.pin(4);
        focus.selectKernel(5);
        QCoreApplication::processEvents();
        MetricBaselineModel* m = panel.shownTable();
        // Metric, Unit, #3, #4, Δ #4, Δ% #4, #5, Δ #5, Δ% #5
        QCOMPARE(m->columnCount(), 9);
        QVERIFY(m->headerData(2, Qt::Horizontal).toString().startsWith("#3 "));
        QVERIFY(m->headerData(3, Qt::Horizontal).toString().startsWith("#4 "));
        QCOMPARE(m->headerData(4, Qt::Horizontal).toString(), QStringLiteral("Δ #4"));
        QCOMPARE(m->headerData(5, Qt::Horizontal).toString(), QStringLiteral("Δ% #4"));
        QVERIFY(m->headerData(6, Qt::Horizontal).toString().startsWith("#5 "));
        QCOMPARE(m->headerData(7, Qt::Horizontal).toString(), QStringLiteral("Δ #5"));
        QCOMPARE(m->headerData(8, Qt::Horizontal).toString(), QStringLiteral("Δ% #5"));

        const int row = panel.table()->rowOf(label);
        QVERIFY2(row >= 0, qPrintable(label));
        const auto valueOf = [&](qint64 id) {
            const auto v = s.data->profiled(id)->metrics.get(metric.toStdString());
            return v ? std::optional<double>(*v / divide) : std::nullopt;
        };
        const auto base = valueOf(3);
        QVERIFY(base);
        for (const auto& [id, column] : {std::pair<qint64, int> {4, 4}, std::pair<qint64, int> {5, 7}}) {
            const auto v = valueOf(id);
            QVERIFY(v);
            const double delta = *v - *base;
            const double pct = 100.0 * delta / std::fabs(*base);
            QCOMPARE(m->data(m->index(row, column), panelexport::kRawRole).toDouble(), delta);
            QCOMPARE(m->data(m->index(row, column + 1), panelexport::kRawRole).toDouble(), pct);
            const bool shownChange = std::fabs(pct) >= 0.05;
            QCOMPARE(m->data(m->index(row, column + 1)).toString(),
                shownChange
                    ? (pct > 0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 1) + QStringLiteral(" %")
                    : QStringLiteral("0.0 %"));
            // The value column beside it is the kernel's own value.
            QCOMPARE(m->data(m->index(row, column - 1), panelexport::kRawRole).toDouble(), *v);
            const QVariant background = m->data(m->index(row, column), Qt::BackgroundRole);
            if (preference == 0 || !shownChange) {
                QVERIFY(!background.isValid());
            } else {
                const bool better = (delta > 0) == (preference > 0);
                QCOMPARE(background.value<QBrush>().color(),
                    better ? MetricBaselineModel::betterColor() : MetricBaselineModel::worseColor());
                QCOMPARE(m->data(m->index(row, column + 1), Qt::BackgroundRole).value<QBrush>().color(),
                    background.value<QBrush>().color());
            }
        }
        // The known-difference marks stay on their own kernel's value.
        const MetricRow& r = panel.table()->rows()[static_cast<size_t>(row)];
        for (size_t k = 0; k < r.notes.size(); ++k) {
            const int column = m->valueColumn(static_cast<int>(k));
            QCOMPARE(m->data(m->index(row, column)).toString().startsWith(MetricTableModel::differenceMark()),
                !r.notes[k].isEmpty());
        }

        // All nine columns fit a 1366 px panel: the pins are in view.
        QTableView* view = panel.tableView();
        const int last = m->columnCount() - 1;
        const QWidget* page = view->parentWidget();
        const int visible = page->parentWidget()->width();
        QVERIFY2(view->columnViewportPosition(last) + view->columnWidth(last) <= visible,
            qPrintable(QStringLiteral("columns end at %1 of %2 px")
                           .arg(view->columnViewportPosition(last) + view->columnWidth(last))
                           .arg(visible)));

        // CSV: raw numbers under labelled Δ headers.
        QTemporaryDir dir;
        const QString csv = dir.filePath("t.csv");
        QVERIFY(panelexport::saveModelCsv(m, csv));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString header = QString::fromUtf8(f.readLine());
        QVERIFY2(
            header.contains(QStringLiteral("Δ #4")) && header.contains(QStringLiteral("Δ% #5")), qPrintable(header));

        // One kernel: no difference columns.
        focus.clearPins();
        QCOMPARE(m->columnCount(), 3);
    }
};

QTEST_MAIN(TestTableLinks)
#include "tst_tablelinks.moc"

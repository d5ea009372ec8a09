// SPDX-License-Identifier: MIT
// The investigation loop in the kernel views (issue 17): the collect actions in the context
// menus of the timeline, the ranking and the roofline (for the traced launch a profiled launch
// links to); a profile run's metrics shown on the traced launches of a multi-run session with
// where they come from, and "not profiled" for the others; the ranking's metric columns; and a
// session that gains a run reloading in place (view, scroll and selection kept, panels refilled).
#include "panelfixtures.h"

#include "core/metrics/metricnames.h"
#include "core/store/runinference.h"
#include "core/store/runrecipe.h"
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
#include "ui/panels/rooflinepanel.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/sourcepanel.h"
#include "ui/panels/throughputpanel.h"
#include "ui/session/kernelactions.h"
#include "ui/session/sessiondocument.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QFile>
#include <QHelpEvent>
#include <QLabel>
#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolTip>
#include <QtTest>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

using namespace ws;
using namespace ws::test;

namespace {

const char* const kThreeRuns = "multirun/h200-gemm-relu-3runs.wscope";
const char* const kGemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";

struct Expected {
    QString prefix;
    KernelCollection what;
    int64_t count;
};

// The three KernelActions items of `menu`, in order; fails the test when one is missing.
QList<QAction*> collectActions(const QMenu& menu)
{
    QList<QAction*> out;
    for (QAction* a : menu.actions()) {
        if (a->text().startsWith(QStringLiteral("Collect metrics for"))
            || a->text().startsWith(QStringLiteral("Sample stall reasons for")))
            out << a;
    }
    return out;
}

// The menu offers the three items for `kernelId`, enabled, and each one asks for its collection.
void checkCollectItems(QMenu& menu, KernelActions& actions, int64_t kernelId)
{
    const QList<QAction*> items = collectActions(menu);
    QCOMPARE(items.size(), 3);
    const Expected expected[] = {
        {QStringLiteral("Collect metrics for this launch"), KernelCollection::Metrics, 1},
        {QStringLiteral("Collect metrics for %1 launches").arg(KernelActions::kLaunchesPerBatch),
            KernelCollection::Metrics, KernelActions::kLaunchesPerBatch},
        {QStringLiteral("Sample stall reasons for this launch"), KernelCollection::StallSampling, 1},
    };
    QSignalSpy spy(&actions, &KernelActions::collectRequested);
    for (int i = 0; i < 3; ++i) {
        QVERIFY2(items[i]->text().startsWith(expected[i].prefix), qPrintable(items[i]->text()));
        QVERIFY(items[i]->isEnabled());
        items[i]->trigger();
        QCOMPARE(spy.count(), i + 1);
        const auto request = spy.at(i).at(0).value<KernelCollectionRequest>();
        QCOMPARE(request.kernelId, kernelId);
        QCOMPARE(request.what, expected[i].what);
        QCOMPARE(request.count, expected[i].count);
    }
}

// Disabled with the reason in the text when the program cannot be re-run.
void checkDisabled(QMenu& menu, const QString& reason)
{
    const QList<QAction*> items = collectActions(menu);
    QCOMPARE(items.size(), 3);
    for (QAction* a : items) {
        QVERIFY(!a->isEnabled());
        QVERIFY2(a->text().contains(reason), qPrintable(a->text()));
    }
}

struct Timeline {
    SelectionModel selection;
    TimelineRowModel rows;
    TimelineView view {&selection, &rows};

    explicit Timeline(std::shared_ptr<const SessionSnapshot> s, QSize size = {1400, 900})
    {
        rows.setSnapshot(s);
        view.resize(size);
        view.setSnapshot(s);
        selection.reset({s->begin(), s->end()});
        view.show();
    }
    bool waitFrame()
    {
        return waitUntil([&] { return view.isFrameCurrent(); }, 10000);
    }
    // The lane and index of a kernel launch on the timeline.
    std::pair<int, size_t> find(int64_t kernelId) const
    {
        const auto& lanes = view.snapshot()->model->lanes;
        const EventRef ref = EventRef::make(EventTable::Kernel, kernelId);
        for (size_t l = 0; l < lanes.size(); ++l) {
            const auto it = std::find(lanes[l].ref.begin(), lanes[l].ref.end(), ref);
            if (it != lanes[l].ref.end())
                return {static_cast<int>(l), static_cast<size_t>(it - lanes[l].ref.begin())};
        }
        return {-1, 0};
    }
    // Shows the launch alone across the view and returns a point on it.
    QPoint reveal(int64_t kernelId)
    {
        const auto [lane, index] = find(kernelId);
        if (lane < 0)
            return {};
        const TimelineLane& l = view.snapshot()->model->lanes[static_cast<size_t>(lane)];
        const TimeNs start = l.start[index], end = l.endAt(index);
        selection.setViewRange({start - (end - start) / 4, end + (end - start) / 4});
        view.scrollToLane(lane);
        if (!waitFrame())
            return {};
        const QRect r = view.laneRect(lane);
        return {
            view.eventArea().left() + int(std::floor(view.coordinates().timeToX((start + end) / 2))), r.center().y()};
    }
};

} // namespace

class TestKernelLoop : public QObject {
    Q_OBJECT

private slots:
    void timelineMenuCollectsTheTracedLaunch()
    {
        const auto snapshot = snapshotOf(fixturePath(kThreeRuns));
        QCOMPARE(snapshot->tracedLaunchOf(53), int64_t(3)); // the profile run's first GEMM
        Timeline t(snapshot);
        QVERIFY(t.waitFrame());

        // Without KernelActions the menu has no collect items.
        const QPoint traced = t.reveal(3);
        QVERIFY(!traced.isNull());
        QCOMPARE(t.view.kernelAt(traced), qint64(3));
        {
            QMenu menu;
            t.view.fillContextMenu(menu, traced);
            QVERIFY(!menu.isEmpty()); // the row's items
            QVERIFY(collectActions(menu).isEmpty());
        }
        KernelActions actions;
        t.view.setKernelActions(&actions);
        {
            QMenu menu;
            t.view.fillContextMenu(menu, traced);
            checkCollectItems(menu, actions, 3);
        }
        // The profiled launch on the profile run's row: the request names its traced launch.
        const QPoint profiled = t.reveal(53);
        QVERIFY(!profiled.isNull());
        QCOMPARE(t.view.kernelAt(profiled), qint64(53));
        // Its tooltip says for which traced launch it was replayed.
        QHelpEvent help(QEvent::ToolTip, profiled, t.view.mapToGlobal(profiled));
        QApplication::sendEvent(&t.view, &help);
        QVERIFY2(QToolTip::text().contains("replayed for traced launch #3"), qPrintable(QToolTip::text()));
        {
            QMenu menu;
            t.view.fillContextMenu(menu, profiled);
            checkCollectItems(menu, actions, 3);
        }
        // A launch that links to nothing is collected as itself.
        {
            QMenu menu;
            t.view.addKernelActions(menu, 15);
            checkCollectItems(menu, actions, 15);
        }
        // Off a kernel (the ruler): no collect items.
        {
            QMenu menu;
            t.view.fillContextMenu(menu, {t.view.eventArea().left() + 5, 5});
            QVERIFY(collectActions(menu).isEmpty());
        }
        actions.setUnavailableReason(QStringLiteral("imported trace: no program to run"));
        QMenu menu;
        t.view.fillContextMenu(menu, t.reveal(3));
        checkDisabled(menu, QStringLiteral("imported trace: no program to run"));
    }

    void rankingMenuCollectsTheRepresentativeLaunch()
    {
        const auto data = panelDataOf(fixturePath(kThreeRuns));
        SelectionModel selection;
        KernelFocus focus(&selection);
        KernelRankingPanel ranking(&focus);
        focus.setData(data, snapshotOf(fixturePath(kThreeRuns)));
        const int gemm = data->launches.groupIndex(kGemm);
        const QModelIndex row
            = ranking.proxy()->mapFromSource(ranking.model()->index(ranking.model()->rowOfGroup(gemm), 0));
        const int64_t representative = data->representative(static_cast<uint32_t>(gemm))->id;
        QVERIFY(data->profiled(representative)); // the longest profiled GEMM launch
        {
            QMenu menu;
            ranking.fillContextMenu(menu, row);
            QVERIFY(!menu.isEmpty());
            QVERIFY(collectActions(menu).isEmpty());
        }
        KernelActions actions;
        ranking.setKernelActions(&actions);
        {
            QMenu menu;
            ranking.fillContextMenu(menu, row);
            checkCollectItems(menu, actions, representative);
        }
        actions.setUnavailableReason(QStringLiteral("program not found: /gone/app"));
        QMenu menu;
        ranking.fillContextMenu(menu, row);
        checkDisabled(menu, QStringLiteral("program not found: /gone/app"));
    }

    void rooflineMenuCollectsThePointsLaunch()
    {
        const auto data = panelDataOf(fixturePath(kThreeRuns));
        SelectionModel selection;
        KernelFocus focus(&selection);
        RooflinePanel roofline(&focus);
        roofline.resize(900, 700);
        roofline.show();
        focus.setData(data, snapshotOf(fixturePath(kThreeRuns)));
        focus.selectKernel(3);
        QVERIFY(!roofline.points().empty());
        roofline.plot()->replot();
        const auto it = std::find_if(
            roofline.points().begin(), roofline.points().end(), [](const RooflinePoint& p) { return p.kernelId == 3; });
        QVERIFY(it != roofline.points().end());
        const QPointF pixel(
            roofline.plot()->xAxis->coordToPixel(it->intensity), roofline.plot()->yAxis->coordToPixel(it->flopsPerS));
        const int at = roofline.pointAt(pixel);
        QVERIFY(at >= 0);
        const int64_t id = roofline.points()[static_cast<size_t>(at)].kernelId; // a point on top of it may win
        QVERIFY(data->launches.find(id));                                       // a traced launch
        {
            QMenu menu;
            roofline.fillContextMenu(menu, pixel);
            QVERIFY(collectActions(menu).isEmpty());
        }
        KernelActions actions;
        roofline.setKernelActions(&actions);
        {
            QMenu menu;
            roofline.fillContextMenu(menu, pixel);
            checkCollectItems(menu, actions, id);
        }
        {
            QMenu menu; // far from every point
            roofline.fillContextMenu(menu, QPointF(2, 2));
            QVERIFY(collectActions(menu).isEmpty());
        }
        actions.setUnavailableReason(QStringLiteral("recorded by bob on gpu7"));
        QMenu menu;
        roofline.fillContextMenu(menu, pixel);
        checkDisabled(menu, QStringLiteral("recorded by bob on gpu7"));
    }

    void tracedLaunchShowsItsProfiledMetricsAndWhereFrom()
    {
        const auto data = panelDataOf(fixturePath(kThreeRuns));
        SelectionModel selection;
        KernelFocus focus(&selection);
        LaunchPanel launch(&focus);
        ThroughputPanel throughput(&focus);
        SchedulerPanel scheduler(&focus);
        MemoryPanel memory(&focus);
        RooflinePanel roofline(&focus);
        DiagnosisPanel diagnosis(&focus);
        SourcePanel source(&focus);
        for (QWidget* w :
            std::initializer_list<QWidget*> {&launch, &throughput, &scheduler, &memory, &roofline, &diagnosis, &source})
            w->show();
        focus.setData(data, snapshotOf(fixturePath(kThreeRuns)));

        // Traced GEMM #3: the profile run's launch #53 measured it (26 passes, cache control all,
        // nine sections), the PC-sampling run's #65 sampled it.
        focus.selectKernel(3);
        const QString from = QStringLiteral("etrics from run 2 (profile, 9 sections, 26 passes, cache control all), "
                                            "launch #53 of ws-example-gemm-relu");
        QCOMPARE(data->metricsProvenance(3), QStringLiteral("m") + from);
        for (DetailsPanel* p : std::initializer_list<DetailsPanel*> {&launch, &throughput, &scheduler, &memory}) {
            QVERIFY2(p->provenance()->isVisible(), qPrintable(p->objectName()));
            QVERIFY2(
                p->provenance()->text().startsWith(QStringLiteral("M") + from), qPrintable(p->provenance()->text()));
            QVERIFY(p->provenance()->text().contains("26 replay passes each; cache control all"));
            QVERIFY(!p->banner()->isVisible());
        }
        const auto* k = data->profiled(3);
        QVERIFY(k);
        const int sm = throughput.table()->rowOf("Compute (SM) throughput");
        QVERIFY(sm >= 0);
        QCOMPARE(throughput.table()->data(throughput.table()->index(sm, 2), panelexport::kRawRole).toDouble(),
            *k->metrics.get(metric::kSmThroughput));
        QVERIFY(roofline.noteLabel()->text().contains(QStringLiteral("#3: m") + from));
        QVERIFY(diagnosis.browser()->toPlainText().contains(QStringLiteral("m") + from));
        QVERIFY2(source.summaryLabel()->text().contains(
                     "samples from run 3 (pc-sampling, section SourceCounters), launch #65 of ws-example-gemm-relu"),
            qPrintable(source.summaryLabel()->text()));

        // Traced GEMM #15 is beyond the profile's 14 launches: not profiled, and how to get it.
        QVERIFY(!data->profiled(15));
        focus.selectKernel(15);
        const QString how = PanelData::notProfiledText();
        QVERIFY(how.contains("right-click the kernel → Collect metrics for this launch"));
        for (DetailsPanel* p : std::initializer_list<DetailsPanel*> {&launch, &throughput, &scheduler, &memory}) {
            QVERIFY(p->banner()->isVisible());
            QVERIFY2(p->banner()->text().contains(how), qPrintable(p->banner()->text()));
            QVERIFY2(p->banner()->text().contains(QStringLiteral("Launch #%1 of this kernel was profiled")
                                                      .arg(data->representative(data->launches.find(15)->group)->id)),
                qPrintable(p->banner()->text()));
            QVERIFY(!p->provenance()->isVisible());
        }
        QCOMPARE(throughput.table()->data(throughput.table()->index(sm, 2)).toString(), QStringLiteral("n/c"));
        QVERIFY(roofline.noteLabel()->text().contains(QStringLiteral("#15: ") + how));
        QVERIFY(diagnosis.browser()->toPlainText().contains(how));
        // Not sampled either: the Source panel shows the kernel's sampled launch (#3), saying so.
        QVERIFY2(source.summaryLabel()->text().contains(
                     QStringLiteral("This launch (15) was not sampled: these are the samples of launch 3 ")),
            qPrintable(source.summaryLabel()->text()));
        QVERIFY2(source.summaryLabel()->text().contains("launch #65 of ws-example-gemm-relu"),
            qPrintable(source.summaryLabel()->text()));

        // Both side by side: each column says where its numbers come from.
        focus.pin(3);
        QVERIFY(throughput.provenance()->isVisible());
        QVERIFY(throughput.provenance()->text().contains(QStringLiteral("#3 ")));
        QVERIFY(throughput.provenance()->text().contains(QStringLiteral("M") + from));
        QVERIFY(throughput.provenance()->text().contains(QStringLiteral("#15 ")));
        QVERIFY(throughput.provenance()->text().contains(how.mid(1))); // capitalised at the start of its line
    }

    void provenanceNamesTheCollectorsOptions()
    {
        // A run collected by "Collect metrics for this launch" stores its own arguments: the
        // line keeps the set and the cache control, not the kernel filter the launch id says.
        SessionData data = SessionReader(fixturePath(kThreeRuns).toStdString()).readAll();
        auto options = store::fromJsonObject(data.runs[1].optionsJson).value();
        options[kCollectorArgumentsOption]
            = "profile --set full --cache-control all --kernel-name 'regex:^_Z4gemmPKfS0_Pfi$' --launch-skip 2 "
              "--launch-count 1";
        options["profile_passes"] = "40";
        data.runs[1].optionsJson = store::toJsonObject(options);
        const auto panel = PanelData::fromSession(std::make_shared<const SessionData>(std::move(data)));
        QCOMPARE(panel->metricsProvenance(3),
            QStringLiteral("metrics from run 2 (profile, --set full --cache-control all, 40 passes, cache control "
                           "all), launch #53 of ws-example-gemm-relu"));
        QCOMPARE(panel->metricsProvenance(15), QString()); // not profiled
    }

    // The H200 loop (scripts/device/jobs/loop.sh): a trace, then "collect metrics" and "sample
    // stall reasons" for traced GEMM #9 through `warpscope-cli collect` (what the menu runs):
    // #9 carries the profile run's metrics and the PC-sampling run's samples; its neighbours
    // carry neither.
    void collectedLaunchOfTheH200Loop()
    {
        const auto data = panelDataOf(fixturePath("loop/loop.wscope"));
        QVERIFY(data);
        QVERIFY(data->profiled(9));
        QVERIFY(!data->profiled(7) && !data->profiled(11));
        const QString from = data->metricsProvenance(9);
        QVERIFY2(from.startsWith(QStringLiteral("metrics from run 2 (profile, --set full")), qPrintable(from));
        QVERIFY2(from.contains(QStringLiteral("launch #51 of ws-example-gemm-relu")), qPrintable(from));
        QVERIFY(data->sampledLaunch(9) >= 0);
        QCOMPARE(data->sampledLaunch(7), int64_t(-1));
        QVERIFY2(data->samplesProvenance(9).startsWith(QStringLiteral("samples from run 3 (pc-sampling")),
            qPrintable(data->samplesProvenance(9)));
    }

    // In a narrow dock the values stay visible: the metric names and units give way first.
    void narrowPanelKeepsTheValuesVisible_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("360 px") << 360;
        QTest::newRow("480 px") << 480;
        QTest::newRow("1200 px (nothing to narrow)") << 1200;
    }
    void narrowPanelKeepsTheValuesVisible()
    {
        QFETCH(int, width);
        const auto data = panelDataOf(fixturePath("loop/loop.wscope"));
        SelectionModel selection;
        KernelFocus focus(&selection);
        ThroughputPanel throughput(&focus);
        throughput.resize(width, 700);
        throughput.show();
        QVERIFY(QTest::qWaitForWindowExposed(&throughput));
        focus.setData(data, snapshotOf(fixturePath("loop/loop.wscope")));
        focus.selectKernel(9);
        QCoreApplication::processEvents();
        QTableView* table = throughput.tableView();
        const int last = table->model()->columnCount() - 1;
        QVERIFY(last >= 2);
        const QWidget* page = table->parentWidget();
        QVERIFY(page && page->parentWidget()); // the scroll area's viewport
        const int visible = page->parentWidget()->width();
        const int right = table->columnViewportPosition(last) + table->columnWidth(last) + 2 * table->frameWidth();
        QVERIFY2(
            right <= visible, qPrintable(QStringLiteral("values end at %1 px of %2 visible").arg(right).arg(visible)));
        // The metric names are never narrower than 120 px, and wide panels keep them whole.
        QVERIFY(table->columnWidth(0) >= 120);
        if (width >= 1200)
            QVERIFY(table->columnWidth(0) >= 200);
    }

    // PC sampling sampled the first GEMM launch (#3, through its link); another GEMM launch
    // shows those samples as the kernel's, said as such; a kernel never sampled shows none.
    void unsampledLaunchShowsItsKernelsSampledLaunch()
    {
        const auto data = panelDataOf(fixturePath(kThreeRuns));
        QVERIFY(data);
        QVERIFY(data->sampledLaunch(3) >= 0);
        QCOMPARE(data->sampledLaunch(5), int64_t(-1));
        QCOMPARE(data->sampledLaunchOfSameKernel(5), int64_t(3));
        QCOMPARE(data->sampledLaunch(4), int64_t(-1)); // relu_kernel
        QCOMPARE(data->sampledLaunchOfSameKernel(4), int64_t(-1));
        QCOMPARE(data->sampledLaunchOfSameKernel(424242), int64_t(-1));
    }

    void noTextSendsTheUserToTheCommandLine()
    {
        // The panels of a trace-only session say how to get metrics from inside the app.
        const auto data = panelDataOf(fixturePath("multirun/h200-gemm-relu-trace.wscope"));
        SelectionModel selection;
        KernelFocus focus(&selection);
        ThroughputPanel throughput(&focus);
        RooflinePanel roofline(&focus);
        DiagnosisPanel diagnosis(&focus);
        SourcePanel source(&focus);
        throughput.show();
        source.show();
        focus.setData(data, snapshotOf(fixturePath("multirun/h200-gemm-relu-trace.wscope")));
        QVERIFY(focus.current() >= 0);
        for (const QString& text : {throughput.banner()->text(), diagnosis.browser()->toPlainText()}) {
            QVERIFY2(text.contains(PanelData::notProfiledText()), qPrintable(text));
            QVERIFY(!text.contains("warpscope-cli profile"));
        }
        for (const QLabel* l : source.findChildren<QLabel*>()) {
            QVERIFY2(!l->text().contains("warpscope-cli profile"), qPrintable(l->text()));
        }
        QVERIFY(source.findChildren<QLabel*>().size() > 0);
        bool saysSample = false;
        for (const QLabel* l : source.findChildren<QLabel*>())
            saysSample = saysSample || l->text().contains(PanelData::notSampledText());
        QVERIFY(saysSample);
    }

    void rankingShowsTheKeyMetricsOfProfiledKernels()
    {
        const auto data = panelDataOf(fixturePath(kThreeRuns));
        SelectionModel selection;
        KernelFocus focus(&selection);
        KernelRankingPanel ranking(&focus);
        focus.setData(data, snapshotOf(fixturePath(kThreeRuns)));
        KernelRankingModel* model = ranking.model();
        QVERIFY(model->hasProfiledKernels());
        QVERIFY(!ranking.view()->isColumnHidden(KernelRankingModel::SmPct));

        // Per kernel name: the median over its profiled launches, durations in µs.
        const auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
        };
        int checked = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            const int group = model->data(model->index(r, 0), KernelRankingModel::kGroupRole).toInt();
            std::vector<double> sm, dram, occupancy, duration;
            for (const auto& k : data->metrics.kernels()) {
                const auto* l = data->launches.find(k.launch.id);
                if (!l || static_cast<int>(l->group) != group)
                    continue;
                sm.push_back(*k.metrics.get(metric::kSmThroughput));
                dram.push_back(*k.metrics.get(metric::kDramThroughput));
                occupancy.push_back(*k.metrics.get(metric::kAchievedOccupancy));
                duration.push_back(
                    toBaseUnit(*k.metrics.get(metric::kDuration), k.metrics.unit(metric::kDuration)) / 1e3);
            }
            QVERIFY(!sm.empty()); // every kernel of this program was profiled
            const auto raw
                = [&](int column) { return model->data(model->index(r, column), panelexport::kRawRole).toDouble(); };
            QCOMPARE(raw(KernelRankingModel::SmPct), median(sm));
            QCOMPARE(raw(KernelRankingModel::DramPct), median(dram));
            QCOMPARE(raw(KernelRankingModel::AchievedOccupancy), median(occupancy));
            QCOMPARE(raw(KernelRankingModel::ReplayDuration), median(duration));
            QVERIFY(model->data(model->index(r, KernelRankingModel::SmPct), Qt::ToolTipRole)
                        .toString()
                        .contains("profiled launch"));
            ++checked;
        }
        QCOMPARE(checked, 3);
        for (int c = KernelRankingModel::ReplayDuration; c < KernelRankingModel::ColumnCount; ++c) {
            const QString tip = model->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
            QVERIFY2(tip.startsWith(QString::fromLatin1(KernelRankingModel::metricOf(c))), qPrintable(tip));
            QVERIFY(tip.contains("median over the kernel's profiled launches"));
        }
        QVERIFY(model->headerData(KernelRankingModel::ReplayDuration, Qt::Horizontal).toString().contains("µs"));

        // A window after the 14 profiled launches: the GEMM row has no metrics there.
        const auto* last = data->launches.find(14);
        QVERIFY(last);
        selection.setTimeRange({last->end + 1, data->launches.find(50)->end});
        const int gemm = model->rowOfGroup(data->launches.groupIndex(kGemm));
        QVERIFY(gemm >= 0);
        QVERIFY(!model->data(model->index(gemm, KernelRankingModel::SmPct)).isValid());
        QVERIFY(model->data(model->index(gemm, KernelRankingModel::SmPct), Qt::ToolTipRole)
                    .toString()
                    .contains("not profiled"));
    }

    void traceOnlyRankingHidesTheMetricColumns()
    {
        const auto data = panelDataOf(fixturePath("multirun/h200-gemm-relu-trace.wscope"));
        SelectionModel selection;
        KernelFocus focus(&selection);
        KernelRankingPanel ranking(&focus);
        focus.setData(data, snapshotOf(fixturePath("multirun/h200-gemm-relu-trace.wscope")));
        QVERIFY(!ranking.model()->hasProfiledKernels());
        for (int c = KernelRankingModel::ReplayDuration; c < KernelRankingModel::ColumnCount; ++c) {
            QVERIFY(ranking.view()->isColumnHidden(c));
            for (int r = 0; r < ranking.model()->rowCount(); ++r)
                QVERIFY(!ranking.model()->data(ranking.model()->index(r, c)).isValid());
        }
        QVERIFY(!ranking.view()->isColumnHidden(KernelRankingModel::Share));
    }

    void appendedRunReloadsInPlace()
    {
        // A trace session open in the window; a profile run of the same program is appended to
        // the file (merged, written to a temporary file, renamed over it: what --append does)
        // and the document reloads it.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("loop.wscope"));
        const SessionData trace
            = SessionReader(fixturePath("recorder/sessions/gemm_relu.wscope").toStdString()).readAll();
        {
            SessionWriter w(path.toStdString());
            attachLaneCache(w);
            w.write(trace);
            w.commit();
        }
        SessionDocument document;
        SelectionModel selection;
        TimelineRowModel rows;
        TimelineView view(&selection, &rows);
        QWidget host;
        AnalysisPanels panels(&selection, &host);
        panels.setDocument(&document);
        // What the main window does on an open and on a reload.
        connect(&document, &SessionDocument::loaded, &view, [&](std::shared_ptr<const SessionSnapshot> s) {
            selection.reset({s->begin(), s->end()});
            rows.setSnapshot(s);
            view.setSnapshot(s);
        });
        connect(&document, &SessionDocument::reloaded, &view, [&](std::shared_ptr<const SessionSnapshot> s) {
            rows.setSnapshot(s);
            view.reloadSnapshot(s);
        });
        QSignalSpy loaded(&document, &SessionDocument::loaded);
        QSignalSpy reloaded(&document, &SessionDocument::reloaded);
        QSignalSpy ready(&document, &SessionDocument::panelDataReady);
        view.resize(1200, 260); // shorter than its rows: the scroll matters
        view.show();
        document.open(path);
        QVERIFY(waitUntil([&] { return ready.count() == 1; }));
        QVERIFY(!document.panelData()->hasMetrics());

        // The user picks the GEMM launch, zooms to it and scrolls.
        const auto before = document.panelData();
        const int gemm = before->launches.groupIndex(kGemm);
        QVERIFY(gemm >= 0);
        const int64_t kernel = before->launches.longestOf(static_cast<uint32_t>(gemm))->id;
        KernelFocus* focus = panels.focus();
        focus->selectKernel(kernel);
        QCOMPARE(focus->current(), kernel);
        const EventSelection picked = selection.selectedEvent();
        QVERIFY(picked.isValid());
        const TimeRange zoom {picked.start - 50'000, picked.end + 50'000};
        selection.setViewRange(zoom);
        view.scrollToLane(picked.lane);
        const int laneTop = view.laneRect(picked.lane).top();
        QVERIFY(laneTop > 0);
        QVERIFY(!panels.throughput()->banner()->isHidden()); // nothing measured yet
        // The window hands its collect actions to the ranking and the roofline in one call.
        KernelActions actions;
        panels.setKernelActions(&actions);
        {
            QMenu menu;
            panels.ranking()->fillContextMenu(
                menu, panels.ranking()->proxy()->mapFromSource(panels.ranking()->model()->index(0, 0)));
            QCOMPARE(collectActions(menu).size(), 3);
        }

        // Append the profile run.
        {
            const SessionData profile = SessionReader(fixturePath("metrics/gemm_relu.wscope").toStdString()).readAll();
            const QString temp = dir.filePath(QStringLiteral("loop.wscope.tmp"));
            SessionWriter w(temp.toStdString());
            attachLaneCache(w);
            w.write(mergeSessions(SessionReader(path.toStdString()).readAll(), profile));
            w.commit();
            QVERIFY(std::rename(temp.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0);
        }
        document.reload();
        QVERIFY(waitUntil([&] { return ready.count() == 2; }));
        QCOMPARE(loaded.count(), 1); // no new open: the view was not reset
        QCOMPARE(reloaded.count(), 1);

        // View, scroll and selection kept (the launch found again by its id), panels refilled.
        QCOMPARE(selection.viewRange(), zoom);
        const EventSelection again = selection.selectedEvent();
        QVERIFY(again.isValid());
        QCOMPARE(again.ref, picked.ref);
        QCOMPARE(again.start, picked.start);
        QVERIFY(again.lane != picked.lane); // the profile run's rows came before it
        QCOMPARE(view.laneRect(again.lane).top(), laneTop);
        const auto after = document.panelData();
        QVERIFY(after->hasMetrics());
        QCOMPARE(after->runs.size(), size_t(2));
        QCOMPARE(focus->current(), kernel);
        QVERIFY(after->profiled(kernel));
        QVERIFY(panels.throughput()->banner()->isHidden());
        QVERIFY2(panels.throughput()->provenance()->text().startsWith("Metrics from run 2 (profile"),
            qPrintable(panels.throughput()->provenance()->text()));
        const int sm = panels.throughput()->table()->rowOf("Compute (SM) throughput");
        QCOMPARE(panels.throughput()
                     ->table()
                     ->data(panels.throughput()->table()->index(sm, 2), panelexport::kRawRole)
                     .toDouble(),
            *after->profiled(kernel)->metrics.get(metric::kSmThroughput));

        // Reloading a file that is no longer a session leaves the loaded one as it was.
        QSignalSpy failed(&document, &SessionDocument::failed);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write("not a session");
        }
        document.reload();
        QVERIFY(waitUntil([&] { return failed.count() == 1; }));
        QVERIFY(failed.at(0).at(1).toString().size() > 0);
        QCOMPARE(document.panelData(), after);
        QCOMPARE(selection.viewRange(), zoom);
    }
};

QTEST_MAIN(TestKernelLoop)
#include "tst_kernelloop.moc"

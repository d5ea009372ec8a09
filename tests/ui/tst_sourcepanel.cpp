// SPDX-License-Identifier: MIT
// The Source panel on the H200 PC sampling fixture (tests/fixtures/source): both item models
// under QAbstractItemModelTester, the heat and stacked-bar roles against the stored samples,
// line <-> SASS highlighting, the hottest filter, the stall-reason link from the warp-state
// chart, and a rendering per kernel (WS_SCREENSHOT_DIR keeps the PNGs for docs/).
#include "../core/stallkernels.h"
#include "panelfixtures.h"
#include "pixelprobe.h"

#include "core/source/stallreasonname.h"
#include "ui/panels/analysispanels.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/sourcepanel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace ws;
using namespace ws::test;

namespace {

const char* const kFixture = "source/stalls-source.wscope";

} // namespace

class TestSourcePanel : public QObject {
    Q_OBJECT

    SessionData m_session;
    SourceTables m_tables;

    struct Open {
        SelectionModel selection;
        std::unique_ptr<QWidget> host = std::make_unique<QWidget>();
        std::unique_ptr<AnalysisPanels> panels;
        Open()
        {
            panels = std::make_unique<AnalysisPanels>(&selection, host.get());
            const QString path = fixturePath(kFixture);
            panels->setData(panelDataOf(path), snapshotOf(path));
        }
        SourcePanel* source() const { return panels->source(); }
    };

    int64_t kernelOf(const std::string& function) const
    {
        for (const auto& k : m_session.kernels)
            if (m_session.str(k.mangledName) == function)
                return k.id;
        return -1;
    }

private slots:
    void initTestCase()
    {
        const SessionReader reader(fixturePath(kFixture).toStdString());
        m_session = reader.readAll();
        m_tables = SourceTables::read(reader);
        QVERIFY(!m_tables.empty());
    }

    void multiRunSessionShowsTheLinkedSamples()
    {
        // Recorded on the H200 (docs/evidence/2026-12-02-multirun): a trace, a --set full profile
        // and PC sampling of the first GEMM launch of one program, merged into one session. The
        // traced GEMM #3 shows the samples of the PC-sampling run's launch #65 linked to it.
        SelectionModel selection;
        QWidget host;
        AnalysisPanels panels(&selection, &host);
        const QString path = fixturePath("multirun/h200-gemm-relu-3runs.wscope");
        const auto data = panelDataOf(path);
        panels.setData(data, snapshotOf(path));
        QCOMPARE(data->sampledLaunch(3), int64_t(65));
        QCOMPARE(data->sampledLaunch(4), int64_t(-1)); // the second GEMM was not sampled
        panels.focus()->selectKernel(3);
        SourcePanel* p = panels.source();
        QVERIFY(p->sassModel()->rowCount() > 0);
        QVERIFY2(p->summaryLabel()->text().contains(QStringLiteral("sampled in launch 65")),
            qPrintable(p->summaryLabel()->text()));
        panels.focus()->selectKernel(4);
        QCOMPARE(p->sassModel()->rowCount(), 0);
    }

    void modelsPassTheTester()
    {
        Open o;
        SourcePanel* p = o.source();
        new QAbstractItemModelTester(p->sassModel(), QAbstractItemModelTester::FailureReportingMode::QtTest, p);
        new QAbstractItemModelTester(p->lineModel(), QAbstractItemModelTester::FailureReportingMode::QtTest, p);
        for (const StallKernel& k : stallKernels()) {
            o.panels->focus()->selectKernel(kernelOf(k.function));
            QCOMPARE(p->kernelId(), kernelOf(k.function));
            QVERIFY(p->sassModel()->rowCount() > 0);
            QVERIFY(p->lineModel()->rowCount() > 0);
            p->setHottestOnly(5);
            QCOMPARE(p->sassModel()->rowCount(), std::min(5, static_cast<int>(p->view()->hottest(1000).size())));
            p->setHottestOnly(0);
            QCOMPARE(p->sassModel()->rowCount(), static_cast<int>(p->view()->sassRows().size()));
        }
    }

    // The Samples column and the bar role hold exactly what the session stores for the launch.
    void samplesMatchTheStoredCounters()
    {
        Open o;
        SourcePanel* p = o.source();
        for (const StallKernel& k : stallKernels()) {
            const int64_t id = kernelOf(k.function);
            o.panels->focus()->selectKernel(id);
            int64_t stored = 0;
            for (const auto& c : m_tables.counters) {
                if (c.kernelId == id && !StallReasonName::isNotIssued(m_session.str(c.counter)))
                    stored += c.value;
            }
            int64_t shown = 0;
            auto* m = p->sassModel();
            for (int r = 0; r < m->rowCount(); ++r) {
                const qlonglong total = m->index(r, SassTableModel::Samples).data(sourceroles::kTotal).toLongLong();
                qlonglong bars = 0;
                for (const QVariant& v :
                    m->index(r, SassTableModel::Reasons).data(sourceroles::kReasonSamples).toList())
                    bars += v.toLongLong();
                QCOMPARE(bars, total);
                shown += total;
            }
            QCOMPARE(shown, stored);
            QCOMPARE(p->view()->totalSamples(), stored);
            int64_t lines = 0;
            for (int r = 0; r < p->lineModel()->rowCount(); ++r)
                lines += p->lineModel()->index(r, SourceLineModel::Samples).data(sourceroles::kTotal).toLongLong();
            // Every sampled instruction of these kernels has a line (built with -lineinfo).
            QCOMPARE(lines, stored);
        }
    }

    void clickingALineHighlightsItsSass()
    {
        Open o;
        SourcePanel* p = o.source();
        const StallKernel& k = stallKernels().front();
        o.panels->focus()->selectKernel(kernelOf(k.function));
        const auto f = examine(m_session, m_tables, k);
        QVERIFY(f && f->expectedLine > 0);
        // The panel opens on the hottest line: the HOT marker of the pointer chase.
        const int line = f->expectedLine;
        QVERIFY(p->lineModel()->index(line - 1, 0).data(sourceroles::kHighlighted).toBool());
        p->sourceTable()->clicked(p->lineModel()->index(line - 1, SourceLineModel::Source));
        int lit = 0;
        for (int r = 0; r < p->sassModel()->rowCount(); ++r) {
            const bool h = p->sassModel()->index(r, 0).data(sourceroles::kHighlighted).toBool();
            const auto& row = p->view()->sassRows()[p->sassModel()->sassRow(r)];
            QCOMPARE(h, row.line == line);
            lit += h;
        }
        QVERIFY(lit > 0);
        // And back: clicking a SASS row of another line highlights that line only.
        int other = -1;
        for (int r = 0; r < p->sassModel()->rowCount() && other < 0; ++r) {
            const auto& row = p->view()->sassRows()[p->sassModel()->sassRow(r)];
            if (row.line > 0 && row.line != line)
                other = r;
        }
        QVERIFY(other >= 0);
        const int otherLine = p->view()->sassRows()[p->sassModel()->sassRow(other)].line;
        p->sassTable()->clicked(p->sassModel()->index(other, SassTableModel::Instruction));
        for (int r = 0; r < p->lineModel()->rowCount(); ++r)
            QCOMPARE(p->lineModel()->index(r, 0).data(sourceroles::kHighlighted).toBool(), r + 1 == otherLine);
    }

    void stallReasonHighlightsWhereItDominates()
    {
        Open o;
        SourcePanel* p = o.source();
        for (const StallKernel& k : stallKernels()) {
            o.panels->focus()->selectKernel(kernelOf(k.function));
            const auto f = examine(m_session, m_tables, k);
            QVERIFY(f.has_value());
            p->setStallReason(QString::fromStdString(f->dominant));
            QCOMPARE(p->reasonBox()->currentIndex(), 1); // the dominant reason is listed first
            QVERIFY(p->lineModel()->index(f->line - 1, 0).data(sourceroles::kHighlighted).toBool());
            p->setStallReason(QString());
            QCOMPARE(p->reasonBox()->currentIndex(), 0);
            QVERIFY(!p->lineModel()->index(f->line - 1, 0).data(sourceroles::kHighlighted).toBool());
        }
    }

    void choosingAReasonInThePanelIsSignalled()
    {
        Open o;
        SourcePanel* p = o.source();
        o.panels->focus()->selectKernel(kernelOf(stallKernels().front().function));
        QSignalSpy spy(p, &SourcePanel::stallReasonChosen);
        p->reasonBox()->activated(1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("long_scoreboard"));
    }

    // A click on a bar of the warp-state chart (Scheduler and Warp States) picks that reason in the
    // Source panel, which highlights where it dominates. The session gets ncu's WarpStateStats of
    // the same three kernels on the same H200 (tests/fixtures/source/ncu-raw.csv) so the chart has
    // bars: a SourceCounters run alone collects no WarpStateStats.
    void warpStateBarPicksTheReason()
    {
        auto session = std::make_shared<SessionData>(m_session);
        session->sassFunctions = m_tables.functions;
        session->sassInstructions = m_tables.instructions;
        session->sourceCounters = m_tables.counters;
        session->sourceFiles = m_tables.files;
        QFile csv(fixturePath("source/ncu-raw.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().split('\n');
        // ncu quotes every field and puts thousands separators inside quotes: split on '","'.
        auto quoted = [](const QByteArray& line) {
            QString t = QString::fromUtf8(line.trimmed());
            t.chop(1);
            return t.mid(1).split(QStringLiteral("\",\""));
        };
        const QStringList header = quoted(lines[0]);
        const int nameColumn = header.indexOf(QStringLiteral("Kernel Name"));
        QVERIFY(nameColumn >= 0);
        std::map<QString, uint32_t> metricId;
        for (int c = 0; c < header.size(); ++c) {
            if (header[c].startsWith("smsp__average_warps_issue_stalled_")
                && header[c].endsWith("_per_issue_active.ratio")) {
                MetricDef d;
                d.id = static_cast<uint32_t>(session->metricDefs.size() + 1000);
                d.name = header[c].toStdString();
                d.section = "WarpStateStats";
                session->metricDefs.push_back(d);
                metricId[header[c]] = d.id;
            }
        }
        int added = 0;
        for (int l = 2; l < lines.size(); ++l) {
            if (lines[l].trimmed().isEmpty())
                continue;
            const QStringList row = quoted(lines[l]);
            const QString base = row[nameColumn].section('(', 0, 0);
            for (const auto& k : session->kernels) {
                if (QString::fromStdString(session->str(k.shortName)) != base)
                    continue;
                for (const auto& [name, id] : metricId) {
                    const QString v = row[header.indexOf(name)];
                    session->kernelMetrics.push_back({k.id, id, QString(v).remove(',').toDouble()});
                    ++added;
                }
            }
        }
        QCOMPARE(added, 3 * static_cast<int>(metricId.size()));

        SelectionModel selection;
        QWidget host;
        AnalysisPanels panels(&selection, &host);
        panels.setData(PanelData::fromSession(session), nullptr);
        SourcePanel* source = panels.source();
        SchedulerPanel* scheduler = panels.scheduler();
        scheduler->setWindowFlag(Qt::Window, true);
        scheduler->resize(1200, 1400);
        scheduler->show();
        QVERIFY(QTest::qWaitForWindowExposed(scheduler));
        for (const StallKernel& k : stallKernels()) {
            // The details panels update synchronously on the selection: no wait.
            panels.focus()->selectKernel(kernelOf(k.function));
            const auto order = scheduler->stallOrder();
            QVERIFY(!order.empty());
            QCOMPARE(order.front(), k.reasons.front()); // ncu agrees on the dominant reason
            QCustomPlot* plot = scheduler->stallPlot();
            plot->replot();
            QCPBars* bars = nullptr;
            for (int i = 0; i < plot->plottableCount() && !bars; ++i)
                bars = qobject_cast<QCPBars*>(plot->plottable(i));
            QVERIFY(bars);
            // Click the middle of the first bar (the dominant reason).
            const auto first = bars->data()->at(0);
            QCPAxis* key = bars->keyAxis();
            QCPAxis* value = bars->valueAxis();
            const double kp = key->coordToPixel(first->key);
            const double vp = value->coordToPixel(first->value / 2);
            const QPoint at
                = key->orientation() == Qt::Horizontal ? QPoint(int(kp), int(vp)) : QPoint(int(vp), int(kp));
            source->setStallReason(QString());
            QTest::mouseClick(plot, Qt::LeftButton, {}, at);
            const int reason = source->view()->reasonIndex(k.reasons.front());
            QVERIFY(reason >= 0);
            QCOMPARE(source->reasonBox()->currentIndex(), reason + 1);
            const auto f = examine(m_session, m_tables, k);
            QVERIFY(source->lineModel()->index(f->expectedLine - 1, 0).data(sourceroles::kHighlighted).toBool());
        }
    }

    void sessionWithoutSourceCountersSaysHow()
    {
        SelectionModel selection;
        QWidget host;
        AnalysisPanels panels(&selection, &host);
        const QString path = fixturePath("metrics/copy.wscope");
        if (!QFile::exists(path))
            QSKIP("metrics fixture missing");
        panels.setData(panelDataOf(path), snapshotOf(path));
        QVERIFY(panels.source()->view() == nullptr || panels.source()->view()->empty());
        QCOMPARE(panels.source()->sassModel()->rowCount(), 0);
    }

    void renders()
    {
        Open o;
        SourcePanel* p = o.source();
        const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR");
        p->setWindowFlag(Qt::Window, true);
        p->resize(1500, 820);
        p->show();
        QVERIFY(QTest::qWaitForWindowExposed(p));
        for (const StallKernel& k : stallKernels()) {
            o.panels->focus()->selectKernel(kernelOf(k.function));
            // Pending layout and resize events, delivered now (grab() paints synchronously).
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents();
            const QImage image = p->grab().toImage();
            // Ink where the panel drew its tables, labels and plots (pixelprobe.h).
            const ws::test::ProbeResult probes = ws::test::probeRendering(p, image);
            QVERIFY2(probes.probes >= 3, qPrintable(QStringLiteral("only %1 probe(s)").arg(probes.probes)));
            QVERIFY2(probes.blank.isEmpty(), qPrintable(QStringLiteral("blank at ") + probes.blank.join("; ")));
            if (!dir.isEmpty()) {
                // "_Z12chase_kernelPKjPji" -> source-chase_kernel.png
                std::string name = k.function.substr(2);
                name.erase(0, name.find_first_not_of("0123456789"));
                name = name.substr(0, name.find("kernel") + 6);
                QVERIFY(image.save(dir + QStringLiteral("/source-%1.png").arg(QString::fromStdString(name))));
            }
        }
    }
};

QTEST_MAIN(TestSourcePanel)
#include "tst_sourcepanel.moc"

// SPDX-License-Identifier: MIT
// The Source panel on the H200 PC sampling fixture (tests/fixtures/source): both item models
// under QAbstractItemModelTester, the heat and stacked-bar roles against the stored samples,
// line <-> SASS highlighting, the hottest filter, the stall-reason link from the warp-state
// chart, and a rendering per kernel (WS_SCREENSHOT_DIR keeps the PNGs for docs/).
#include "../core/stallkernels.h"
#include "panelfixtures.h"

#include "panels/analysispanels.h"
#include "panels/schedulerpanel.h"
#include "panels/sourcepanel.h"
#include "source/stallreasonname.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

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
            panels->setData(PanelData::load(path), snapshotOf(path));
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

    void sessionWithoutSourceCountersSaysHow()
    {
        SelectionModel selection;
        QWidget host;
        AnalysisPanels panels(&selection, &host);
        const QString path = fixturePath("metrics/copy.wscope");
        if (!QFile::exists(path))
            QSKIP("metrics fixture missing");
        panels.setData(PanelData::load(path), snapshotOf(path));
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
            QTest::qWait(50);
            const QImage image = p->grab().toImage();
            QSet<QRgb> colours;
            for (int y = 0; y < image.height(); y += 3)
                for (int x = 0; x < image.width(); x += 3)
                    colours.insert(image.pixel(x, y));
            QVERIFY2(colours.size() > 40, qPrintable(QStringLiteral("%1 colours").arg(colours.size())));
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

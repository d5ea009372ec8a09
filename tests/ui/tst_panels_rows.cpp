// SPDX-License-Identifier: MIT
// Golden comparison of the four details tables (Launch & Occupancy, Throughput, Scheduler,
// Memory) on the committed fixtures: every row's label, unit, tooltip and per-kernel text and
// value, for every launch of every session, against tests/ui/panel-rows.golden. The rows come
// from the section files (resources/sections, `panel` blocks): an edit there that changes what
// a user sees shows up here as a diff. WS_UPDATE_GOLDEN=1 rewrites the golden file.
#include "panelfixtures.h"

#include "ui/panels/launchpanel.h"
#include "ui/panels/memorypanel.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/sectionrows.h"
#include "ui/panels/throughputpanel.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;
using namespace ws::test;

namespace {

const QString kGolden = QStringLiteral(WS_FIXTURES_DIR "/../ui/panel-rows.golden");

// Tooltips do not depend on the kernel: each (panel, label) tooltip is written once per session.
QString dumpTable(const DetailsPanel& panel, QSet<QString>& tipsSeen)
{
    const MetricTableModel* t = panel.table();
    QString out;
    for (int r = 0; r < t->rowCount(); ++r) {
        const MetricRow& row = t->rows()[static_cast<size_t>(r)];
        if (row.heading) {
            out += QStringLiteral("  == %1\n").arg(row.label);
            continue;
        }
        out += QStringLiteral("  %1 [%2]").arg(row.label, row.unit);
        for (int c = 2; c < t->columnCount(); ++c) {
            const QModelIndex i = t->index(r, c);
            const QVariant raw = t->data(i, panelexport::kRawRole);
            out += QStringLiteral(" | %1").arg(t->data(i).toString());
            if (raw.typeId() == QMetaType::Double)
                out += QStringLiteral(" (%1)").arg(raw.toDouble(), 0, 'g', 10);
        }
        out += QLatin1Char('\n');
        if (const QString key = panel.objectName() + QLatin1Char('/') + row.label; !tipsSeen.contains(key)) {
            tipsSeen.insert(key);
            out += QStringLiteral("    tip: %1\n")
                       .arg(QString(row.tip).replace(QLatin1Char('\n'), QStringLiteral(" / ")));
        }
    }
    return out;
}

// Puts the default section files back when a test that replaced them ends, passed or not.
struct DefaultSectionsAtExit {
    ~DefaultSectionsAtExit()
    {
        qunsetenv("WS_SECTIONS_DIR");
        PanelSections::set(nullptr);
        PanelSections::setKnownDifferences(nullptr);
    }
};

} // namespace

class TestPanelsRows : public QObject {
    Q_OBJECT

private slots:
    void rowsMatchTheGolden()
    {
        // The golden holds what the section files make of the fixtures; the known-difference marks
        // come from the fidelity suite's latest run and are tested in tst_knowndifferencepanel.
        DefaultSectionsAtExit restore;
        PanelSections::setKnownDifferences(std::make_shared<const KnownDifferences>());
        QString dump;
        for (const char* rel : {"metrics/gemm_relu.wscope", "metrics/chase.wscope", "metrics/copy.wscope",
                 "metrics/torch_softmax.wscope", "recorder/sessions/gemm_relu.wscope"}) {
            const QString path = fixturePath(rel);
            SelectionModel selection;
            KernelFocus focus(&selection);
            LaunchPanel launch(&focus);
            ThroughputPanel throughput(&focus);
            SchedulerPanel scheduler(&focus);
            MemoryPanel memory(&focus);
            const auto data = panelDataOf(path);
            focus.setData(data, snapshotOf(path));
            QSet<QString> tipsSeen;
            // Every launch of the profiles; the trace's launches are alike (no metrics), a few do.
            const bool trace = QLatin1String(rel).startsWith(QLatin1String("recorder/"));
            size_t n = 0;
            for (const auto& l : data->launches.launches()) {
                if (trace && ++n > 6)
                    break;
                focus.selectKernel(l.id);
                for (const DetailsPanel* p :
                    std::initializer_list<const DetailsPanel*> {&launch, &throughput, &scheduler, &memory}) {
                    dump += QStringLiteral("%1 #%2 %3\n").arg(QLatin1String(rel)).arg(l.id).arg(p->objectName());
                    dump += dumpTable(*p, tipsSeen);
                }
            }
        }
        if (qEnvironmentVariableIsSet("WS_UPDATE_GOLDEN")) {
            QFile f(kGolden);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(dump.toUtf8());
            return;
        }
        QFile f(kGolden);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(kGolden));
        const QStringList expected = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
        const QStringList actual = dump.split(QLatin1Char('\n'));
        for (int i = 0; i < std::min(expected.size(), actual.size()); ++i)
            QVERIFY2(expected[i] == actual[i],
                qPrintable(
                    QStringLiteral("line %1:\n  golden: %2\n  now:    %3").arg(i + 1).arg(expected[i], actual[i])));
        QCOMPARE(actual.size(), expected.size());
    }

    // A line added to a section file (here, a copy of the shipped folder) is a panel row, with
    // its label, unit, digits and value, without a code change; so is a new block.
    void newSectionLinesAreRows()
    {
        QTemporaryDir dir;
        const QDir shipped(QStringLiteral(WS_RESOURCES_DIR "/sections"));
        for (const QString& f : shipped.entryList({QStringLiteral("*.section")}, QDir::Files))
            QVERIFY(QFile::copy(shipped.filePath(f), dir.filePath(f)));
        {
            QFile mwa(dir.filePath("memoryworkloadanalysis.section"));
            QVERIFY(mwa.open(QIODevice::Append));
            // The file ends in the "Caches and access pattern" block: these rows join it.
            mwa.write("metric lts__t_sector_op_read_hit_rate.pct | L2 load hit rate | unit=% | digits=2\n"
                      "derived derived__dram_read_share | DRAM read share | 100 * dram__bytes_read.sum / "
                      "dram__bytes.sum | unit=% of DRAM bytes | digits=3\n");
        }
        {
            QFile sol(dir.filePath("speedoflight.section"));
            QVERIFY(sol.open(QIODevice::Append));
            sol.write("panel throughput | Clocks\n"
                      "metric dram__cycles_elapsed.avg.per_second | DRAM frequency | unit=MHz | divide=1e6\n");
        }
        const DefaultSectionsAtExit restore;
        PanelSections::set(
            std::make_shared<const SectionCatalog>(SectionCatalog::loadDirectory(dir.path().toStdString())));
        // Rows as the section lines render them, without the known-difference marks.
        PanelSections::setKnownDifferences(std::make_shared<const KnownDifferences>());
        const QString path = fixturePath("metrics/gemm_relu.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        MemoryPanel memory(&focus);
        ThroughputPanel throughput(&focus);
        focus.setData(panelDataOf(path), snapshotOf(path));
        focus.selectKernel(3);
        const KernelMetrics& m = focus.data()->profiled(3)->metrics;
        const MetricTableModel* t = memory.table();
        const int hit = t->rowOf(QStringLiteral("L2 load hit rate"));
        QVERIFY(hit > t->rowOf(QStringLiteral("Shared store bank conflicts")));
        QCOMPARE(t->data(t->index(hit, 1)).toString(), QStringLiteral("%"));
        QCOMPARE(
            t->data(t->index(hit, 2), panelexport::kRawRole).toDouble(), *m.get("lts__t_sector_op_read_hit_rate.pct"));
        QCOMPARE(
            t->data(t->index(hit, 2)).toString(), panelformat::number(*m.get("lts__t_sector_op_read_hit_rate.pct"), 2));
        const int share = t->rowOf(QStringLiteral("DRAM read share"));
        QCOMPARE(share, hit + 1);
        QCOMPARE(t->data(t->index(share, 2), panelexport::kRawRole).toDouble(),
            100 * *m.get("dram__bytes_read.sum") / *m.get("dram__bytes.sum"));
        QVERIFY(t->data(t->index(share, 0), Qt::ToolTipRole).toString().contains("dram__bytes_read.sum"));
        const MetricTableModel* tt = throughput.table();
        const int clocks = tt->rowOf(QStringLiteral("Clocks"));
        // SpeedOfLight's second block: after its first, before ComputeWorkloadAnalysis's (order 20).
        QVERIFY(clocks > tt->rowOf(QStringLiteral("SM frequency")));
        QVERIFY(clocks < tt->rowOf(QStringLiteral("Compute workload")));
        QCOMPARE(tt->rowOf(QStringLiteral("DRAM frequency")), clocks + 1);
        QCOMPARE(tt->data(tt->index(clocks + 1, 2), panelexport::kRawRole).toDouble(),
            toBaseUnit(*m.get("dram__cycles_elapsed.avg.per_second"), m.unit("dram__cycles_elapsed.avg.per_second"))
                / 1e6);
    }

    // A broken section file: the panel says which file and line, and shows no rows.
    void brokenSectionFileIsNamed()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("bad.section"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("section Bad\npanel memory | Bytes\nmetric dram__bytes.sum | DRAM | divide=0\n");
        f.close();
        const DefaultSectionsAtExit restore;
        qputenv("WS_SECTIONS_DIR", dir.path().toUtf8());
        PanelSections::set(nullptr); // read the default folder again
        SelectionModel selection;
        KernelFocus focus(&selection);
        MemoryPanel memory(&focus);
        const QString path = fixturePath("metrics/gemm_relu.wscope");
        focus.setData(panelDataOf(path), snapshotOf(path));
        focus.selectKernel(3);
        QCOMPARE(memory.table()->rowCount(), 1);
        const QString text = memory.table()->rows().front().label;
        QVERIFY2(text.contains(dir.filePath("bad.section") + ":3:") && text.contains("'divide'"), qPrintable(text));
        qunsetenv("WS_SECTIONS_DIR");
        PanelSections::set(nullptr);
        QVERIFY(PanelSections::catalog()); // the shipped files again
    }
};

QTEST_MAIN(TestPanelsRows)
#include "tst_panels_rows.moc"

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
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/throughputpanel.h"

#include <QFile>
#include <QtTest>

using namespace ws;
using namespace ws::test;

namespace {

const QString kGolden = QStringLiteral(WS_FIXTURES_DIR "/../ui/panel-rows.golden");

QString dumpTable(const DetailsPanel& panel)
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
        out += QStringLiteral("\n    tip: %1\n")
                   .arg(QString(row.tip).replace(QLatin1Char('\n'), QStringLiteral(" / ")));
    }
    return out;
}

} // namespace

class TestPanelsRows : public QObject {
    Q_OBJECT

private slots:
    void rowsMatchTheGolden()
    {
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
            const auto data = PanelData::load(path);
            focus.setData(data, snapshotOf(path));
            for (const auto& l : data->launches.launches()) {
                focus.selectKernel(l.id);
                for (const DetailsPanel* p :
                    std::initializer_list<const DetailsPanel*> {&launch, &throughput, &scheduler, &memory}) {
                    dump += QStringLiteral("%1 #%2 %3\n").arg(QLatin1String(rel)).arg(l.id).arg(p->objectName());
                    dump += dumpTable(*p);
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
};

QTEST_MAIN(TestPanelsRows)
#include "tst_panels_rows.moc"

// SPDX-License-Identifier: MIT
// Legend: per-name totals (whole session and inside the time filter) against sums by hand,
// the async model under QAbstractItemModelTester, and stable colours by name.
#include "settle.h"
#include "ui/style/colorscheme.h"
#include "ui/timeline/legendmodel.h"
#include "uifixtures.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace ws;

class TestLegendModel : public QObject {
    Q_OBJECT

private slots:
    void totalsWholeSession()
    {
        const auto s = test::smallSession();
        const auto entries = LegendModel::compute(*s, {});
        QCOMPARE(entries.size(), size_t(8));
        // step 95 us, then cudaStreamSynchronize 70 us, backward 55 us, forward 40 us...
        QCOMPARE(s->qstr(entries[0].name), QStringLiteral("step"));
        QCOMPARE(entries[0].total, TimeNs(95'000));
        QCOMPARE(s->qstr(entries[1].name), QStringLiteral("cudaStreamSynchronize"));
        const auto launch = std::find_if(entries.begin(), entries.end(),
            [&](const auto& e) { return s->qstr(e.name) == QStringLiteral("cudaLaunchKernel"); });
        QVERIFY(launch != entries.end());
        QCOMPARE(launch->count, qint64(2));
        QCOMPARE(launch->total, TimeNs(9'000));
    }

    void totalsInsideTheFilter()
    {
        const auto s = test::smallSession();
        constexpr TimeNs t0 = 1'000'000;
        // [45 us, 60 us): step, sync, backward, relu overlap it; gemm and the copy do not.
        const auto entries = LegendModel::compute(*s, {t0 + 45'000, t0 + 60'000});
        QStringList names;
        for (const auto& e : entries)
            names << s->qstr(e.name);
        names.sort();
        QCOMPARE(names,
            (QStringList {QStringLiteral("backward"), QStringLiteral("cudaStreamSynchronize"),
                QStringLiteral("relu_kernel"), QStringLiteral("step")}));
    }

    void modelFollowsSnapshotAndRange()
    {
        LegendModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy updated(&m, &LegendModel::updated);
        const auto s = test::smallSession();
        m.setSnapshot(s);
        QVERIFY(updated.wait(5000));
        QCOMPARE(m.rowCount(), 8);
        QCOMPARE(m.index(0, LegendModel::NameColumn).data().toString(), QStringLiteral("step"));
        QCOMPARE(m.index(0, LegendModel::TotalColumn).data().toString(), QStringLiteral("95.00 µs"));
        QCOMPARE(m.index(0, LegendModel::NameColumn).data(Qt::DecorationRole).value<QColor>().rgb(),
            ColorScheme::forName("step"));
        m.setTimeRange({1'045'000, 1'060'000});
        QVERIFY(updated.wait(5000));
        QCOMPARE(m.rowCount(), 4);
        m.setSnapshot(nullptr);
        QCOMPARE(m.rowCount(), 0);
    }

    // Ranges set faster than the sums finish: only the newest range's sums arrive.
    void newestRangeWins()
    {
        LegendModel m;
        QSignalSpy updated(&m, &LegendModel::updated);
        m.setSnapshot(test::smallSession());
        m.setTimeRange({1'000'000, 1'200'000});
        m.setTimeRange({1'045'000, 1'060'000});
        QVERIFY(updated.wait(5000));
        QVERIFY(ws::test::settle({{"legend", 1}}));
        QCOMPARE(updated.count(), 1);
        QCOMPARE(m.rowCount(), 4);
    }

    void coloursAreStableAndReadable()
    {
        QCOMPARE(ColorScheme::forName("gemm_kernel"), ColorScheme::forName(std::string("gemm_") + "kernel"));
        QVERIFY(ColorScheme::forName("gemm_kernel") != ColorScheme::forName("relu_kernel"));
        // Text colour follows the fill's lightness.
        QCOMPARE(ColorScheme::textOn(qRgb(250, 250, 200)), qRgb(20, 20, 20));
        QCOMPARE(ColorScheme::textOn(qRgb(20, 20, 90)), qRgb(250, 250, 250));
        // Palette-safe: every hashed colour keeps mid lightness.
        for (const char* n : {"a", "b", "cudaMemcpyAsync", "nvjet_sm90_tst", "relu", "step", "x"}) {
            const QColor c = QColor::fromRgb(ColorScheme::forName(n));
            QVERIFY2(c.value() >= 180 && c.hsvSaturation() >= 100, n);
        }
    }
};

QTEST_MAIN(TestLegendModel)
#include "tst_legendmodel.moc"

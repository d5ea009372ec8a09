// SPDX-License-Identifier: MIT
// The texts the frame builder keeps between frames are exactly the ones it would compute afresh:
// a slice label elided by an ElisionTable (widths asked in a zoom's order) against
// QFontMetrics::elidedText, and an idle note from IdleNoteTexts against the formatting and
// measuring the frame did before (2026-12-04), for many names, widths 0..500 px, gaps and fonts.
// A kept text that differed would change the label drawn (or whether a note fits), not just a
// cost; the frame suites compare warm frames with fresh ones, which a wrong key in both would pass.
#include "ui/style/timeformat.h"
#include "ui/timeline/elisiontable.h"
#include "ui/timeline/idlenotetexts.h"

#include <QApplication>
#include <QFontMetrics>
#include <QtTest>

#include <algorithm>
#include <random>

using namespace ws;

namespace {

QStringList names()
{
    return {
        QStringLiteral("k"),
        QStringLiteral("ab"),
        QStringLiteral("cudaLaunchKernel"),
        QStringLiteral("cudaStreamSynchronize"),
        QStringLiteral("[CUDA memcpy Host-to-Device]"),
        QStringLiteral("ampere_sgemm_128x64_nn"),
        QStringLiteral("void flash_attn_fwd_kernel<128, true, false>"),
        QStringLiteral("void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GemmShape<128, 128, "
                       "32>, cutlass::epilogue::thread::LinearCombination<float, 4, float, float>, "
                       "cutlass::arch::OpMultiplyAdd, 3> >(cutlass::gemm::kernel::GemmUniversal<...>::Params)"),
        QStringLiteral("std::vector<std::pair<int, std::map<std::string, double>>>::emplace_back"),
        QStringLiteral(
            "at::native::(anonymous namespace)::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>"),
        QStringLiteral("WWWWWWWWWWWWWWWWWWWWiiiiiiiiiiiiiiiiiiii"),
        QStringLiteral("Ünïcödé kernel façade — naïve"),
        QStringLiteral("行列乗算カーネル_fp16"),
        QStringLiteral("e\u0301e\u0301e\u0301 combining accents a\u0308o\u0308"),
        QStringLiteral("emoji 🚀🔥 kernel 👩‍👩‍👧 family"),
        QStringLiteral("שלום kernel عربي mixed"),
        QStringLiteral("tab\tand  double  spaces"),
        QStringLiteral("1,234 × gemm_kernel"),
    };
}

enum class Order { Ascending, Descending, Shuffled, Zooms };

std::vector<int> widthsIn(Order order, quint64 seed)
{
    std::vector<int> w;
    for (int x = 0; x <= 500; ++x)
        w.push_back(x);
    if (order == Order::Descending)
        std::reverse(w.begin(), w.end());
    if (order == Order::Shuffled)
        std::shuffle(w.begin(), w.end(), std::mt19937_64(seed));
    if (order == Order::Zooms) {
        // What a label's width does over a zoom script: factors of 1.25 in and 0.8 out, from
        // several starting widths, each width (as the frame's buckets) in whole pixels.
        w.clear();
        std::mt19937_64 rng(seed);
        for (int run = 0; run < 40; ++run) {
            double x = double(rng() % 501);
            const double f = run % 2 ? 0.8 : 1.25;
            for (int step = 0; step < 20 && x >= 0 && x <= 500; ++step, x *= f)
                w.push_back(int(x) & ~7);
        }
    }
    return w;
}

} // namespace

class TestLabelTexts : public QObject {
    Q_OBJECT

private slots:
    void elisionsEqualElidedText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("order");
        QTest::addColumn<bool>("bold");
        int n = 0;
        for (const QString& text : names()) {
            for (const Order order : {Order::Ascending, Order::Descending, Order::Shuffled, Order::Zooms})
                QTest::addRow("name %d, order %d", n, int(order)) << text << int(order) << false;
            QTest::addRow("name %d, bold, shuffled", n) << text << int(Order::Shuffled) << true;
            ++n;
        }
    }
    void elisionsEqualElidedText()
    {
        QFETCH(QString, text);
        QFETCH(int, order);
        QFETCH(bool, bold);
        QFont font = QApplication::font();
        font.setBold(bold);
        const QFontMetrics fm(font);
        ElisionTable table;
        // Twice over: the second pass answers from what the first one kept.
        for (int pass = 0; pass < 2; ++pass) {
            for (const int w : widthsIn(Order(order), quint64(text.size()) * 31 + quint64(order) + quint64(pass))) {
                const ElisionTable::Elided& e = table.at(text, w, fm);
                const QString expected = fm.elidedText(text, Qt::ElideRight, w);
                QVERIFY2(e.text == expected,
                    qPrintable(QStringLiteral("%1 px: \"%2\", elidedText \"%3\"").arg(w).arg(e.text, expected)));
                QCOMPARE(e.advance, fm.horizontalAdvance(expected));
            }
        }
    }

    void idleNotesEqualFreshOnes_data()
    {
        QTest::addColumn<int>("pixelSize"); // 0: the application's font
        QTest::addColumn<bool>("bold");
        QTest::addRow("application font") << 0 << false;
        QTest::addRow("bold") << 0 << true;
        QTest::addRow("9 px") << 9 << false;
        QTest::addRow("17 px") << 17 << false;
    }
    void idleNotesEqualFreshOnes()
    {
        QFETCH(int, pixelSize);
        QFETCH(bool, bold);
        QFont font = QApplication::font();
        font.setBold(bold);
        if (pixelSize > 0)
            font.setPixelSize(pixelSize);
        const QFontMetrics fm(font);
        IdleNoteTexts notes(font);
        QCOMPARE(notes.font(), font);
        // Every unit and number of decimals, the edges between them, and random gaps; twice as
        // many as the capacity, so the kept notes are emptied and filled again.
        std::vector<TimeNs> gaps = {0, 1, 9, 10, 99, 999, 1000, 1001, 9'999, 10'000, 99'999, 999'999, 1'000'000,
            1'234'567, 9'999'999, 12'345'678, 99'995'000, 999'999'999, 1'000'000'000, 3'600'000'000'000,
            std::numeric_limits<TimeNs>::max() / 2};
        std::mt19937_64 rng(7);
        while (gaps.size() < size_t(2 * IdleNoteTexts::kCapacity))
            gaps.push_back(TimeNs(rng() % 20'000'000'000ull) >> (rng() % 34));
        for (int pass = 0; pass < 2; ++pass) {
            for (const TimeNs gap : gaps) {
                const IdleNoteTexts::Note& note = notes.at(gap);
                const QString expected = QStringLiteral("idle %1").arg(formatDuration(gap));
                QVERIFY2(note.text == expected,
                    qPrintable(QStringLiteral("gap %1: \"%2\", expected \"%3\"").arg(gap).arg(note.text, expected)));
                QCOMPARE(note.advance, fm.horizontalAdvance(expected));
                QVERIFY(notes.size() <= IdleNoteTexts::kCapacity);
            }
            std::shuffle(gaps.begin(), gaps.end(), rng);
        }
    }
};

QTEST_MAIN(TestLabelTexts)
#include "tst_labeltexts.moc"

// SPDX-License-Identifier: MIT
// Durations and spans as the CLI's --range and the app's --view/--range read them.
#include "core/util/durationtext.h"

#include <QtTest>

using namespace ws;

class TestDurationText : public QObject {
    Q_OBJECT

private slots:
    void durations_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("bare ns") << "250" << true << qint64(250);
        QTest::newRow("ns") << "250ns" << true << qint64(250);
        QTest::newRow("us with space") << "1.5 us" << true << qint64(1500);
        QTest::newRow("micro sign") << QString::fromUtf8("2µs") << true << qint64(2000);
        QTest::newRow("ms") << "2ms" << true << qint64(2000000);
        QTest::newRow("leading dot") << ".5s" << true << qint64(500000000);
        QTest::newRow("rounded") << "0.0004us" << true << qint64(0);
        QTest::newRow("negative") << "-3us" << true << qint64(-3000);
        QTest::newRow("padded") << "  7ms  " << true << qint64(7000000);
        QTest::newRow("unknown unit") << "3min" << false << qint64(0);
        QTest::newRow("no number") << "ms" << false << qint64(0);
        QTest::newRow("dot only") << "." << false << qint64(0);
        QTest::newRow("trailing dot") << "5." << false << qint64(0);
        QTest::newRow("exponent") << "1e3" << false << qint64(0);
        QTest::newRow("empty") << "" << false << qint64(0);
        QTest::newRow("too large") << "99999999999s" << false << qint64(0);
    }
    void durations()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, ns);
        const auto d = parseDuration(text.toStdString());
        QCOMPARE(d.has_value(), valid);
        if (valid)
            QCOMPARE(*d, ns);
    }

    void spans_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("from");
        QTest::addColumn<qint64>("to");
        QTest::newRow("ms span") << "1.5ms:2ms" << true << qint64(1500000) << qint64(2000000);
        QTest::newRow("mixed units") << "900us:1s" << true << qint64(900000) << qint64(1000000000);
        QTest::newRow("empty span") << "2ms:2ms" << false << qint64(0) << qint64(0);
        QTest::newRow("reversed") << "3ms:2ms" << false << qint64(0) << qint64(0);
        QTest::newRow("no colon") << "2ms" << false << qint64(0) << qint64(0);
        QTest::newRow("bad half") << "2ms:x" << false << qint64(0) << qint64(0);
    }
    void spans()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, from);
        QFETCH(qint64, to);
        const auto s = parseDurationSpan(text.toStdString());
        QCOMPARE(s.has_value(), valid);
        if (valid) {
            QCOMPARE(s->first, from);
            QCOMPARE(s->second, to);
        }
    }
};

QTEST_GUILESS_MAIN(TestDurationText)
#include "tst_durationtext.moc"

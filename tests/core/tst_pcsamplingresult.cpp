// SPDX-License-Identifier: MIT
// The PC sampling result file (pcsamp-<pid>.txt) that libwarpscope-profiler.so writes inside the
// target and warpscope-cli reads: every record survives the round trip through a real file,
// names that would break the line format are made safe, a cut-off file is flagged, and bad input
// is refused with the file and line named.
#include "core/source/pcsamplingresult.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

class TestPcSamplingResult : public QObject {
    Q_OBJECT

private slots:
    void roundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("pcsamp-4242.txt").toStdString();
        PcSamplingRange range;
        range.launchIndex = 2;
        range.correlationId = 77;
        range.totalSamples = 6469093;
        range.droppedSamples = 581;
        range.nonUserSamples = 12;
        range.hardwareBufferFull = true;
        range.pcs = 2;
        range.period = 7;
        PcSampleRecord a;
        a.launchIndex = 2;
        a.cubinCrc = 18446744073709551557ull; // CRCs use all 64 bits
        a.pcOffset = 0x1a0;
        a.functionIndex = 3;
        a.correlationId = 77;
        a.functionName = "_Z12chase_kernelPKjPji";
        a.reasons = {{7, 4000000}, {27, 3900000}};
        PcSampleRecord b = a;
        b.pcOffset = 0x1b0;
        b.reasons.clear(); // a PC whose every counter was zero is still a record
        CorrelatedLine line {a.cubinCrc, 0x1a0, 35, a.functionName, "/src/dir with space/stalls.cu"};
        {
            PcSamplingResultWriter w;
            QVERIFY(w.open(path, 4242));
            w.stallReason(7, "smsp__pcsamp_warps_issue_stalled_long_scoreboard");
            w.stallReason(27, "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued");
            w.cubin({a.cubinCrc, 21368, 1, "cubin-4242-1.cubin"});
            w.sample(a);
            w.sample(b);
            w.range(range);
            PcSamplingRange failed;
            failed.launchIndex = 3;
            failed.error = "cuptiPCSamplingStart: CUPTI_ERROR_INVALID_OPERATION (4)\nsecond line";
            w.range(failed);
            w.line(line);
            w.info("period", "7");
            w.error("cuptiPCSamplingEnable: CUPTI_ERROR_NOT_SUPPORTED (13)");
            w.end();
        }
        const PcSamplingResult r = PcSamplingResultReader::read(path);
        QCOMPARE(r.pid, int64_t(4242));
        QVERIFY(r.complete);
        QVERIFY(!r.truncated);
        QCOMPARE(r.stallReasons.size(), size_t(2));
        QCOMPARE(r.stallReasons.at(27), std::string("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"));
        QCOMPARE(r.cubins.size(), size_t(1));
        QCOMPARE(r.cubins[0].crc, a.cubinCrc);
        QVERIFY(r.cubin(a.cubinCrc));
        QVERIFY(!r.cubin(1));
        QCOMPARE(r.samples.size(), size_t(2));
        QVERIFY(r.samples[0] == a);
        QVERIFY(r.samples[1] == b);
        QCOMPARE(r.ranges.size(), size_t(2));
        QVERIFY(r.ranges[0] == range);
        // The error ends the line: its newline became a space, everything after it kept.
        QCOMPARE(r.ranges[1].error, std::string("cuptiPCSamplingStart: CUPTI_ERROR_INVALID_OPERATION (4) second line"));
        QCOMPARE(r.lines.size(), size_t(1));
        QVERIFY(r.lines[0] == line);
        QCOMPARE(r.info.at("period"), std::string("7"));
        QCOMPARE(r.errors.size(), size_t(1));
    }

    void namesWithSpacesStayOneField()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("pcsamp-1.txt").toStdString();
        PcSampleRecord s;
        s.functionName = "void f<int>(int) const";
        s.reasons = {{1, 2}};
        {
            PcSamplingResultWriter w;
            QVERIFY(w.open(path, 1));
            w.sample(s);
            w.end();
        }
        const auto r = PcSamplingResultReader::read(path);
        QCOMPARE(r.samples.size(), size_t(1));
        QCOMPARE(r.samples[0].functionName, std::string("void?f<int>(int)?const"));
        QCOMPARE(r.samples[0].reasons, s.reasons);
    }

    void truncatedFileIsFlagged()
    {
        const std::string text = "warpscope-pcsamp 1\nprocess 5\nreason 1 smsp__pcsamp_warps_issue_stalled_wait\n"
                                 "pc 0 1 16 0 0 1:3 _Z1kv\npc 0 1 32 0 0 1:";
        const auto r = PcSamplingResultReader::parse(text, "cut.txt");
        QVERIFY(r.truncated);
        QVERIFY(!r.complete);
        QCOMPARE(r.samples.size(), size_t(1));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("not a result") << "warpscope-profile 1\n"
                                      << "not.txt: not a Warpscope PC sampling result (expected 'warpscope-pcsamp 1')";
        QTest::newRow("empty") << ""
                               << "not.txt: empty PC sampling result";
        QTest::newRow("bad pc number") << "warpscope-pcsamp 1\npc 0 1 x16 0 0 1:3 _Z1kv\n"
                                       << "not.txt:2: expected a number, found 'x16'";
        QTest::newRow("bad reason pair") << "warpscope-pcsamp 1\npc 0 1 16 0 0 13 _Z1kv\n"
                                         << "not.txt:2: expected reason:samples, found '13'";
        QTest::newRow("short line") << "warpscope-pcsamp 1\ncubin 12\n"
                                    << "not.txt:2: the line ends too early";
        QTest::newRow("unknown record") << "warpscope-pcsamp 1\nbogus 1\n"
                                        << "not.txt:2: unknown record 'bogus'";
        QTest::newRow("range without =") << "warpscope-pcsamp 1\nrange 0 total\n"
                                         << "not.txt:2: expected key=value, found 'total'";
    }

    void badInput()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        try {
            PcSamplingResultReader::parse(text.toStdString(), "not.txt");
            QFAIL("accepted");
        } catch (const std::runtime_error& e) {
            QCOMPARE(QString::fromUtf8(e.what()), message);
        }
    }

    void missingFileIsNamed()
    {
        try {
            PcSamplingResultReader::read("/nonexistent/pcsamp-1.txt");
            QFAIL("read a missing file");
        } catch (const std::runtime_error& e) {
            QVERIFY(QString::fromUtf8(e.what()).startsWith("/nonexistent/pcsamp-1.txt"));
        }
    }
};

QTEST_GUILESS_MAIN(TestPcSamplingResult)
#include "tst_pcsamplingresult.moc"

// SPDX-License-Identifier: MIT
// warpscope-cli on the in-kernel traces recorded on the H200 (tests/fixtures/iket): warp-roles
// (text and CSV against the stored events), ingest of the kept raw files, the Perfetto export's
// warp tracks, and bad input exiting non-zero with one line naming the file.
#include "clirun.h"
#include "core/iket/warprolesummary.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <set>

using namespace ws;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args);
}

QString fixture(const char* name)
{
    return QStringLiteral(WS_FIXTURES_DIR "/iket/") + QLatin1String(name);
}

} // namespace

class TestIketCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void warpRolesCsv()
    {
        const Run r = cli({QStringLiteral("warp-roles"), fixture("pipelined.wscope"), QStringLiteral("--csv")});
        QCOMPARE(r.exitCode, 0);
        const QStringList rows = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.front(), QStringLiteral("kernel,role,warps,wait_share,phase,kind,count,mean_us,p95_us,total_us"));
        // The same figures as the summary of the stored events.
        const SessionData s = SessionReader(fixture("pipelined.wscope").toStdString()).readAll();
        QStringList expected;
        for (const auto& role : iket::summarizeRoles(s.warpEvents, s.strings))
            for (const auto& p : role.phases)
                expected << QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9")
                                .arg(role.kernelId)
                                .arg(QString::fromStdString(s.str(role.role)))
                                .arg(role.warps)
                                .arg(role.waitShare(), 0, 'f', 4)
                                .arg(QString::fromStdString(s.str(p.name)),
                                    p.kind == WarpEventKind::AsyncRange ? QStringLiteral("async")
                                                                        : QStringLiteral("range"))
                                .arg(p.count)
                                .arg(p.meanNs / 1000, 0, 'f', 3)
                                .arg(p.p95Ns / 1000, 0, 'f', 3);
        QStringList got;
        for (const QString& row : rows.mid(1))
            got << row.section(QLatin1Char(','), 0, 8);
        QCOMPARE(got, expected);
        QCOMPARE(got.size(), 12); // 2 launches x (consumer: 2 phases, producer: 4)
    }

    void warpRolesText()
    {
        const Run r = cli({QStringLiteral("warp-roles"), fixture("two_warp.wscope"), QStringLiteral("--kernel"),
            QStringLiteral("2")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("kernel #2  consumer: 1 warp(s)")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("consumer_compute")));
        QVERIFY(!r.out.contains(QStringLiteral("kernel #1")));
    }

    // Losses reach the user in a few lines per launch, not one per warp: warp-roles and info on
    // a session whose launches lost events three ways (lists as ingest writes them).
    void lossesSummarizedPerLaunch()
    {
        SessionData s = SessionReader(fixture("two_warp.wscope").toStdString()).readAll();
        std::string dropped;
        std::string unbalanced;
        for (int w = 0; w < 500; ++w) {
            const std::string warp = "block " + std::to_string(w / 6) + " warp " + std::to_string(w % 6);
            dropped += (dropped.empty() ? "" : "\n") + std::string("short (kernel #2): ") + warp + " (10)";
            unbalanced += (unbalanced.empty() ? "" : "\n") + std::string("short (kernel #2): ") + warp
                + " (consumer): 1 range_push never popped";
        }
        s.meta["iket_dropped_warps"] = dropped;
        s.meta["iket_dropped_events"] = "5000";
        s.meta["iket_unbalanced"] = unbalanced;
        s.meta["iket_out_of_range"] = "narrow (kernel #3): 396 warps";
        s.meta["iket_out_of_range_warps"] = "396";
        s.meta["recorder_messages"]
            = "pid 5 warning: in-kernel trace sweep_unarmed: 792 warp(s) wrote 2389464 events while the buffer was not "
              "armed (a launch without arm() before it): not recorded\n"
              "pid 5 warning: something else";
        const QString path = m_dir.filePath(QStringLiteral("losses.wscope"));
        {
            SessionWriter w(path.toStdString());
            w.write(s);
            w.commit();
        }
        const Run roles = cli({QStringLiteral("warp-roles"), path});
        QCOMPARE(roles.exitCode, 0);
        QVERIFY2(roles.out.contains(QStringLiteral("short (kernel #2): 5000 events dropped by 500 warp(s) that ran out "
                                                   "of slots (first: block 0 warp 0 (10))")),
            qPrintable(roles.out));
        QVERIFY2(roles.out.contains(QStringLiteral("narrow (kernel #3): 396 warps had no slots and recorded nothing")),
            qPrintable(roles.out));
        QVERIFY2(roles.out.contains(QStringLiteral("short (kernel #2): 500 warp(s), first: block 0 warp 0 (consumer)")),
            qPrintable(roles.out));
        QVERIFY2(roles.out.contains(QStringLiteral("396 warps recorded nothing (outside their Launch's grid)")),
            qPrintable(roles.out));
        QVERIFY2(roles.out.contains(QStringLiteral("  in-kernel trace sweep_unarmed: 792 warp(s) wrote 2389464 events "
                                                   "while the buffer was not armed")),
            qPrintable(roles.out));
        QVERIFY(!roles.out.contains(QStringLiteral("something else")));
        QVERIFY2(roles.out.count(QLatin1Char('\n')) < 40, qPrintable(roles.out));
        // --all lists every warp; --kernel keeps one kernel's losses.
        const Run all = cli({QStringLiteral("warp-roles"), path, QStringLiteral("--all")});
        QCOMPARE(all.exitCode, 0);
        QVERIFY(all.out.contains(QStringLiteral("short (kernel #2): block 83 warp 1 (10)")));
        QVERIFY(all.out.contains(QStringLiteral("short (kernel #2): block 83 warp 1 (consumer)")));
        const Run one = cli({QStringLiteral("warp-roles"), path, QStringLiteral("--kernel"), QStringLiteral("3")});
        QVERIFY(one.out.contains(QStringLiteral("narrow (kernel #3): 396 warps")));
        QVERIFY(!one.out.contains(QStringLiteral("short (kernel #2)")));
        // info shows each list's first lines and how many more.
        const Run info = cli({QStringLiteral("info"), path});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(
            info.out.contains(QStringLiteral("... 497 more lines (warpscope-cli warp-roles --all lists every warp)")),
            qPrintable(info.out));
        QVERIFY(!info.out.contains(QStringLiteral("block 83 warp 1")));
    }

    // The same on a recording of the H200 (ws-example-iket-streams 1 6 small): each of the four
    // losses in one line, with the counts the program itself printed (streams_losses.record.log).
    void lossesOfARealRecording()
    {
        const Run roles = cli({QStringLiteral("warp-roles"), fixture("streams_losses.wscope")});
        QCOMPARE(roles.exitCode, 0);
        for (const char* line : {"  in-kernel trace sweep_unarmed: 264 warp(s) wrote 11352 events while the buffer was "
                                 "not armed",
                 "  sweep_short_buffer (kernel #2): 2904 events dropped by 264 warp(s) that ran out of slots",
                 "  sweep_narrow (kernel #3): 132 warps had no slots and recorded nothing",
                 "  sweep_short_buffer (kernel #2): 264 warp(s), first: block 0 warp 0 (loader)"})
            QVERIFY2(roles.out.contains(QLatin1String(line)), qPrintable(roles.out));
        const Run info = cli({QStringLiteral("info"), fixture("streams_losses.wscope")});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(
            info.out.contains(QStringLiteral("... 261 more lines (warpscope-cli warp-roles --all lists every warp)")),
            qPrintable(info.out));
        QVERIFY(info.out.contains(QStringLiteral("iket_out_of_range      sweep_narrow (kernel #3): 132 warps")));
    }

    void ingestKeptRawFiles()
    {
        const QString out = m_dir.filePath(QStringLiteral("again.wscope"));
        const Run r = cli({QStringLiteral("ingest"), QStringLiteral("-o"), out, fixture("raw/pipelined")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("2 kernels")) && r.out.contains(QStringLiteral("9120 warp events")),
            qPrintable(r.out));
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.meta.at("iket_launches"), std::string("2"));
        QCOMPARE(s.meta.at("recorder"), std::string("warpscope-cli ingest"));
        // The alignment's counts reach the user: warp-roles prints what ingest stored.
        const Run roles = cli({QStringLiteral("warp-roles"), out});
        QCOMPARE(roles.exitCode, 0);
        const QString line
            = QStringLiteral("kernel alignment: %1 of 9120 events moved into their kernel, 0 still outside")
                  .arg(QString::fromStdString(s.meta.at("iket_events_moved_into_kernel")));
        QVERIFY2(roles.out.contains(line), qPrintable(roles.out));
        QCOMPARE(s.meta.at("iket_events_outside_kernel"), std::string("0"));
    }

    void perfettoExport()
    {
        const QString out = m_dir.filePath(QStringLiteral("two_warp.json"));
        const Run r = cli({QStringLiteral("export"), fixture("two_warp.wscope"), QStringLiteral("-f"),
            QStringLiteral("chrome-json"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray events
            = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("traceEvents")).toArray();
        std::set<QString> tracks;
        int slices = 0;
        int marks = 0;
        for (const auto& v : events) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("name")).toString() == QLatin1String("thread_name")) {
                const QString n = e.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
                if (n.startsWith(QLatin1String("kernel #")))
                    tracks.insert(n);
            }
            if (e.value(QStringLiteral("cat")).toString() == QLatin1String("iket")) {
                slices += e.value(QStringLiteral("ph")).toString() == QLatin1String("X") ? 1 : 0;
                marks += e.value(QStringLiteral("ph")).toString() == QLatin1String("i") ? 1 : 0;
            }
        }
        QCOMPARE(tracks.size(), size_t(6)); // 3 launches x 2 warps
        QVERIFY(tracks.count(QStringLiteral("kernel #1 block 0 · producer · warp 0")));
        QVERIFY(tracks.count(QStringLiteral("kernel #3 block 0 · consumer · warp 1")));
        QCOMPARE(slices, 12); // per launch: producer_load, consumer_compute, 2 x wait_for_data
        QCOMPARE(marks, 6);
    }

    void badInput()
    {
        // A directory without raw files, and a file that is not one.
        const Run empty = cli(
            {QStringLiteral("ingest"), QStringLiteral("-o"), m_dir.filePath(QStringLiteral("x.wscope")), m_dir.path()});
        QVERIFY(empty.exitCode != 0);
        QCOMPARE(empty.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY2(empty.err.contains(m_dir.path()) && empty.err.contains(QStringLiteral("no raw record files")),
            qPrintable(empty.err));
        const Run notRaw = cli({QStringLiteral("ingest"), QStringLiteral("-o"),
            m_dir.filePath(QStringLiteral("y.wscope")), fixture("overhead-h200.csv")});
        QVERIFY(notRaw.exitCode != 0);
        QVERIFY2(notRaw.err.contains(QStringLiteral("overhead-h200.csv")), qPrintable(notRaw.err));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("y.wscope"))));
    }
};

QTEST_GUILESS_MAIN(TestIketCli)
#include "tst_iket_cli.moc"

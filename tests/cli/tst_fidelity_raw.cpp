// SPDX-License-Identifier: MIT
// The metric evaluation cannot change unnoticed (issue 18): the range profiler's result files of
// the fidelity suite, kept on the H200 (`profile --set full --keep-raw`, cache controls all and
// none; tests/fixtures/fidelity/README.md), are turned into a session again with `profile --from-raw`
// by the real CLI, and every metric value of every launch must be the one the H200 session held
// (expected.txt, %.17g: exact). A change to derived metrics, launch metrics, breakdowns, units
// or the ingest shows up here as the metric and launch that moved.
#include "core/metrics/profileresult.h"
#include "core/metrics/sessionmeta.h"
#include "core/store/sessionreader.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>
#include <utility>

namespace {

using Values = std::map<std::pair<int, std::string>, double>; // (launch index, metric) -> value

Values expectedValues(const QString& path)
{
    Values out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray& line : f.readAll().split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const QList<QByteArray> cols = line.split('\t');
        if (cols.size() != 3)
            continue;
        out[{cols[0].toInt(), cols[1].toStdString()}] = cols[2].toDouble();
    }
    return out;
}

Values sessionValues(const QString& path)
{
    const ws::SessionReader reader(path.toStdString());
    std::map<uint32_t, std::string> names;
    for (const auto& d : reader.readMetricDefs())
        names[d.id] = d.name;
    std::set<int64_t> kernels;
    const auto metrics = reader.readKernelMetrics();
    for (const auto& m : metrics)
        kernels.insert(m.kernelId);
    Values out;
    for (const auto& m : metrics)
        out[{static_cast<int>(std::distance(kernels.begin(), kernels.find(m.kernelId))), names[m.metricId]}] = m.value;
    return out;
}

} // namespace

class TestFidelityRaw : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void recomputesEveryValue_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("replay"); // the replay the summary names for that cache control
        const std::pair<const char*, const char*> caches[] = {
            {"all", ws::metakey::kReplayModeRestoreEvict},
            {"none", ws::metakey::kReplayModeChangedBlocksAfterFirstDirty},
        };
        for (const auto& [cache, replay] : caches) {
            const QDir root(QStringLiteral(WS_FIXTURES_DIR "/fidelity/") + QLatin1String(cache));
            const QStringList modes = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
            QVERIFY2(modes.size() >= 12, qPrintable(root.path()));
            for (const QString& m : modes)
                QTest::addRow("%s/%s", cache, qPrintable(m))
                    << root.filePath(m) << QStringLiteral("cache control %1, %2").arg(cache, replay);
        }
    }
    void recomputesEveryValue()
    {
        QFETCH(QString, dir);
        QFETCH(QString, replay);
        const Values expected = expectedValues(dir + QStringLiteral("/expected.txt"));
        QVERIFY2(expected.size() > 300, qPrintable(dir)); // >= 2 launches of ~200 metrics
        const QFileInfo mode(dir);                        // <cache>/<mode>: one session per row
        const QString out = m_dir.filePath(mode.dir().dirName() + '-' + mode.fileName() + QStringLiteral(".wscope"));
        QProcess p;
        p.start(QStringLiteral(WS_CLI_PATH), {"profile", "--from-raw", dir, "--set", "full", "-o", out});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        // The summary names the replay that ran, not only the cache control.
        QVERIFY2(err.contains(replay.toUtf8()), qPrintable(replay + " not in: " + QString::fromUtf8(err)));
        // And what a profiled launch cost, from the result files' own figures.
        double wallMs = 0;
        long long launches = 0;
        for (const QFileInfo& f : QDir(dir).entryInfoList({QStringLiteral("profile-*.txt")})) {
            const ws::ProfileResult result = ws::ProfileResultReader::read(f.filePath().toStdString());
            wallMs += std::stod(result.info.at("profiled_launch_wall_ms"));
            launches += std::stoll(result.info.at("launches_profiled"));
        }
        QVERIFY(launches > 0);
        const QString cost = QString::asprintf(", %.2f s per profiled launch", wallMs / 1000.0 / double(launches));
        QVERIFY2(err.contains(cost.toUtf8()), qPrintable(cost + " not in: " + QString::fromUtf8(err)));
        const Values got = sessionValues(out);
        QCOMPARE(got.size(), expected.size());
        int shown = 0;
        int moved = 0;
        for (const auto& [key, value] : expected) {
            const auto it = got.find(key);
            const bool same = it != got.end() && it->second == value;
            if (!same && shown++ < 10)
                qWarning("launch %d %s: expected %.17g, got %s", key.first, key.second.c_str(), value,
                    it == got.end() ? "nothing" : qPrintable(QString::number(it->second, 'g', 17)));
            moved += same ? 0 : 1;
        }
        QCOMPARE(moved, 0);
    }
};

QTEST_MAIN(TestFidelityRaw)
#include "tst_fidelity_raw.moc"

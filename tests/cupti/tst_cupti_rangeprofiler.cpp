// SPDX-License-Identifier: MIT
// The profiler's metric evaluation without a GPU (issue 19 item 3). A counter-data image the
// range profiler decoded on the H200, with the counter-availability image and metric list of its
// configuration (captured with WS_CUPTI_CAPTURE, tests/fixtures/cupti/README.md), is evaluated
// here through MetricConfiguration, the class `warpscope-cli profile` evaluates with: the
// configuration image must come out as the H200's did, and every value must equal the one the
// profiled process evaluated and the one its profile session stores. CUPTI's host API
// (libcupti + libnvperf_host) evaluates on the CPU: no driver or GPU is needed.
#include "collectors/profiler/metricconfiguration.h"

#include "core/store/sessionreader.h"

#include <QtTest>

#include <QDir>
#include <QFile>

#include <cmath>
#include <map>

using namespace ws;
using ws::profiler::MetricConfiguration;

namespace {

QString fixtures()
{
    return QStringLiteral(WS_FIXTURES_DIR "/cupti");
}

std::vector<uint8_t> readBinary(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray b = f.readAll();
    return {b.begin(), b.end()};
}

struct Decode {
    std::string chip;
    std::vector<std::string> metrics;
    size_t ranges = 0;
    size_t passes = 0;
    std::map<std::pair<size_t, std::string>, double> values; // (range, metric) -> value
};

Decode readManifest(const QString& path)
{
    Decode d;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return d;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QList<QByteArray> p = line.split('\t');
        if (p[0] == "chip" && p.size() == 2)
            d.chip = p[1].toStdString();
        else if (p[0] == "metric" && p.size() == 2)
            d.metrics.push_back(p[1].toStdString());
        else if (p[0] == "ranges" && p.size() == 2)
            d.ranges = p[1].toULongLong();
        else if (p[0] == "passes" && p.size() == 2)
            d.passes = p[1].toULongLong();
        else if (p[0] == "value" && p.size() == 4)
            d.values[{p[1].toULongLong(), p[2].toStdString()}] = std::strtod(p[3].constData(), nullptr);
    }
    return d;
}

} // namespace

class TestCuptiRangeProfiler : public QObject {
    Q_OBJECT

private slots:
    void evaluatesAsOnTheGpu_data()
    {
        QTest::addColumn<QString>("decodeDir");
        QTest::addColumn<QString>("session");
        const QStringList cases = QDir(fixtures()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        int rows = 0;
        for (const QString& c : cases) {
            const QString profile = fixtures() + "/" + c + "/profile";
            for (const QString& proc : QDir(profile + "/capture").entryList({"ws-*.rangeprofiler"}, QDir::Dirs)) {
                const QString pdir = profile + "/capture/" + proc;
                for (const QString& dec : QDir(pdir).entryList({"decode-*"}, QDir::Dirs, QDir::Name)) {
                    // A decode with no range in it (a flush with nothing pending) has nothing to evaluate.
                    if (readManifest(pdir + "/" + dec + "/manifest.tsv").ranges == 0)
                        continue;
                    QTest::newRow(qPrintable(c + "/" + dec)) << pdir + "/" + dec << profile + "/profile.wscope";
                    ++rows;
                }
            }
        }
        // The fixtures are committed: none found is a broken checkout, not a pass.
        if (rows == 0)
            QTest::newRow("missing") << QString() << QString();
    }

    void evaluatesAsOnTheGpu()
    {
        QFETCH(QString, decodeDir);
        QFETCH(QString, session);
        QVERIFY2(!decodeDir.isEmpty(), "no range-profiler fixtures under tests/fixtures/cupti");
        const Decode d = readManifest(decodeDir + "/manifest.tsv");
        QVERIFY2(!d.chip.empty() && !d.metrics.empty() && d.ranges > 0, "incomplete manifest.tsv");
        const auto availability = readBinary(decodeDir + "/availability.bin");
        const auto configImage = readBinary(decodeDir + "/config.bin");
        const auto counterData = readBinary(decodeDir + "/counterdata.bin");
        QVERIFY(!availability.empty() && !configImage.empty() && !counterData.empty());

        // The metric list as the profiled process evaluated it (breakdowns already expanded).
        std::vector<MetricRequest::Counter> request;
        for (const auto& m : d.metrics)
            request.push_back({m, {}, false});
        MetricConfiguration config;
        std::string error;
        QVERIFY2(config.build(d.chip, availability, request, 9, 0, error), error.c_str());
        QVERIFY2(config.rejected().empty(),
            ("rejected here: " + (config.rejected().empty() ? std::string() : config.rejected().front())).c_str());
        QCOMPARE(config.metricNames().size(), d.metrics.size());
        QCOMPARE(config.passes(), d.passes);
        QVERIFY2(config.configImage() == configImage, "the configuration image differs from the H200's");

        // Values of the profile session, by metric name, for its profiled kernel(s) in launch order.
        SessionReader reader(session.toStdString());
        std::map<uint32_t, std::string> metricNames;
        for (const auto& def : reader.readMetricDefs())
            metricNames[def.id] = def.name;
        std::map<int64_t, std::map<std::string, double>> stored;
        for (const auto& km : reader.readKernelMetrics())
            stored[km.kernelId][metricNames[km.metricId]] = km.value;
        QVERIFY2(stored.size() >= d.ranges, "the profile session has fewer profiled kernels than ranges");

        std::vector<double> values;
        size_t againstSession = 0;
        auto kernel = stored.begin();
        for (size_t r = 0; r < d.ranges; ++r, ++kernel) {
            QVERIFY(config.evaluate(counterData, r, values));
            QCOMPARE(values.size(), d.metrics.size());
            for (size_t i = 0; i < values.size(); ++i) {
                const std::string& name = d.metrics[i];
                const auto live = d.values.find({r, name});
                QVERIFY2(live != d.values.end(), ("no value captured for " + name).c_str());
                // Bit-exact: the same image through the same host library.
                QVERIFY2(values[i] == live->second || (std::isnan(values[i]) && std::isnan(live->second)),
                    qPrintable(QStringLiteral("%1: %2 here, %3 on the H200")
                                   .arg(QString::fromStdString(name))
                                   .arg(values[i], 0, 'g', 17)
                                   .arg(live->second, 0, 'g', 17)));
                const auto s = kernel->second.find(name);
                if (s == kernel->second.end() || !std::isfinite(values[i]))
                    continue;
                QVERIFY2(values[i] == s->second,
                    qPrintable(QStringLiteral("%1: %2 here, %3 in the profile session")
                                   .arg(QString::fromStdString(name))
                                   .arg(values[i], 0, 'g', 17)
                                   .arg(s->second, 0, 'g', 17)));
                ++againstSession;
            }
        }
        qInfo("%zu metric(s) x %zu range(s) evaluated bit-exact as on the GPU; %zu of the values also in the "
              "profile session",
            d.metrics.size(), d.ranges, againstSession);
        // Most counters are stored under their own names; none matched means the comparison
        // silently compared nothing.
        QVERIFY2(againstSession * 2 >= d.metrics.size() * d.ranges,
            qPrintable(QStringLiteral("only %1 of %2 values found in the profile session")
                           .arg(againstSession)
                           .arg(d.metrics.size() * d.ranges)));
    }
};

QTEST_GUILESS_MAIN(TestCuptiRangeProfiler)
#include "tst_cupti_rangeprofiler.moc"

// SPDX-License-Identifier: MIT
// The Chrome trace export of cross-stream dependencies: every derived dependency becomes a
// flow record -> wait -> first op after the wait and a flow producer -> that op, each point
// bound (by its timestamp) to the slice it names on the right track; event records and waits
// are slices of their own track. Checked on hand-written and random programs, from memory and
// from a session file; a session without event_op exports no dependency at all.
#include "core/analysis/sessionfilesource.h"
#include "core/export/chrometrace.h"
#include "core/model/streamdependencies.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include "streamdepsession.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <map>
#include <random>
#include <sstream>

using namespace ws;
using namespace ws::test;

Q_DECLARE_METATYPE(std::vector<ws::test::DepCall>)

namespace {

QJsonArray exportEvents(const RecordSource& source, ChromeTraceSummary* summary = nullptr)
{
    std::ostringstream out;
    const ChromeTraceSummary s = writeChromeTrace(source, out);
    if (summary)
        *summary = s;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()));
    return doc.object().value("traceEvents").toArray();
}

// Microseconds as the export writes them, back to ns relative to the origin.
int64_t ns(const QJsonObject& e)
{
    return std::llround(e.value("ts").toDouble() * 1000.0);
}

struct Trace {
    std::vector<QJsonObject> slices;                   // X events
    std::map<int64_t, std::vector<QJsonObject>> flows; // dependency flows by id, in file order
    std::map<int64_t, QString> trackNames;             // tid -> thread_name

    // The name of the X slice on `tid` enclosing `t` (ns), "" when none.
    QString sliceAt(int64_t tid, int64_t t) const
    {
        for (const auto& s : slices) {
            const int64_t b = ns(s), e = b + std::llround(s.value("dur").toDouble() * 1000.0);
            if (s.value("tid").toInteger() == tid && b <= t && t <= e)
                return s.value("name").toString();
        }
        return {};
    }
};

Trace parse(const QJsonArray& events)
{
    Trace t;
    for (const auto& v : events) {
        const QJsonObject e = v.toObject();
        const QString ph = e.value("ph").toString();
        if (ph == "X")
            t.slices.push_back(e);
        else if (ph == "M" && e.value("name").toString() == "thread_name")
            t.trackNames[e.value("tid").toInteger()] = e.value("args").toObject().value("name").toString();
        else if ((ph == "s" || ph == "t" || ph == "f") && e.value("cat").toString() == "dependency")
            t.flows[e.value("id").toInteger()].push_back(e);
    }
    return t;
}

// What a dependency must look like in the export, as "<flow name>: <slice>@<track> -> ...".
QStringList expectedFlows(const SessionData& d)
{
    const auto kernelName = [&](GpuOpRef r) {
        for (const auto& k : d.kernels)
            if (k.id == r.id)
                return QString::fromStdString(d.str(k.shortName));
        return QString("?");
    };
    const auto opName = [](const EventOpRecord* e) { return QString(eventOpName(*e)); };
    std::map<int64_t, const EventOpRecord*> ops;
    for (const auto& e : d.eventOps)
        ops[e.id] = &e;
    QStringList out;
    for (const auto& dep : deriveStreamDependencies(d)) {
        const QString event = QString("event 0x%1").arg(dep.event, 0, 16);
        const QString wait = opName(ops[dep.waitId]);
        const QString consumer
            = dep.consumer.valid() ? kernelName(dep.consumer) + "@stream " + QString::number(dep.consumerStream) : "";
        out << event + ": " + opName(ops[dep.recordId]) + "@events"
                + (consumer.isEmpty() ? " -> " + wait + "@events" : " -> " + wait + "@events -> " + consumer);
        if (dep.producer.valid())
            out << "waited for: " + kernelName(dep.producer) + "@stream " + QString::number(dep.producerStream) + " -> "
                    + (consumer.isEmpty() ? wait + "@events" : consumer);
    }
    out.sort();
    return out;
}

// The flows of the export in the same words: each point's enclosing slice and its track.
QStringList exportedFlows(const Trace& t)
{
    QStringList out;
    for (const auto& [id, points] : t.flows) {
        QStringList parts;
        for (const auto& p : points) {
            const int64_t tid = p.value("tid").toInteger();
            QString track = t.trackNames.contains(tid) ? t.trackNames.at(tid) : "?";
            if (track.startsWith("CUDA events"))
                track = "events";
            else if (track.startsWith("GPU "))
                track = track.mid(track.indexOf("stream"));
            parts << t.sliceAt(tid, ns(p)) + "@" + track;
        }
        out << points.front().value("name").toString() + ": " + parts.join(" -> ");
    }
    out.sort();
    return out;
}

std::vector<DepCall> randomProgram(unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> op(0, 9), stream(1, 3), event(1, 3);
    std::vector<DepCall> out;
    for (int i = 0; i < 50; ++i) {
        const int o = op(rng);
        const auto s = static_cast<uint32_t>(stream(rng));
        const auto e = static_cast<uint64_t>(event(rng)) * 0x100;
        if (o < 5)
            out.push_back(launch(s, "k" + std::to_string(i), 2'000));
        else if (o < 7)
            out.push_back(record(e, s));
        else if (o < 9)
            out.push_back(wait(s, e));
        else
            out.push_back(sync(e));
    }
    return out;
}

} // namespace

class TestExportDependencies : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void flowsFollowTheDependencies_data()
    {
        QTest::addColumn<std::vector<DepCall>>("calls");
        QTest::newRow("fork-join") << std::vector<DepCall> {launch(1, "p"), record(0xa0, 1), wait(2, 0xa0),
            wait(3, 0xa0), launch(2, "b"), launch(3, "c"), record(0xb0, 2), record(0xc0, 3), wait(1, 0xb0),
            wait(1, 0xc0), launch(1, "j"), record(0xb0, 1), sync(0xb0)};
        QTest::newRow("no consumer, no producer") << std::vector<DepCall> {
            record(0xa0, 1), wait(2, 0xa0), launch(2, "b"), launch(1, "a"), record(0xa0, 1), wait(2, 0xa0)};
        for (unsigned seed = 1; seed <= 8; ++seed)
            QTest::addRow("random %u", seed) << randomProgram(seed);
    }

    void flowsFollowTheDependencies()
    {
        QFETCH(std::vector<DepCall>, calls);
        const SessionData d = streamDepSession(calls);
        const QStringList expected = expectedFlows(d);
        QVERIFY(!expected.isEmpty());

        ChromeTraceSummary summary;
        const Trace memory = parse(exportEvents(MemoryRecordSource(d), &summary));
        QCOMPARE(exportedFlows(memory), expected);
        QCOMPARE(summary.dependencyFlows, static_cast<int64_t>(expected.size()));
        // Every event_op row is a slice on an events track.
        int eventSlices = 0;
        for (const auto& s : memory.slices)
            eventSlices += s.value("cat").toString() == "cuda_event" ? 1 : 0;
        QCOMPARE(eventSlices, static_cast<int>(d.eventOps.size()));
        // Launch flows keep their ids (1, 2, ...): dependency ids never collide with them.
        for (const auto& [id, points] : memory.flows)
            QVERIFY(id > (int64_t(1) << 50));

        // The same from a session file (SessionFileSource reads event_op into its header).
        const std::string path = m_dir.filePath(QString("%1.wscope").arg(QTest::currentDataTag())).toStdString();
        {
            SessionWriter writer(path);
            attachLaneCache(writer);
            writer.write(d);
            writer.commit();
        }
        const SessionReader reader(path);
        const SessionFileSource file(reader);
        QCOMPARE(exportedFlows(parse(exportEvents(file))), expected);
    }

    void sessionWithoutEventOpsHasNoDependencies()
    {
        const SessionData d = streamDepSession({launch(1, "a"), launch(2, "b")});
        ChromeTraceSummary summary;
        const Trace t = parse(exportEvents(MemoryRecordSource(d), &summary));
        QCOMPARE(summary.dependencyFlows, int64_t(0));
        QVERIFY(t.flows.empty());
        QCOMPARE(summary.flows, int64_t(2)); // the launch arrows are still there
    }
};

QTEST_GUILESS_MAIN(TestExportDependencies)
#include "tst_export_dependencies.moc"

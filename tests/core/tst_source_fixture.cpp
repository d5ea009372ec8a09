// SPDX-License-Identifier: MIT
// Source counters recorded on the H200 (tests/fixtures/source, scripts/h200/pcsampling-device.sh):
// - the SASS parser on real nvdisasm (-c -g, -c -gi) and cuobjdump -sass output of the stall
//   kernels' cubin: every function, every instruction, the same PCs in all three listings, and
//   nvdisasm's line table equal to CUPTI's cuptiGetSassToSourceCorrelation for every PC CUPTI
//   answered;
// - the session: for each stall kernel the expected reason dominates the launch, at the line
//   marked HOT(<reason>) in the source text the session recorded.
#include "stallkernels.h"

#include "source/pcsamplingresult.h"
#include "source/sassdisassembly.h"
#include "source/sourcetables.h"
#include "source/sourceview.h"
#include "store/sessionreader.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <map>

using namespace ws;
using namespace ws::test;

namespace {

QString fixture(const QString& rel)
{
    return QStringLiteral(WS_FIXTURES_DIR "/source/") + rel;
}

std::string readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

const SassFunctionListing* find(const std::vector<SassFunctionListing>& fs, const std::string& name)
{
    for (const auto& f : fs)
        if (f.name == name)
            return &f;
    return nullptr;
}

} // namespace

class TestSourceFixture : public QObject {
    Q_OBJECT

private slots:
    void listingsAgree_data()
    {
        QTest::addColumn<QString>("cubin");
        for (const QString& f : QDir(fixture("golden")).entryList({"*.nvdisasm-c-gi.txt"}))
            QTest::newRow(qPrintable(f)) << f.section(QStringLiteral(".nvdisasm"), 0, 0);
    }

    void listingsAgree()
    {
        QFETCH(QString, cubin);
        const auto gi = SassDisassembly::parse(readText(fixture("golden/" + cubin + ".nvdisasm-c-gi.txt")));
        const auto g = SassDisassembly::parse(readText(fixture("golden/" + cubin + ".nvdisasm-c-g.txt")));
        const auto cuobj = SassDisassembly::parse(readText(fixture("golden/" + cubin + ".cuobjdump-sass.txt")));
        for (const StallKernel& k : stallKernels()) {
            const auto* a = find(gi, k.function);
            const auto* b = find(g, k.function);
            const auto* c = find(cuobj, k.function);
            QVERIFY2(a && b && c, k.function.c_str());
            QVERIFY(a->instructions.size() > 10);
            QCOMPARE(b->instructions.size(), a->instructions.size());
            QCOMPARE(c->instructions.size(), a->instructions.size());
            for (size_t i = 0; i < a->instructions.size(); ++i) {
                const auto& x = a->instructions[i];
                QCOMPARE(x.pcOffset, uint64_t(16 * i)); // sm_90: 16-byte instructions from 0
                QCOMPARE(b->instructions[i].pcOffset, x.pcOffset);
                QCOMPARE(c->instructions[i].pcOffset, x.pcOffset);
                QCOMPARE(b->instructions[i].text, x.text);
                // cuobjdump prints the same instruction; its operand spelling may differ.
                const auto op = [](const std::string& t) { return t.substr(0, t.find(' ')); };
                QCOMPARE(op(c->instructions[i].text), op(x.text));
                QVERIFY2(x.line > 0 && !x.file.empty(), x.text.c_str()); // built with -lineinfo
                QVERIFY(c->instructions[i].line == 0 && c->instructions[i].file.empty());
            }
        }
    }

    // nvdisasm's line table and CUPTI's SASS-to-source correlation, made independently on the
    // H200 for the cubin the program actually loaded, name the same line for every PC.
    void lineTableMatchesCupti()
    {
        const QStringList raw = QDir(fixture("raw")).entryList({"pcsamp-*.txt"});
        QVERIFY(!raw.isEmpty());
        const PcSamplingResult r = PcSamplingResultReader::read(fixture("raw/" + raw.front()).toStdString());
        QVERIFY(r.complete);
        QVERIFY(!r.lines.empty());
        size_t compared = 0;
        for (const auto& c : r.cubins) {
            const std::string text = readText(fixture("raw/" + QString::fromStdString(c.file) + ".sass"));
            if (text.empty())
                continue;
            const auto listing = SassDisassembly::parse(text.substr(text.find('\n') + 1));
            for (const auto& l : r.lines) {
                if (l.cubinCrc != c.crc)
                    continue;
                const auto* f = find(listing, l.functionName);
                QVERIFY2(f, l.functionName.c_str());
                const auto it = std::find_if(f->instructions.begin(), f->instructions.end(),
                    [&](const SassListingLine& x) { return x.pcOffset == l.pcOffset; });
                if (it == f->instructions.end())
                    continue; // CUPTI answers past the function's end too
                QCOMPARE(it->line, static_cast<int32_t>(l.line));
                QVERIFY2(QString::fromStdString(l.path).endsWith(QString::fromStdString(it->file).section('/', -1)),
                    l.path.c_str());
                ++compared;
            }
        }
        QVERIFY2(compared > 50, qPrintable(QString::number(compared)));
    }

    void stallAtTheMarkedLine_data()
    {
        QTest::addColumn<int>("kernel");
        for (size_t i = 0; i < stallKernels().size(); ++i)
            QTest::newRow(stallKernels()[i].function.c_str()) << static_cast<int>(i);
    }

    void stallAtTheMarkedLine()
    {
        QFETCH(int, kernel);
        const StallKernel& k = stallKernels()[static_cast<size_t>(kernel)];
        const SessionReader reader(fixture("stalls-source.wscope").toStdString());
        const SessionData s = reader.readAll();
        const SourceTables t = SourceTables::read(reader);
        const auto f = examine(s, t, k);
        QVERIFY(f.has_value());
        QVERIFY2(f->samples > 1000, qPrintable(QString::number(f->samples)));
        QVERIFY2(std::find(k.reasons.begin(), k.reasons.end(), f->dominant) != k.reasons.end(), f->dominant.c_str());
        QVERIFY2(f->dominantShare > 0.5, qPrintable(QString::number(f->dominantShare)));
        QVERIFY(f->expectedLine > 0);
        QCOMPARE(f->line, f->expectedLine);
        qInfo("%s: %s %.1f%% of %lld samples, hottest at %s:%d (%.1f%% of that reason)", k.function.c_str(),
            f->dominant.c_str(), 100 * f->dominantShare, static_cast<long long>(f->samples),
            QString::fromStdString(f->path).section('/', -1).toUtf8().constData(), f->line, 100 * f->lineShare);
    }

    // The per-kernel sums stored as metrics equal the per-instruction rows.
    void kernelSumsMatchInstructionRows()
    {
        const SessionReader reader(fixture("stalls-source.wscope").toStdString());
        const SessionData s = reader.readAll();
        const SourceTables t = SourceTables::read(reader);
        std::map<std::string, uint32_t> metric;
        for (const auto& d : s.metricDefs)
            metric[d.name] = d.id;
        for (const StallKernel& k : stallKernels()) {
            const auto f = examine(s, t, k);
            QVERIFY(f.has_value());
            std::map<std::string, int64_t> rows;
            for (const auto& c : t.counters)
                if (c.kernelId == f->kernelId)
                    rows[s.str(c.counter)] += c.value;
            for (const auto& km : s.kernelMetrics) {
                if (km.kernelId != f->kernelId)
                    continue;
                for (const auto& [name, n] : rows) {
                    if (metric.count(name) && metric[name] == km.metricId)
                        QCOMPARE(static_cast<int64_t>(km.value), n);
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestSourceFixture)
#include "tst_source_fixture.moc"

// SPDX-License-Identifier: MIT
// Source counters recorded on the H200 (tests/fixtures/source, scripts/h200/pcsampling-device.sh):
// - the SASS parser on real nvdisasm (-c -g, -c -gi) and cuobjdump -sass output of the stall
//   kernels' cubin: every function, every instruction, the same PCs in all three listings, and
//   nvdisasm's line table equal to CUPTI's cuptiGetSassToSourceCorrelation for every PC CUPTI
//   answered;
// - the session: for each stall kernel the expected reason dominates the launch, at the line
//   marked HOT(<reason>) in the source text the session recorded;
// - agreement with ncu's own Source page for the same kernels (`ncu --section SourceCounters`,
//   exported as CSV on the H200): the same dominant reason with the same share, and the same
//   distribution of samples over the instructions.
#include "stallkernels.h"

#include "core/source/pcsamplingresult.h"
#include "core/source/sassdisassembly.h"
#include "core/source/sourcetables.h"
#include "core/source/sourceview.h"
#include "core/store/sessionreader.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

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

// One CSV line (ncu quotes every field; a quote inside is doubled).
std::vector<std::string> csvFields(const std::string& line)
{
    std::vector<std::string> out;
    std::string f;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                f += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                f += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.push_back(f);
            f.clear();
        } else if (c != '\r') {
            f += c;
        }
    }
    out.push_back(f);
    return out;
}

// ncu's Source page CSV (--page source --print-source sass --csv): per kernel (by base name),
// samples per PC relative to the function's first address, and samples per stall column.
struct NcuSource {
    std::map<uint64_t, double> perPc;
    std::map<std::string, double> perReason; // "stall_long_sb", ... (all samples, not "Not Issued")
};

std::map<std::string, NcuSource> readNcuSource(const std::string& text)
{
    std::map<std::string, NcuSource> out;
    std::map<std::string, std::vector<std::pair<uint64_t, std::vector<std::string>>>> rows;
    std::map<std::string, std::vector<std::string>> headers; // each kernel's table has its own columns
    std::vector<std::string> header;
    std::string kernel;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        const auto f = csvFields(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
        pos = nl == std::string::npos ? text.size() : nl + 1;
        if (f.size() >= 2 && f[0] == "Kernel Name") {
            kernel = f[1].substr(0, f[1].find('('));
            header.clear();
        } else if (!f.empty() && f[0] == "Address") {
            header = f;
            headers[kernel] = f;
        } else if (!header.empty() && f.size() == header.size() && !kernel.empty()) {
            uint64_t address = std::stoull(f[0], nullptr, 16);
            rows[kernel].emplace_back(address, f);
        }
    }
    for (const auto& [k, list] : rows) {
        const auto& columns = headers[k];
        uint64_t base = UINT64_MAX;
        for (const auto& r : list)
            base = std::min(base, r.first);
        NcuSource& n = out[k];
        for (const auto& [address, f] : list) {
            for (size_t i = 0; i < columns.size(); ++i) {
                const double v = f[i].empty() ? 0 : std::atof(f[i].c_str());
                if (columns[i] == "Warp Stall Sampling (All Samples)")
                    n.perPc[address - base] += v;
                else if (columns[i].rfind("stall_", 0) == 0 && columns[i].find("Not Issued") == std::string::npos)
                    n.perReason[columns[i]] += v;
            }
        }
    }
    return out;
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

    // PC sampling through CUPTI and ncu's Source page (its own PC sampling pass, another interval)
    // see the same kernels alike: the dominant reason's share within 0.5 points and the samples
    // spread over the same instructions (total variation distance of the per-PC shares < 0.06).
    void agreesWithNcu()
    {
        const auto ncu = readNcuSource(readText(fixture("ncu-source.csv")));
        const SessionReader reader(fixture("stalls-source.wscope").toStdString());
        const SessionData s = reader.readAll();
        const SourceTables t = SourceTables::read(reader);
        // ncu's short column names for the reasons that dominate here.
        const std::map<std::string, std::string> column = {
            {"long_scoreboard", "stall_long_sb"}, {"short_scoreboard", "stall_short_sb"}, {"barrier", "stall_barrier"}};
        for (const StallKernel& k : stallKernels()) {
            const auto f = examine(s, t, k);
            QVERIFY(f.has_value());
            std::string base = k.function.substr(2);
            base.erase(0, base.find_first_not_of("0123456789"));
            base = base.substr(0, base.find("kernel") + 6);
            const auto n = ncu.find(base);
            QVERIFY2(n != ncu.end(), base.c_str());
            double ncuTotal = 0;
            for (const auto& [pc, v] : n->second.perPc)
                ncuTotal += v;
            double ncuReasons = 0;
            for (const auto& [r, v] : n->second.perReason)
                ncuReasons += v;
            QVERIFY(ncuTotal > 10000);
            const double ncuShare = n->second.perReason.at(column.at(f->dominant)) / ncuReasons;
            QVERIFY2(std::abs(ncuShare - f->dominantShare) < 0.005,
                qPrintable(
                    QStringLiteral("%1: ncu %2, ours %3").arg(base.c_str()).arg(ncuShare).arg(f->dominantShare)));
            const SourceView v(t, s.strings, f->kernelId, k.function);
            std::map<uint64_t, double> ours;
            for (const auto& r : v.sassRows())
                ours[r.pcOffset] += static_cast<double>(r.total) / static_cast<double>(v.totalSamples());
            std::set<uint64_t> pcs;
            for (const auto& [pc, x] : ours)
                pcs.insert(pc);
            for (const auto& [pc, x] : n->second.perPc)
                pcs.insert(pc);
            double tv = 0;
            for (uint64_t pc : pcs) {
                const double a = ours.count(pc) ? ours.at(pc) : 0;
                const double b = n->second.perPc.count(pc) ? n->second.perPc.at(pc) / ncuTotal : 0;
                tv += std::abs(a - b) / 2;
            }
            qInfo("%s: dominant share ncu %.2f%% ours %.2f%%; per-PC total variation distance %.4f", base.c_str(),
                100 * ncuShare, 100 * f->dominantShare, tv);
            QVERIFY2(tv < 0.06, qPrintable(QString::number(tv)));
        }
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

// SPDX-License-Identifier: MIT
// The GUI side of `record --nvtx-timing`: a recording's timed NVTX ranges (bench runs made by
// ingest from NvtxTiming raw records) appear in the Benchmark panel as one group per range,
// one trend point per instance, with the boundary in words in the summary.
#include "ui/benchpanel.h"

#include "core/ingest/rawingest.h"
#include "core/raw/nvtxtiming.h"

#include <QComboBox>
#include <QTextBrowser>
#include <QtTest>

#include <qcustomplot.h>

using namespace ws;

namespace {

SessionData recording(const std::vector<int64_t>& stepNs, const std::vector<int64_t>& fwdNs)
{
    std::string bytes;
    raw::FileHeader h {};
    std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(h);
    h.pid = 77;
    bytes.assign(reinterpret_cast<const char*>(&h), sizeof(h));
    const auto add = [&bytes](std::string_view name, const std::vector<int64_t>& ns) {
        for (size_t i = 0; i < ns.size(); ++i) {
            raw::NvtxTimingRecord r {};
            r.gpuNs = ns[i];
            r.instance = uint32_t(i);
            raw::appendFrame(bytes, raw::RecordType::NvtxTiming, r, name);
        }
    };
    add("step", stepNs);
    add("fwd", fwdNs);
    raw::appendFrame(bytes, raw::RecordType::End, raw::EndRecord {});
    RawIngest ingest;
    ingest.addFile(raw::RawFile::fromBytes(bytes, "timing.raw"));
    return ingest.finish();
}

} // namespace

class TestBenchPanelNvtxTiming : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void timedRangesShowAsGroups()
    {
        BenchPanel panel;
        panel.setSession(recording({2'000'000, 2'010'000, 1'990'000, 2'005'000}, {500'000, 510'000}),
            QStringLiteral("timing.wscope"));
        QCOMPARE(panel.groupCount(), 2);
        QStringList names;
        for (int i = 0; i < panel.groupSelector()->count(); ++i)
            names << panel.groupSelector()->itemText(i);
        QVERIFY2(names.join(QLatin1Char('|')).contains(QStringLiteral("step")), qPrintable(names.join(',')));
        for (int g = 0; g < panel.groupCount(); ++g) {
            panel.showGroup(g);
            const bool step = panel.groupSelector()->currentText().contains(QStringLiteral("step"));
            const QCPGraph* trend = panel.trendPlot()->graph(0);
            QVERIFY(trend);
            QCOMPARE(trend->dataCount(), step ? 4 : 2); // one point per instance
            const QString summary = panel.summaryView()->toPlainText();
            QVERIFY2(summary.contains(QStringLiteral("legacy default stream")), qPrintable(summary));
        }
    }
};

QTEST_MAIN(TestBenchPanelNvtxTiming)
#include "tst_benchpanel_nvtxtiming.moc"

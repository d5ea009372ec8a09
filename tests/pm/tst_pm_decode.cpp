// SPDX-License-Identifier: MIT
// The PM sampling decode code (collectors/inject/pmdecode.cpp, what the sampler runs in the
// target process) on a counter-data image the sampler itself wrote on the H200 during the GEMM
// phase of ws-example-gpu-mix (WS_PM_FIXTURE_DIR, scripts/device/jobs/pm-sampling.sh): the image
// holds the samples the sampler reported, each with the interval and the metric values it
// evaluated there, bit for bit, and they show a GEMM (tensor pipe busy). CUPTI's host API only:
// no GPU. Fixture: tests/fixtures/pm/h200-gemm (about.tsv, availability.bin, counterdata.bin,
// samples.tsv).
#include "core/raw/pmsampling.h"
#include "inject/pmdecode.h"

#include <QFile>
#include <QtTest>

#include <map>
#include <string>
#include <vector>

using namespace ws::inject;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(WS_FIXTURES_DIR "/pm/h200-gemm/") + QLatin1String(name);
}

std::vector<uint8_t> bytes(const char* name)
{
    QFile f(fixture(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray b = f.readAll();
    return std::vector<uint8_t>(b.begin(), b.end());
}

struct Expected {
    size_t index = 0;
    uint64_t start = 0;
    uint64_t end = 0;
    std::vector<double> values;
};

} // namespace

class TestPmDecode : public QObject {
    Q_OBJECT

    std::map<std::string, std::string> m_about;
    std::vector<Expected> m_expected;
    std::vector<uint8_t> m_image;
    std::vector<uint8_t> m_availability;
    std::vector<const char*> m_names;
    CUpti_Profiler_Host_Object* m_host = nullptr;

private slots:
    void initTestCase()
    {
        QFile about(fixture("about.tsv"));
        QVERIFY2(about.open(QIODevice::ReadOnly), qPrintable(about.fileName()));
        for (const QByteArray& line : about.readAll().split('\n')) {
            const QList<QByteArray> f = line.split('\t');
            if (f.size() == 2 && f[0] != "metric")
                m_about[f[0].toStdString()] = f[1].toStdString();
        }
        QFile samples(fixture("samples.tsv"));
        QVERIFY(samples.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = samples.readAll().split('\n');
        for (int i = 1; i < lines.size(); ++i) {
            const QList<QByteArray> f = lines[i].split('\t');
            if (f.size() < 3)
                continue;
            Expected e;
            e.index = f[0].toULongLong();
            e.start = f[1].toULongLong();
            e.end = f[2].toULongLong();
            for (int k = 3; k < f.size(); ++k)
                e.values.push_back(f[k].toDouble());
            m_expected.push_back(std::move(e));
        }
        QVERIFY(!m_expected.empty());
        m_image = bytes("counterdata.bin");
        m_availability = bytes("availability.bin");
        QCOMPARE(std::to_string(m_image.size()), m_about.at("image_bytes"));
        for (const auto& m : ws::raw::kPmMetrics)
            m_names.push_back(m.name.data());
        std::string step;
        CUptiResult r = CUPTI_SUCCESS;
        m_host = pm::createHost(m_about.at("chip"), m_availability, m_names, step, &r);
        QVERIFY2(m_host, qPrintable(QString::fromStdString(step + ": " + pm::resultText(r))));
    }

    void cleanupTestCase() { pm::destroyHost(m_host); }

    void sampleCount()
    {
        QCOMPARE(std::to_string(pm::completedSamples(m_image)), m_about.at("samples"));
        QVERIFY(pm::completedSamples(m_image) >= m_expected.size());
    }

    // The intervals: CUPTI 13.0 reads them only with the PM sampling object that decoded the
    // image (offline, without one, it answers CUPTI_ERROR_INVALID_PARAMETER), so the sampler
    // reads them in the target process and the fixture keeps what it read: back to back, one
    // period each. Should a CUPTI read them offline, they must be the same.
    void sampleTimes()
    {
        const uint64_t period = std::stoull(m_about.at("period_ns"));
        for (size_t i = 0; i < m_expected.size(); ++i) {
            const Expected& e = m_expected[i];
            QVERIFY(e.end - e.start > period - 1000 && e.end - e.start < period + 1000);
            if (i > 0)
                QCOMPARE(e.start, m_expected[i - 1].end);
            uint64_t start = 0, end = 0;
            const CUptiResult r = pm::sampleTimes(nullptr, m_image, e.index, start, end);
            if (r == CUPTI_SUCCESS) {
                QCOMPARE(start, e.start);
                QCOMPARE(end, e.end);
            } else {
                QCOMPARE(r, CUPTI_ERROR_INVALID_PARAMETER);
            }
        }
    }

    // The metric values, bit for bit what the sampler evaluated in the target process.
    void values()
    {
        std::vector<double> v(m_names.size());
        for (const Expected& e : m_expected) {
            const CUptiResult r = pm::evaluate(m_host, m_image, e.index, m_names, v.data());
            QVERIFY2(r == CUPTI_SUCCESS, qPrintable(QString::fromStdString(pm::resultText(r))));
            QCOMPARE(v.size(), e.values.size());
            for (size_t k = 0; k < v.size(); ++k)
                QCOMPARE(v[k], e.values[k]);
        }
    }

    // Captured during the GEMM phase: the tensor pipe is busy, every value a percentage.
    void showsAGemm()
    {
        double tensor = 0;
        for (const Expected& e : m_expected) {
            for (double x : e.values)
                QVERIFY(x >= 0 && x <= 100.5);
            tensor += e.values[0];
        }
        QVERIFY(tensor / double(m_expected.size()) > 50);
    }
};

QTEST_GUILESS_MAIN(TestPmDecode)
#include "tst_pm_decode.moc"

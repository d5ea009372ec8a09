// SPDX-License-Identifier: MIT
// How reports are rendered (core/report: table, CSV, JSON, escaping) and how kernel names
// are demangled and shortened (core/util/demangle), data-driven.
#include "core/report/reportformat.h"
#include "core/report/textescape.h"
#include "core/util/demangle.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <sstream>

using namespace ws;

namespace {

ReportTable sampleTable()
{
    ReportTable t;
    t.id = "sample";
    t.title = "Sample";
    t.columns = {
        {"Time", "%", ColumnKind::Percent},
        {"Total Time", "ns", ColumnKind::Duration},
        {"Avg", "ns", ColumnKind::Duration},
        {"Queue Dur", "ns", ColumnKind::Duration},
        {"PID", "", ColumnKind::Id},
        {"Name", "", ColumnKind::Text},
    };
    t.rows.push_back({95.0, int64_t(3481709), 3481709.0, ReportCell(), int64_t(123456), std::string("f<int, \"x\">")});
    t.rows.push_back({5.0, int64_t(182472), 182472.5, int64_t(7), int64_t(9), std::string("Warmup")});
    return t;
}

} // namespace

class TestStatsFormat : public QObject {
    Q_OBJECT

private slots:
    void cells_data()
    {
        QTest::addColumn<int>("kind"); // 0 int, 1 double, 2 null
        QTest::addColumn<qint64>("integer");
        QTest::addColumn<double>("real");
        QTest::addColumn<bool>("grouped");
        QTest::addColumn<QString>("text");
        QTest::newRow("small int") << 0 << qint64(999) << 0.0 << true << "999";
        QTest::newRow("thousand") << 0 << qint64(1000) << 0.0 << true << "1,000";
        QTest::newRow("millions") << 0 << qint64(3481709) << 0.0 << true << "3,481,709";
        QTest::newRow("negative") << 0 << qint64(-1234567) << 0.0 << true << "-1,234,567";
        QTest::newRow("plain") << 0 << qint64(3481709) << 0.0 << false << "3481709";
        QTest::newRow("decimal grouped") << 1 << qint64(0) << 167993715.5 << true << "167,993,715.5";
        QTest::newRow("decimal plain") << 1 << qint64(0) << 167993715.5 << false << "167993715.5";
        QTest::newRow("zero") << 1 << qint64(0) << 0.0 << true << "0.0";
        QTest::newRow("negative zero") << 1 << qint64(0) << -0.0 << true << "0.0";
        QTest::newRow("tenth") << 1 << qint64(0) << 0.3 << true << "0.3";
        QTest::newRow("null") << 2 << qint64(0) << 0.0 << true << "";
    }
    void cells()
    {
        QFETCH(int, kind);
        QFETCH(qint64, integer);
        QFETCH(double, real);
        QFETCH(bool, grouped);
        QFETCH(QString, text);
        const ReportCell cell = kind == 0 ? ReportCell(int64_t(integer)) : kind == 1 ? ReportCell(real) : ReportCell();
        QCOMPARE(QString::fromStdString(formatCell(cell, grouped)), text);
    }

    void table()
    {
        std::ostringstream out;
        writeReportTable(out, sampleTable());
        // Numbers right-aligned and grouped (ids not), text left-aligned, NULL blank, no
        // trailing spaces.
        const std::string expected = " Time (%)  Total Time (ns)     Avg (ns)  Queue Dur (ns)     PID  Name\n"
                                     " --------  ---------------  -----------  --------------  ------  -----------\n"
                                     "     95.0        3,481,709  3,481,709.0                  123456  f<int, \"x\">\n"
                                     "      5.0          182,472    182,472.5               7       9  Warmup\n";
        QCOMPARE(out.str(), expected);
    }

    void csv()
    {
        std::ostringstream out;
        writeReportCsv(out, sampleTable());
        const std::string expected = "Time (%),Total Time (ns),Avg (ns),Queue Dur (ns),PID,Name\n"
                                     "95.0,3481709,3481709.0,,123456,\"f<int, \"\"x\"\">\"\n"
                                     "5.0,182472,182472.5,7,9,Warmup\n";
        QCOMPARE(out.str(), expected);
    }

    void json()
    {
        std::ostringstream out;
        writeReportJson(out, sampleTable());
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonArray rows = doc.array();
        QCOMPARE(rows.size(), 2);
        const QJsonObject first = rows.at(0).toObject();
        QCOMPARE(first.value(QLatin1String("Time (%)")).toDouble(), 95.0);
        QCOMPARE(first.value(QLatin1String("Total Time (ns)")).toInteger(), 3481709);
        QVERIFY(first.value(QLatin1String("Queue Dur (ns)")).isNull());
        QCOMPARE(first.value(QLatin1String("Name")).toString(), QStringLiteral("f<int, \"x\">"));
        QCOMPARE(rows.at(1).toObject().value(QLatin1String("Avg (ns)")).toDouble(), 182472.5);

        std::ostringstream empty;
        ReportTable t = sampleTable();
        t.rows.clear();
        writeReportJson(empty, t);
        QVERIFY(QJsonDocument::fromJson(QByteArray::fromStdString(empty.str())).array().isEmpty());
    }

    void parseFormats()
    {
        QVERIFY(parseReportFormat("table") == ReportFormat::Table);
        QVERIFY(parseReportFormat("csv") == ReportFormat::Csv);
        QVERIFY(parseReportFormat("json") == ReportFormat::Json);
        QVERIFY(!parseReportFormat("xml"));
        QVERIFY(!parseReportFormat("CSV"));
    }

    void jsonEscaping_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("output");
        QTest::newRow("plain") << QByteArray("abc") << QByteArray("\"abc\"");
        QTest::newRow("quote backslash") << QByteArray("a\"b\\c") << QByteArray("\"a\\\"b\\\\c\"");
        QTest::newRow("newline tab") << QByteArray("a\nb\tc\r") << QByteArray("\"a\\nb\\tc\\r\"");
        QTest::newRow("control") << QByteArray("a\x01\x1f", 3) << QByteArray("\"a\\u0001\\u001f\"");
        QTest::newRow("utf8 kept") << QByteArray("\xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80")
                                   << QByteArray("\"\xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80\"");
        // Each invalid byte becomes U+FFFD (EF BF BD).
        QTest::newRow("lone byte") << QByteArray("a\xff") << QByteArray("\"a\xef\xbf\xbd\"");
        QTest::newRow("overlong") << QByteArray("\xc0\x80") << QByteArray("\"\xef\xbf\xbd\xef\xbf\xbd\"");
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80")
                                   << QByteArray("\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
        QTest::newRow("truncated") << QByteArray("\xe2\x82") << QByteArray("\"\xef\xbf\xbd\xef\xbf\xbd\"");
        QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80")
                                        << QByteArray("\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    }
    void jsonEscaping()
    {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, output);
        std::string out;
        appendJsonString(out, std::string_view(input.constData(), size_t(input.size())));
        QCOMPARE(QByteArray::fromStdString(out), output);
        // Whatever the input, the result is a valid JSON string.
        const QJsonDocument doc = QJsonDocument::fromJson("[" + QByteArray::fromStdString(out) + "]");
        QVERIFY(doc.isArray());
    }

    void csvEscaping_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("output");
        QTest::newRow("plain") << "abc"
                               << "abc";
        QTest::newRow("comma") << "f<int, float>"
                               << "\"f<int, float>\"";
        QTest::newRow("quote") << "say \"hi\""
                               << "\"say \"\"hi\"\"\"";
        QTest::newRow("newline") << "a\nb"
                                 << "\"a\nb\"";
        QTest::newRow("empty") << ""
                               << "";
    }
    void csvEscaping()
    {
        QFETCH(QString, input);
        QFETCH(QString, output);
        std::string out;
        appendCsvField(out, input.toStdString());
        QCOMPARE(QString::fromStdString(out), output);
    }

    void demangling_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("output");
        QTest::newRow("function") << "_Z6reducePfi"
                                  << "reduce(float*, int)";
        QTest::newRow("template") << "_Z12matmul_tiledILi32EEvPKfS1_Pfiii"
                                  << "void matmul_tiled<32>(float const*, float const*, float*, int, int, int)";
        QTest::newRow("namespace") << "_ZN2at6native4fillEv"
                                   << "at::native::fill()";
        QTest::newRow("extern C") << "vectorAdd"
                                  << "vectorAdd";
        QTest::newRow("already demangled") << "reduce(float*, int)"
                                           << "reduce(float*, int)";
        QTest::newRow("invalid") << "_Zxyz"
                                 << "_Zxyz";
        QTest::newRow("empty") << ""
                               << "";
    }
    void demangling()
    {
        QFETCH(QString, input);
        QFETCH(QString, output);
        QCOMPARE(QString::fromStdString(demangle(input.toStdString())), output);
    }

    void shortNames_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("output");
        QTest::newRow("plain C") << "vectorAdd"
                                 << "vectorAdd";
        QTest::newRow("params") << "reduce(float*, int)"
                                << "reduce";
        QTest::newRow("return type and template") << "void matmul_tiled<32>(float const*, float const*, float*, int)"
                                                  << "matmul_tiled";
        QTest::newRow("namespaces") << "void at::native::vectorized_elementwise_kernel<4, "
                                       "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                                       "at::native::FillFunctor<float>, std::array<char*, 1ul>)"
                                    << "vectorized_elementwise_kernel";
        QTest::newRow("anonymous namespace") << "void (anonymous namespace)::softmax_warp<float>(float*, int)"
                                             << "softmax_warp";
        QTest::newRow("function pointer param") << "void apply(void (*)(int), int)"
                                                << "apply";
        QTest::newRow("lambda in template")
            << "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<"
               "at::native::AddFunctor<float> >(at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::"
               "{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::AddFunctor<float> >("
               "at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::{lambda(int)#1})"
            << "elementwise_kernel";
        QTest::newRow("templated return type") << "std::enable_if<true, void>::type launch<int>(int)"
                                               << "launch";
        QTest::newRow("const member") << "Foo::bar(int) const"
                                      << "bar";
        QTest::newRow("gcc clone") << "kernel(int) [clone .cold]"
                                   << "kernel";
        QTest::newRow("mangled input") << "_Z12matmul_tiledILi32EEvPKfS1_Pfiii"
                                       << "matmul_tiled";
        QTest::newRow("cublas name") << "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
                                     << "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
    }
    void shortNames()
    {
        QFETCH(QString, input);
        QFETCH(QString, output);
        QCOMPARE(QString::fromStdString(shortName(input.toStdString())), output);
    }
};

QTEST_GUILESS_MAIN(TestStatsFormat)
#include "tst_statsformat.moc"

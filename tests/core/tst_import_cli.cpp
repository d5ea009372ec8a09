// SPDX-License-Identifier: MIT
// `warpscope-cli import` end to end on the real fixtures: exit status, progress on stderr, the
// written session, one-line errors, and the source file left byte-for-byte unchanged.
#include "core/store/sessionreader.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;

namespace {

QString fixture(const char* name)
{
    return QString::fromUtf8(WS_FIXTURES_DIR) + "/import/" + name;
}

QByteArray sha256(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

struct Run {
    int exitCode = -1;
    QString err;
};

Run runCli(const QStringList& args)
{
    QProcess p;
    p.start(QString::fromUtf8(WS_CLI_PATH), args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestImportCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!QFileInfo::exists(QString::fromUtf8(WS_CLI_PATH)))
            QSKIP("warpscope-cli is not built in this build directory");
    }

    void importsFixture_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<QString>("detected");
        QTest::newRow("kineto auto") << "kineto_mm_relu.json"
                                     << "auto" << 48 << "kineto";
        QTest::newRow("kineto explicit") << "kineto_mm_relu.json"
                                         << "kineto" << 48 << "kineto";
        QTest::newRow("proton") << "proton_mm_relu.hatchet"
                                << "auto" << 48 << "proton";
        QTest::newRow("ncu log file") << "ncu_raw.csv"
                                      << "auto" << 8 << "ncu-csv";
        QTest::newRow("ncu mixed stdout") << "ncu_mixed.txt"
                                          << "ncu-csv" << 6 << "ncu-csv";
    }

    void importsFixture()
    {
        QFETCH(QString, file);
        QFETCH(QString, format);
        QFETCH(int, kernels);
        QFETCH(QString, detected);
        QTemporaryDir dir;
        const QString out = dir.filePath("out.wscope");
        const QByteArray before = sha256(fixture(file.toUtf8().constData()));
        const Run r = runCli({"import", fixture(file.toUtf8().constData()), "--format", format, "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains("import: wrote"));
        QVERIFY(r.err.contains("100%"));
        QCOMPARE(sha256(fixture(file.toUtf8().constData())), before);
        SessionReader reader(out.toStdString());
        QCOMPARE(reader.tableCounts().at("kernel"), int64_t(kernels));
        QCOMPARE(reader.meta().at("import.format"), detected.toStdString());
    }

    void errorsAreOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing file") << QStringList {"import", "/nonexistent/trace.json", "-o", "x.wscope"}
                                      << "cannot open";
        QTest::newRow("unknown content") << QStringList {"import", "notes.txt", "-o", "x.wscope"} << "unknown format";
        QTest::newRow("wrong format") << QStringList {"import", fixture("kineto_mm_relu.json"), "--format", "proton",
            "-o", "x.wscope"} << "not a Proton hatchet tree";
        QTest::newRow("bad format name") << QStringList {"import", fixture("kineto_mm_relu.json"), "--format", "xml",
            "-o", "x.wscope"} << "unknown --format";
    }

    void errorsAreOneLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QFile notes(dir.filePath("notes.txt"));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("plain text, not a trace\n");
        notes.close();
        for (auto& a : args) {
            if (a == "x.wscope" || a == "notes.txt")
                a = dir.filePath(a);
        }
        const Run r = runCli(args);
        QVERIFY(r.exitCode != 0);
        const QStringList lines = r.err.split('\n', Qt::SkipEmptyParts);
        const QString last = lines.isEmpty() ? QString() : lines.last();
        QVERIFY2(last.startsWith("warpscope-cli import: "), qPrintable(r.err));
        QVERIFY2(last.contains(expected), qPrintable(last));
        QVERIFY(!QFileInfo::exists(dir.filePath("x.wscope")));
    }

    void refusesToOverwriteItsInput()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath("trace.json");
        QVERIFY(QFile::copy(fixture("kineto_mm_relu.json"), copy));
        const QByteArray before = sha256(copy);
        const Run r = runCli({"import", copy, "-o", copy});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("would replace the file being imported"), qPrintable(r.err));
        QCOMPARE(sha256(copy), before);
    }
};

QTEST_GUILESS_MAIN(TestImportCli)
#include "tst_import_cli.moc"

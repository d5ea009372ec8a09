// SPDX-License-Identifier: MIT
// Where Open and Compare With… start (issue 24 item 11): beside the open session, else the last
// folder opened, else home; never the launch directory, the embedded demo or a vanished file.
#include "ui/session/dialogdirectory.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

class TestDialogDirectory : public QObject {
    Q_OBJECT
private slots:
    void startsBesideTheSession_data()
    {
        QTest::addColumn<QString>("open");     // relative to the scratch folder; "" = none
        QTest::addColumn<QString>("last");     // relative to the scratch folder; "" = none
        QTest::addColumn<QString>("expected"); // relative to the scratch folder; "~" = home
        QTest::newRow("beside the open session") << "runs/a.wscope"
                                                 << "other"
                                                 << "runs";
        QTest::newRow("nothing open: the last folder") << ""
                                                       << "other"
                                                       << "other";
        QTest::newRow("the demo is not a folder") << ":/demo/h200.wscope"
                                                  << "other"
                                                  << "other";
        QTest::newRow("a vanished session") << "gone/b.wscope"
                                            << "other"
                                            << "other";
        QTest::newRow("a vanished last folder: home") << ""
                                                      << "nowhere"
                                                      << "~";
        QTest::newRow("nothing at all: home") << ""
                                              << ""
                                              << "~";
    }
    void startsBesideTheSession()
    {
        QFETCH(QString, open);
        QFETCH(QString, last);
        QFETCH(QString, expected);
        QTemporaryDir scratch;
        QDir root(scratch.path());
        QVERIFY(root.mkpath(QStringLiteral("runs")) && root.mkpath(QStringLiteral("other")));
        QFile session(root.filePath(QStringLiteral("runs/a.wscope")));
        QVERIFY(session.open(QIODevice::WriteOnly));
        session.close();
        const auto at = [&](const QString& rel) {
            return rel.isEmpty() || rel.startsWith(QLatin1String(":/")) ? rel : root.filePath(rel);
        };
        const QString want = expected == QLatin1String("~") ? QDir::homePath() : root.filePath(expected);
        QCOMPARE(dialogDirectory(at(open), at(last)), want);
    }
};

QTEST_APPLESS_MAIN(TestDialogDirectory)
#include "tst_dialogdirectory.moc"

// SPDX-License-Identifier: MIT
// collectors/crash: the report both injection libraries print when the program they are loaded
// into crashes. Each case forks a child that installs the report the way the libraries do, then
// crashes one way; the parent reads the child's stderr and its wait status: the report must say
// what the collector was doing and name the frames' libraries, and the signal must still reach
// the program's own handler or end the process as it would have without us.
#include "collectors/crash/crashreport.h"
#include "launcher/collectorcrash.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <cstdlib>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

enum class Crash { NullWrite, Abort, DivideByZeroSignal };
enum class Handler { None, OwnExits42, OwnSigInfoExits43 };

void ownHandler(int)
{
    static const char msg[] = "program's own handler\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(42);
}

void ownSigInfoHandler(int, siginfo_t*, void*)
{
    static const char msg[] = "program's own siginfo handler\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(43);
}

int crashSignal(Crash c)
{
    switch (c) {
    case Crash::NullWrite:
        return SIGSEGV;
    case Crash::Abort:
        return SIGABRT;
    case Crash::DivideByZeroSignal:
        return SIGFPE;
    }
    return 0;
}

[[noreturn]] void child(Crash c, Handler h, const char* note, int errFd, const char* reportDir)
{
    dup2(errFd, STDERR_FILENO);
    if (reportDir)
        setenv("WS_CRASH_DIR", reportDir, 1);
    const int sig = crashSignal(c);
    // A program without a handler of its own (a sanitizer build would have one).
    std::signal(sig, SIG_DFL);
    if (h == Handler::OwnExits42) {
        std::signal(sig, ownHandler);
    } else if (h == Handler::OwnSigInfoExits43) {
        struct sigaction sa { };
        sa.sa_sigaction = ownSigInfoHandler;
        sa.sa_flags = SA_SIGINFO;
        sigaction(sig, &sa, nullptr);
    }
    ws::crash::installReport("wstest");
    ws::crash::noteActivity("an earlier note, replaced");
    ws::crash::noteActivity(note);
    switch (c) {
    case Crash::NullWrite: {
        // A page with no access rather than a null pointer: a real fault that the sanitizers of
        // the asan build do not report as undefined behaviour first.
        void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        *static_cast<volatile int*>(page) = 1;
        break;
    }
    case Crash::Abort:
        std::abort();
    case Crash::DivideByZeroSignal:
        raise(SIGFPE);
        break;
    }
    _exit(99); // not reached when the signal did what it should
}

struct Outcome {
    QByteArray err;
    int status = 0;
    int pid = 0;
};

Outcome run(Crash c, Handler h, const char* note, const char* reportDir = nullptr)
{
    int fds[2];
    if (pipe(fds) != 0)
        qFatal("pipe");
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child(c, h, note, fds[1], reportDir);
    }
    close(fds[1]);
    Outcome o;
    o.pid = pid;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        o.err.append(buf, static_cast<int>(n));
    close(fds[0]);
    waitpid(pid, &o.status, 0);
    return o;
}

} // namespace

class TestCrashReport : public QObject {
    Q_OBJECT
private slots:
    void reportThenSignalHandedOn_data()
    {
        QTest::addColumn<int>("crash");
        QTest::addColumn<int>("handler");
        QTest::addColumn<QByteArray>("note");
        QTest::addColumn<int>("killedBy");     // 0: exited
        QTest::addColumn<int>("exitCode");     // when exited
        QTest::addColumn<QByteArray>("said");  // the note as reported
        QTest::addColumn<QByteArray>("owner"); // what the program's own handler printed, if any

        const QByteArray own("not in one of its callbacks (the program's own code)");
        QTest::newRow("segfault, no handler, in a callback")
            << int(Crash::NullWrite) << int(Handler::None) << QByteArray("replaying launch 3 (conv)") << SIGSEGV << 0
            << QByteArray("replaying launch 3 (conv)") << QByteArray();
        QTest::newRow("segfault, the program's own code")
            << int(Crash::NullWrite) << int(Handler::None) << QByteArray() << SIGSEGV << 0 << own << QByteArray();
        QTest::newRow("segfault, the program's handler runs after the report")
            << int(Crash::NullWrite) << int(Handler::OwnExits42) << QByteArray("in a callback") << 0 << 42
            << QByteArray("in a callback") << QByteArray("program's own handler");
        QTest::newRow("segfault, the program's SA_SIGINFO handler")
            << int(Crash::NullWrite) << int(Handler::OwnSigInfoExits43) << QByteArray("x") << 0 << 43 << QByteArray("x")
            << QByteArray("program's own siginfo handler");
        QTest::newRow("the program's handler, outside our callbacks: no report")
            << int(Crash::NullWrite) << int(Handler::OwnExits42) << QByteArray() << 0 << 42 << QByteArray()
            << QByteArray("program's own handler");
        QTest::newRow("abort ends the process with SIGABRT")
            << int(Crash::Abort) << int(Handler::None) << QByteArray("decoding") << SIGABRT << 0
            << QByteArray("decoding") << QByteArray();
        QTest::newRow("a raised signal is raised again")
            << int(Crash::DivideByZeroSignal) << int(Handler::None) << QByteArray("evicting L2") << SIGFPE << 0
            << QByteArray("evicting L2") << QByteArray();
    }

    void reportThenSignalHandedOn()
    {
        QFETCH(int, crash);
        QFETCH(int, handler);
        QFETCH(QByteArray, note);
        QFETCH(int, killedBy);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, said);
        QFETCH(QByteArray, owner);

        const Outcome o = run(Crash(crash), Handler(handler), note.isEmpty() ? nullptr : note.constData());
        if (killedBy) {
            QVERIFY2(WIFSIGNALED(o.status), o.err.constData());
            QCOMPARE(WTERMSIG(o.status), killedBy);
        } else {
            QVERIFY2(WIFEXITED(o.status), o.err.constData());
            QCOMPARE(WEXITSTATUS(o.status), exitCode);
        }
        const int sig = crashSignal(Crash(crash));
        if (said.isEmpty()) {
            QVERIFY2(!o.err.contains("wstest:"), o.err.constData());
            QVERIFY2(o.err.contains(owner), o.err.constData());
            return;
        }
        QVERIFY2(
            o.err.contains("wstest: the program received signal " + QByteArray::number(sig) + " ("), o.err.constData());
        QVERIFY2(o.err.contains("wstest: while the collector was " + said + "\n"), o.err.constData());
        QVERIFY(!o.err.contains("an earlier note"));
        // Reported once, before the program's handler.
        QCOMPARE(o.err.count("the program received signal"), 1);
        if (!owner.isEmpty())
            QVERIFY2(o.err.indexOf(owner) > o.err.indexOf("while the collector was"), o.err.constData());
        // Frames name their library and offset; this test's own executable is among them.
        QVERIFY2(o.err.contains("wstest:   #0 0x"), o.err.constData());
        QVERIFY2(o.err.contains("tst_crashreport + 0x"), o.err.constData());
        if (sig == SIGSEGV)
            QVERIFY2(o.err.contains("at address 0x"), o.err.constData());
    }

    // With WS_CRASH_DIR the same report goes to crash-<pid>.txt, which the launcher reads back:
    // inside a callback (a failed collection) or in the program's own code.
    void reportFileReadByTheLauncher_data()
    {
        QTest::addColumn<QByteArray>("note");
        QTest::newRow("inside the collector") << QByteArray("replaying launch 2 (sm90_xmma_fprop) (checkpoint)");
        QTest::newRow("the program's own code") << QByteArray();
    }
    void reportFileReadByTheLauncher()
    {
        QFETCH(QByteArray, note);
        QTemporaryDir dir;
        const QByteArray path = QFile::encodeName(dir.path());
        const Outcome o
            = run(Crash::NullWrite, Handler::None, note.isEmpty() ? nullptr : note.constData(), path.constData());
        QVERIFY(WIFSIGNALED(o.status));
        const auto crashes = ws::readCollectorCrashes(dir.path().toStdString());
        QCOMPARE(crashes.size(), size_t(1));
        const ws::CollectorCrash& c = crashes.front();
        QCOMPARE(c.pid, o.pid);
        QCOMPARE(c.signal, SIGSEGV);
        QCOMPARE(QString::fromStdString(c.signalName), QString::fromLatin1(strsignal(SIGSEGV)));
        QCOMPARE(QByteArray::fromStdString(c.activity), note);
        QCOMPARE(c.insideCollector(), !note.isEmpty());
        QVERIFY(QByteArray::fromStdString(c.report).contains("tst_crashreport + 0x"));
    }

    void notAReport()
    {
        QCOMPARE(ws::parseCollectorCrash("hello\nworld\n").signal, 0);
        const auto c = ws::parseCollectorCrash("x: the program received signal 6 (Aborted)\n"
                                               "x: while the collector was not in one of its callbacks (the "
                                               "program's own code)\n");
        QCOMPARE(c.signal, 6);
        QCOMPARE(QString::fromStdString(c.signalName), QStringLiteral("Aborted"));
        QVERIFY(!c.insideCollector());
        // The recorder notes no activity: its reports never claim a callback.
        QVERIFY(!ws::parseCollectorCrash("x: the program received signal 11 (Segmentation fault)\n"
                                         "x: while the collector was not noting its activity (frames in its own "
                                         "library below are its own)\n")
                     .insideCollector());
    }
};

QTEST_GUILESS_MAIN(TestCrashReport)
#include "tst_crashreport.moc"

// SPDX-License-Identifier: MIT
// In-kernel event tracing on a real GPU (label `gpu`): the warpscope/iket.cuh examples recorded
// under `warpscope-cli record`, their warp events checked against what the kernels do (roles,
// ranges per role, balance, every event inside its kernel). Skips, saying why, where the
// examples were not built or no Hopper GPU is usable.
#include "core/store/sessionreader.h"

#include <QtTest>

#include <map>
#include <set>

using namespace ws;

namespace {

QString example(const char* name)
{
    return QStringLiteral(WS_BUILD_DIR "/bin/") + QLatin1String(name);
}

} // namespace

class TestIketGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    SessionData record(const QString& name, const QStringList& command)
    {
        const QString out = m_dir.filePath(name);
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedOutputChannel);
        p.start(QStringLiteral(WS_CLI_PATH),
            QStringList {QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--")} + command);
        if (!p.waitForFinished(120000) || p.exitCode() != 0)
            qFatal("record failed: %s", p.readAllStandardError().constData());
        return SessionReader(out.toStdString()).readAll();
    }

    // Why this machine cannot run the examples; empty when it can. (QSKIP must be in the test
    // function itself.)
    static QString noGpu(const SessionData& s)
    {
        if (s.meta.at("host_only") != "0")
            return QStringLiteral("no usable GPU: ") + QString::fromStdString(s.meta.at("gpu_status"));
        if (!s.processes.empty() && s.processes[0].exitCode != 0 && s.kernels.empty())
            return QStringLiteral("the example ran no kernel (sm_90a code needs a Hopper GPU)");
        return {};
    }

    static void checkInsideKernels(const SessionData& s)
    {
        std::map<int64_t, const KernelRecord*> kernels;
        for (const auto& k : s.kernels)
            kernels[k.id] = &k;
        for (const auto& e : s.warpEvents) {
            QVERIFY2(kernels.count(e.kernelId), "every warp event belongs to a recorded kernel");
            const KernelRecord& k = *kernels[e.kernelId];
            QVERIFY(e.begin >= k.start && e.end <= k.end && e.begin <= e.end);
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo::exists(example("ws-example-iket-two-warp")))
            QSKIP("the in-kernel tracing examples were not built (no nvcc)");
        QVERIFY(m_dir.isValid());
    }

    void twoWarp()
    {
        const SessionData s
            = record(QStringLiteral("two_warp.wscope"), {example("ws-example-iket-two-warp"), QStringLiteral("3")});
        if (const QString why = noGpu(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.meta.at("iket_launches"), std::string("3"));
        QCOMPARE(s.meta.at("iket_unbalanced_warps"), std::string("0"));
        QCOMPARE(s.meta.at("iket_dropped_events"), std::string("0"));
        QCOMPARE(s.meta.at("iket_unmatched_launches"), std::string("0"));
        checkInsideKernels(s);
        // (kernel, warp, name) -> count; roles per warp.
        std::map<std::tuple<int64_t, int, std::string>, int> ranges;
        std::map<int, std::set<std::string>> roles;
        std::set<int64_t> kernels;
        for (const auto& e : s.warpEvents) {
            kernels.insert(e.kernelId);
            roles[e.warp].insert(s.str(e.role));
            ranges[{e.kernelId, e.warp, s.str(e.name)}] += 1;
        }
        QCOMPARE(kernels.size(), size_t(3));
        QCOMPARE(roles[0], std::set<std::string> {"producer"});
        QCOMPARE(roles[1], std::set<std::string> {"consumer"});
        for (const int64_t k : kernels) {
            QCOMPARE((ranges[{k, 0, "producer_load"}]), 1);
            QCOMPARE((ranges[{k, 1, "producer_load"}]), 0);
            QCOMPARE((ranges[{k, 1, "consumer_compute"}]), 1);
            QCOMPARE((ranges[{k, 0, "consumer_compute"}]), 0);
            QCOMPARE((ranges[{k, 0, "wait_for_data"}]), 1);
            QCOMPARE((ranges[{k, 1, "wait_for_data"}]), 1);
            QCOMPARE((ranges[{k, 0, "kernel_start"}]), 1);
        }
    }

    void pipelined()
    {
        const int blocks = 4;
        const int tilesPerBlock = 8;
        const SessionData s = record(QStringLiteral("pipelined.wscope"),
            {example("ws-example-iket-pipelined"), QString::number(blocks), QString::number(tilesPerBlock),
                QStringLiteral("16"), QStringLiteral("1")});
        if (const QString why = noGpu(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.meta.at("iket_launches"), std::string("1"));
        QCOMPARE(s.meta.at("iket_unbalanced_warps"), std::string("0"));
        QCOMPARE(s.meta.at("iket_dropped_events"), std::string("0"));
        checkInsideKernels(s);
        std::map<std::string, std::set<std::pair<int, int>>> warpsPerRole;
        std::map<std::pair<std::string, std::string>, int> count; // (role, name)
        int maxAsyncDepth = 0;
        for (const auto& e : s.warpEvents) {
            warpsPerRole[s.str(e.role)].insert({e.block, e.warp});
            ++count[{s.str(e.role), s.str(e.name)}];
            if (e.kind == WarpEventKind::AsyncRange)
                maxAsyncDepth = std::max(maxAsyncDepth, e.depth);
        }
        QCOMPARE(warpsPerRole["producer"].size(), size_t(blocks));
        QCOMPARE(warpsPerRole["consumer"].size(), size_t(2 * blocks));
        const int tiles = blocks * tilesPerBlock;
        QCOMPARE((count[{"producer", "issue_load"}]), tiles);
        QCOMPARE((count[{"producer", "stage_busy"}]), tiles);
        QCOMPARE((count[{"consumer", "compute"}]), 2 * tiles);
        QCOMPARE((count[{"consumer", "release"}]), 2 * tiles);
        QVERIFY2(maxAsyncDepth >= 1, "stage_busy spans of different stages overlap");
    }
};

QTEST_GUILESS_MAIN(TestIketGpu)
#include "tst_iket_gpu.moc"

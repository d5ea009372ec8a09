// SPDX-License-Identifier: MIT
// 1000 mutated copies of a real session (the Kineto fixture imported and saved): opening each as
// the viewer does (SessionReader, readAll, TimelineModel::load) must never crash and never throw
// anything but a SessionError that names the file; files are never modified by opening them; a
// mutant that opens without an error must hold the same records as the original (the mutation
// hit bytes the file does not use).
#include "core/import/importer.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <random>

using namespace ws;

namespace {

QByteArray readAllBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray sha256(const QString& path)
{
    return QCryptographicHash::hash(readAllBytes(path), QCryptographicHash::Sha256);
}

bool sameRecords(const SessionData& a, const SessionData& b)
{
    return a.kernels == b.kernels && a.memcpys == b.memcpys && a.memsets == b.memsets && a.apiCalls == b.apiCalls
        && a.nvtxRanges == b.nvtxRanges && a.nvtxMarks == b.nvtxMarks && a.syncs == b.syncs
        && a.overheads == b.overheads && a.devices == b.devices && a.processes == b.processes && a.threads == b.threads
        && a.strings.all() == b.strings.all();
}

enum class Mutation { FlipBytes, FlipHeader, Truncate, ZeroPage, RandomPage, CopyPage, PageHeader, Append, Count };

const char* mutationName(Mutation m)
{
    static const char* names[]
        = {"flip bytes", "flip header", "truncate", "zero page", "random page", "copy page", "page header", "append"};
    return names[static_cast<int>(m)];
}

QByteArray mutate(QByteArray bytes, Mutation m, std::mt19937_64& rng)
{
    const auto pick = [&rng](qsizetype n) { return static_cast<qsizetype>(rng() % static_cast<uint64_t>(n)); };
    const qsizetype page = 4096;
    const qsizetype pages = std::max<qsizetype>(1, bytes.size() / page);
    switch (m) {
    case Mutation::FlipBytes:
        for (int i = 0, n = 1 + int(rng() % 16); i < n; ++i)
            bytes[pick(bytes.size())] = char(bytes[pick(bytes.size())] ^ char(1 + rng() % 255));
        break;
    case Mutation::FlipHeader:
        bytes[pick(100)] = char(rng());
        break;
    case Mutation::Truncate:
        bytes.truncate(pick(bytes.size()));
        break;
    case Mutation::ZeroPage:
        bytes.replace(pick(pages) * page, page, QByteArray(page, '\0'));
        break;
    case Mutation::RandomPage: {
        QByteArray noise(page, '\0');
        for (auto& c : noise)
            c = char(rng());
        bytes.replace(pick(pages) * page, page, noise);
        break;
    }
    case Mutation::CopyPage: {
        const QByteArray from = bytes.mid(pick(pages) * page, page);
        bytes.replace(pick(pages) * page, from.size(), from);
        break;
    }
    case Mutation::PageHeader: {
        // The b-tree page header (first bytes of a page, after the file header on page 1).
        const qsizetype p = pick(pages);
        const qsizetype at = p * page + (p == 0 ? 100 : 0) + pick(12);
        if (at < bytes.size())
            bytes[at] = char(rng());
        break;
    }
    case Mutation::Append:
        bytes.append(QByteArray(1 + pick(page * 2), char(rng())));
        break;
    case Mutation::Count:
        break;
    }
    return bytes;
}

} // namespace

class TestImportCorruption : public QObject {
    Q_OBJECT

private slots:
    void thousandMutatedSessions()
    {
        QTemporaryDir dir;
        const QString original = dir.filePath("original.wscope");
        const SessionData source
            = importSession(WS_FIXTURES_DIR "/import/kineto_mm_relu.json", ImportFormat::Kineto, {});
        {
            SessionWriter writer(original.toStdString());
            attachLaneCache(writer);
            writer.write(source);
            writer.commit();
        }
        const QByteArray originalBytes = readAllBytes(original);
        const QByteArray originalHash = sha256(original);
        const SessionData reference = SessionReader(original.toStdString()).readAll();
        QVERIFY(sameRecords(reference, source));

        std::mt19937_64 rng(20261129);
        std::map<SessionError::Kind, int> errors;
        std::map<std::string, int> loadedPerMutation;
        int loaded = 0;
        const QString mutant = dir.filePath("mutant.wscope");
        for (int i = 0; i < 1000; ++i) {
            const auto m = static_cast<Mutation>(i % static_cast<int>(Mutation::Count));
            const QByteArray bytes = mutate(originalBytes, m, rng);
            {
                QFile f(mutant);
                QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
                QCOMPARE(f.write(bytes), bytes.size());
            }
            const QByteArray before = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
            const std::string path = mutant.toStdString();
            const std::string what = "mutant " + std::to_string(i) + " (" + mutationName(m) + ")";
            try {
                SessionReader reader(path);
                const SessionData data = reader.readAll();
                const auto model = TimelineModel::load(reader);
                QVERIFY(model);
                // Opened without complaint: the mutation must have hit bytes nothing reads.
                QVERIFY2(sameRecords(data, reference), (what + " opened with different records").c_str());
                ++loaded;
                ++loadedPerMutation[mutationName(m)];
            } catch (const SessionError& e) {
                QVERIFY2(e.path() == path && !e.reason().empty(), (what + ": " + e.what()).c_str());
                ++errors[e.kind()];
            } catch (const std::exception& e) {
                QFAIL((what + ": not a SessionError: " + e.what()).c_str());
            }
            QVERIFY2(sha256(mutant) == before, (what + " was modified by opening it").c_str());
            if (m == Mutation::Truncate && bytes.size() < originalBytes.size())
                QVERIFY2(loadedPerMutation["truncate"] == 0, (what + ": a truncated file opened").c_str());
        }
        QCOMPARE(sha256(original), originalHash);
        int errorCount = 0;
        QString byKind;
        for (const auto& [kind, n] : errors) {
            errorCount += n;
            byKind += QString(" kind%1=%2").arg(int(kind)).arg(n);
        }
        QString loadedBy;
        for (const auto& [name, n] : loadedPerMutation)
            loadedBy += QString(" %1=%2").arg(QString::fromStdString(name)).arg(n);
        qInfo("1000 mutants: %d SessionErrors (%s), %d opened unchanged (%s), 0 crashes", errorCount,
            qPrintable(byKind.trimmed()), loaded, qPrintable(loadedBy.trimmed()));
        QCOMPARE(errorCount + loaded, 1000);
    }
};

QTEST_GUILESS_MAIN(TestImportCorruption)
#include "tst_import_corruption.moc"

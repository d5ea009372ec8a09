// SPDX-License-Identifier: MIT
#include "ui/session/sessionloader.h"

#include "core/import/importer.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QPromise>
#include <QStandardPaths>
#include <QThreadPool>
#include <QtConcurrent>

namespace ws {

namespace {

constexpr int kProgressSteps = 1000;

QThreadPool* loaderPool()
{
    // Its own pool so a long load never waits behind frame builds (and vice versa).
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool();
        p->setMaxThreadCount(2);
        return p;
    }();
    return pool;
}

// Where an imported trace's session goes: the user's cache, named after the source and a hash of
// its path, size and modification time (a changed source is imported again, not reused).
QString importedSessionPath(const QString& source)
{
    const QFileInfo info(source);
    QDir dir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation));
    dir.mkpath(QStringLiteral("imports"));
    dir.cd(QStringLiteral("imports"));
    const QByteArray key = (info.absoluteFilePath() + QString::number(info.size())
        + QString::number(info.lastModified().toMSecsSinceEpoch()))
                               .toUtf8();
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha1).toHex().left(12));
    return dir.filePath(info.completeBaseName() + QLatin1Char('-') + hash + QStringLiteral(".wscope"));
}

void load(QPromise<LoadResult>& promise, const QString& copyFrom, const QString& path, const QString& shown,
    const CancellationToken& cancel)
{
    promise.setProgressRange(0, kProgressSteps);
    // Phases share the bar: lanes 85%, counters 5%, LOD indices 10%.
    double base = 0.0;
    double weight = 0.85;
    QElapsedTimer sinceReport;
    sinceReport.start();
    const ProgressCallback report = [&](double f, const char* phase) {
        // Callbacks arrive thousands of times; the GUI needs about 30 a second.
        if (sinceReport.elapsed() < 30 && f < 1.0)
            return;
        sinceReport.restart();
        const double total = base + weight * std::clamp(f, 0.0, 1.0);
        promise.setProgressValueAndText(static_cast<int>(total * kProgressSteps), QString::fromUtf8(phase));
    };
    LoadResult result;
    if (!copyFrom.isEmpty()) {
        report(0.0, "copying the session");
        QFile::remove(path);
        if (!QFile::copy(copyFrom, path)) {
            result.error = QStringLiteral("could not copy %1 to %2").arg(copyFrom, path);
            promise.addResult(std::move(result));
            return;
        }
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
    try {
        QElapsedTimer phase;
        phase.start();
        SessionSnapshot::LoadTimes times;
        // A trace of another tool (nsys SQLite, PyTorch/Chrome JSON, ncu CSV, Proton; also
        // gzip-compressed) is imported into a session file in the cache first, then opened like
        // any session; the source file is only read.
        QString sessionPath = path;
        std::unique_ptr<SessionReader> opened;
        try {
            opened = std::make_unique<SessionReader>(path.toStdString());
        } catch (const SessionError& e) {
            if (!SessionLoader::isForeignTrace(path, e))
                throw;
        }
        if (!opened) {
            base = 0.0;
            weight = 0.5;
            sessionPath = importedSessionPath(path);
            ImportOptions options;
            options.progress
                = [&report](double f, const char* what) { report(f, (std::string("importing: ") + what).c_str()); };
            options.cancel = cancel;
            const SessionData data = importSession(path.toStdString(), ImportFormat::Auto, options);
            SessionWriter writer(sessionPath.toStdString());
            attachLaneCache(writer);
            writer.write(data);
            writer.commit();
            opened = std::make_unique<SessionReader>(sessionPath.toStdString());
            base = 0.5;
            weight = 0.35;
        }
        const SessionReader& reader = *opened;
        auto meta = reader.meta();
        times.reader = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        phase.restart();
        auto model = TimelineModel::load(reader, report, cancel);
        times.lanes = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        phase.restart();
        base = 0.85;
        weight = 0.05;
        report(0.0, "reading counters");
        auto counters = loadCounterSeries(reader, cancel);
        times.counters = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        phase.restart();
        base = 0.9;
        weight = 0.1;
        auto built = SessionSnapshot::build(std::move(model), std::move(counters), std::move(meta), report, cancel);
        times.index = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        if (built)
            built->loadTimes = times;
        if (!built || cancel.isCancelled()) {
            result.cancelled = true;
        } else {
            built->path = sessionPath;
            built->displayName = shown;
            built->hasFile = true;
            result.snapshot = std::move(built);
        }
    } catch (const SessionError& e) {
        result.cancelled = e.kind() == SessionError::Kind::Cancelled;
        result.error = QString::fromStdString(e.reason());
    } catch (const std::exception& e) {
        result.error = QString::fromUtf8(e.what());
    }
    if (result.cancelled)
        result.error = QStringLiteral("loading was cancelled");
    promise.addResult(std::move(result));
}

} // namespace

SessionLoader::SessionLoader(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const ws::SessionSnapshot>>();
}

SessionLoader::~SessionLoader()
{
    m_cancel.cancel();
}

void SessionLoader::releaseLater(std::shared_ptr<const SessionSnapshot> snapshot)
{
    if (!snapshot)
        return;
    loaderPool()->start([s = std::move(snapshot)]() mutable { s.reset(); });
}

bool SessionLoader::isForeignTrace(const QString& path, const SessionError& readerError)
{
    // nsys exports are SQLite without Warpscope's meta (NotSession); JSON, CSV and gzip are not
    // SQLite at all (NotSqlite). Anything else, or content no importer recognises, keeps the
    // reader's own message.
    if (readerError.kind() != SessionError::Kind::NotSqlite && readerError.kind() != SessionError::Kind::NotSession)
        return false;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = f.read(64 * 1024);
    if (head.startsWith("\x1f\x8b"))
        return true;
    return detectImportFormat(std::string_view(head.constData(), static_cast<size_t>(head.size())), path.toStdString())
        .has_value();
}

void SessionLoader::cancel()
{
    m_cancel.cancel();
}

void SessionLoader::open(const QString& path, const QString& displayName)
{
    openCopy({}, path, displayName);
}

void SessionLoader::openCopy(const QString& source, const QString& path, const QString& displayName)
{
    if (m_watcher) {
        // The running load finishes in the background; its result is dropped.
        m_cancel.cancel();
        m_watcher->disconnect(this);
        connect(m_watcher, &QFutureWatcherBase::finished, m_watcher, &QObject::deleteLater);
        m_watcher = nullptr;
    }
    m_cancel = CancellationToken();
    m_path = path;
    auto* watcher = new QFutureWatcher<LoadResult>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher](int v) {
        if (watcher == m_watcher)
            emit progress(static_cast<double>(v) / kProgressSteps, watcher->progressText());
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] { finish(watcher); });
    const QString shown = displayName.isEmpty() ? path : displayName;
    watcher->setFuture(QtConcurrent::run(loaderPool(), load, source, path, shown, m_cancel));
    emit started(path);
}

void SessionLoader::finish(QFutureWatcher<LoadResult>* watcher)
{
    watcher->deleteLater();
    if (watcher != m_watcher)
        return;
    m_watcher = nullptr;
    const QFuture<LoadResult> future = watcher->future();
    LoadResult result
        = future.resultCount() > 0 ? future.result() : LoadResult {nullptr, QStringLiteral("no result"), false};
    if (result.snapshot)
        emit loaded(std::move(result.snapshot));
    else
        emit failed(m_path, result.error, result.cancelled);
}

} // namespace ws

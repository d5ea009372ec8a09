// SPDX-License-Identifier: MIT
#include "ui/session/sessionfile.h"

#include "core/import/importer.h"
#include "core/import/sessionimport.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <string>

namespace ws {

namespace {

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

} // namespace

SessionFile::SessionFile(QString path)
    : m_path(std::move(path))
{
}

SessionFile::~SessionFile() = default;

std::shared_ptr<SessionFile> SessionFile::open(
    const QString& path, const ProgressCallback& importProgress, const CancellationToken& cancel)
{
    std::unique_ptr<SessionReader> opened;
    try {
        opened = std::make_unique<SessionReader>(path.toStdString());
    } catch (const SessionError& e) {
        if (!isForeignTrace(path, e))
            throw;
    }
    std::shared_ptr<SessionFile> file;
    if (opened) {
        file.reset(new SessionFile(path));
    } else {
        // The source file is only read; the session goes to the cache.
        const QString sessionPath = importedSessionPath(path);
        ImportOptions options;
        options.progress = importProgress;
        options.cancel = cancel;
        // What `warpscope-cli import` runs: NVTX rows are written on a second thread during the
        // parse, and the session appears under its name only when complete.
        importIntoSession(path.toStdString(), ImportFormat::Auto, options, sessionPath.toStdString());
        opened = std::make_unique<SessionReader>(sessionPath.toStdString());
        file.reset(new SessionFile(sessionPath));
    }
    file->m_readers.emplace(std::this_thread::get_id(), std::move(opened));
    return file;
}

const SessionReader& SessionFile::reader() const
{
    const std::lock_guard lock(m_mutex);
    auto& slot = m_readers[std::this_thread::get_id()];
    if (!slot)
        slot = std::make_unique<SessionReader>(m_path.toStdString());
    return *slot;
}

bool SessionFile::isForeignTrace(const QString& path, const SessionError& readerError)
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

} // namespace ws

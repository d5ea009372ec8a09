// SPDX-License-Identifier: MIT
#pragma once

#include "core/util/cancellation.h"
#include "ui/session/sessionsnapshot.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>

namespace ws {

class SessionError;

// What a load hands back to the GUI thread.
struct LoadResult {
    std::shared_ptr<const SessionSnapshot> snapshot;
    QString error;
    bool cancelled = false;
};

// Opens sessions on a worker thread: SessionReader + TimelineModel::load + LOD indices and
// counters, with progress and cancellation. The GUI thread only receives the finished,
// immutable snapshot (or the error) through QFutureWatcher signals; it never touches the file.
// Traces of other tools (nsys SQLite, PyTorch/Chrome JSON, ncu CSV, Proton, gzip-compressed
// or not) are imported into a session in the user's cache first, then opened the same way.
class SessionLoader : public QObject {
    Q_OBJECT
public:
    explicit SessionLoader(QObject* parent = nullptr);
    ~SessionLoader() override;

    // Starts loading; a load already running is cancelled first. `displayName` is what the
    // user sees (the demo is loaded from a temporary copy).
    void open(const QString& path, const QString& displayName = {});
    // Copies `source` (e.g. a Qt resource: SQLite needs a real file) to `path` on the worker,
    // then opens it.
    void openCopy(const QString& source, const QString& path, const QString& displayName);
    void cancel();
    // True for files another tool wrote that the importers read (open() imports them first),
    // judged from the reader's verdict on `path` and the first bytes.
    static bool isForeignTrace(const QString& path, const SessionError& readerError);
    bool isLoading() const { return m_watcher != nullptr; }
    QString currentPath() const { return m_path; }

    // Destroys a snapshot on a worker thread: freeing gigabytes of lanes takes long enough
    // to stall the GUI if it happened there.
    static void releaseLater(std::shared_ptr<const SessionSnapshot> snapshot);

signals:
    void started(const QString& path);
    void progress(double fraction, const QString& phase);
    void loaded(std::shared_ptr<const ws::SessionSnapshot> snapshot);
    // `cancelled` is true when the user cancelled (no dialog wanted).
    void failed(const QString& path, const QString& reason, bool cancelled);

private:
    void finish(QFutureWatcher<LoadResult>* watcher);

    QFutureWatcher<LoadResult>* m_watcher = nullptr;
    QString m_path;
    CancellationToken m_cancel;
};

} // namespace ws

Q_DECLARE_METATYPE(std::shared_ptr<const ws::SessionSnapshot>)

// SPDX-License-Identifier: MIT
#pragma once

#include "core/util/cancellation.h"

#include <QString>

#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace ws {

class SessionError;
class SessionReader;

// The session file a SessionDocument has open, and the only place in the viewer that opens
// one: a read connection per worker thread (SessionReader is single-threaded), each opened on
// that thread's first read and closed when the last holder lets go of the file. Traces of other
// tools (nsys SQLite, PyTorch/Chrome JSON, ncu CSV, Proton; gzip-compressed or not) are imported
// into a session in the user's cache first, then opened the same way.
class SessionFile {
public:
    // Opens `path` on the calling thread (importing it first when another tool wrote it).
    // Throws SessionError naming the file.
    static std::shared_ptr<SessionFile> open(
        const QString& path, const ProgressCallback& importProgress = {}, const CancellationToken& cancel = {});

    ~SessionFile();
    SessionFile(const SessionFile&) = delete;
    SessionFile& operator=(const SessionFile&) = delete;

    // The session read: `path` itself, or the imported copy in the cache.
    const QString& path() const { return m_path; }
    // The calling thread's read connection. Throws SessionError when it cannot be opened.
    const SessionReader& reader() const;

    // True for files another tool wrote that the importers read, judged from the reader's
    // verdict on `path` and the first bytes.
    static bool isForeignTrace(const QString& path, const SessionError& readerError);

private:
    explicit SessionFile(QString path);

    QString m_path;
    mutable std::mutex m_mutex;
    mutable std::map<std::thread::id, std::unique_ptr<SessionReader>> m_readers;
};

} // namespace ws

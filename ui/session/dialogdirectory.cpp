// SPDX-License-Identifier: MIT
#include "ui/session/dialogdirectory.h"

#include <QDir>
#include <QFileInfo>

namespace ws {

QString dialogDirectory(const QString& openSession, const QString& lastDirectory)
{
    if (!openSession.isEmpty() && !openSession.startsWith(QLatin1String(":/"))) {
        const QFileInfo f(openSession);
        if (f.exists())
            return f.absolutePath();
    }
    if (!lastDirectory.isEmpty() && QFileInfo(lastDirectory).isDir())
        return lastDirectory;
    return QDir::homePath();
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/compare/attemptchain.h"

#include "core/metrics/sessionmeta.h"
#include "core/store/sessionreader.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>

#include <exception>

namespace ws {

namespace {

QString canonical(const QString& path)
{
    const QFileInfo info(path);
    const QString c = info.canonicalFilePath();
    return c.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : c;
}

} // namespace

AttemptChain AttemptChain::resolve(const QString& newest)
{
    AttemptChain chain;
    QStringList seen;
    QString path = QFileInfo(newest).absoluteFilePath();
    while (!path.isEmpty() && chain.size() < kMaxAttempts) {
        Attempt attempt {path, {}};
        QString next;
        if (seen.contains(canonical(path)))
            break; // a loop: every attempt is listed once
        if (!QFileInfo::exists(path)) {
            attempt.error = QObject::tr("missing");
        } else {
            try {
                const SessionReader reader(path.toStdString());
                const auto meta = reader.meta();
                const auto it = meta.find(metakey::kPredecessor);
                if (it != meta.end())
                    next = QString::fromStdString(it->second);
            } catch (const std::exception& e) {
                attempt.error = QObject::tr("cannot be read: %1").arg(QString::fromUtf8(e.what()));
            }
        }
        seen << canonical(path);
        chain.attempts.push_back(attempt);
        if (!attempt.ok())
            break;
        path = next;
    }
    return chain;
}

int AttemptChain::indexOf(const QString& path) const
{
    const QString wanted = canonical(path);
    for (size_t i = 0; i < attempts.size(); ++i) {
        if (canonical(attempts[i].path) == wanted)
            return static_cast<int>(i);
    }
    return -1;
}

bool AttemptChain::hasPair(int index) const
{
    return index >= 0 && index + 1 < size() && attempts[static_cast<size_t>(index)].ok()
        && attempts[static_cast<size_t>(index) + 1].ok();
}

QString AttemptChain::describe(int current) const
{
    if (size() < 2 || current < 0 || current >= size())
        return {};
    QStringList names;
    for (const Attempt& a : attempts) {
        const QString name = QFileInfo(a.path).fileName();
        names << (a.ok() ? name : QObject::tr("%1 (%2: %3)").arg(name, a.error, a.path));
    }
    return QObject::tr("attempt %1 of %2: %3").arg(size() - current).arg(size()).arg(names.join(QStringLiteral(" ← ")));
}

} // namespace ws

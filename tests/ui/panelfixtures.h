// SPDX-License-Identifier: MIT
#pragma once

// Real H200 sessions for the panel tests: the snapshot the main window would build and the
// panels' own data, both read from the fixture file.

#include "core/store/sessionreader.h"
#include "ui/panels/paneldata.h"
#include "ui/session/sessionfile.h"
#include "ui/session/sessionsnapshot.h"

#include <QElapsedTimer>
#include <QString>
#include <QTest>

#include <functional>
#include <memory>

namespace ws::test {

inline QString fixturePath(const char* rel)
{
    return QStringLiteral(WS_FIXTURES_DIR "/") + QString::fromLatin1(rel);
}

inline std::shared_ptr<const SessionSnapshot> snapshotOf(const QString& path)
{
    const SessionReader reader(path.toStdString());
    auto snapshot = SessionSnapshot::build(TimelineModel::load(reader), loadCounterSeries(reader), reader.meta());
    snapshot->path = path;
    snapshot->displayName = path;
    snapshot->hasFile = true;
    snapshot->kernelLinks = reader.readKernelLinks();
    return snapshot;
}

// The panels' data as the SessionDocument reads it, through a SessionFile of its own.
inline std::shared_ptr<PanelData> panelDataOf(const QString& path)
{
    return PanelData::load(SessionFile::open(path));
}

inline bool waitUntil(const std::function<bool()>& condition, int ms = 30000)
{
    return QTest::qWaitFor(condition, ms);
}

} // namespace ws::test

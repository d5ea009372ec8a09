// SPDX-License-Identifier: MIT
#pragma once

#include "core/timeline/timelinemodel.h"
#include "ui/session/sessionsnapshot.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

#include <memory>

namespace ws {

class BackgroundJob;
class SessionFile;
class SessionReader;

// Everything about one event beyond what its lane holds (name, start, end): read from the
// session by rowid on a worker thread, never per frame.
struct EventDetails {
    EventRef ref;
    int lane = -1;
    quint32 index = 0;
    bool found = false;
    QString error;
    QString name;
    TimeNs start = 0;
    TimeNs end = 0;
    QList<QPair<QString, QString>> fields; // ordered: label, value (with unit)

    // GPU work: the launching API call (same process and correlation id), and CUPTI's
    // queued/submitted stamps when it recorded them. API calls: the GPU work they launched.
    uint32_t correlationId = 0;
    TimeNs queued = 0;
    TimeNs submitted = 0;
    int linkLane = -1;
    quint32 linkIndex = 0;
    TimeNs linkStart = 0;
    TimeNs linkEnd = 0;
    QString linkName;
};

// Answers "tell me about event (lane, index)" asynchronously, on a worker thread with that
// thread's connection to the document's file. Each channel (hover, selection) keeps only its
// newest request: moving the mouse over a thousand events costs one query, not a thousand.
// The SessionDocument owns it and gives it each session it opens.
class EventDetailsSource : public QObject {
    Q_OBJECT
public:
    enum Channel { Hover = 0, Selection = 1, ChannelCount };

    explicit EventDetailsSource(QObject* parent = nullptr);
    ~EventDetailsSource() override;

    // The session the requests are about; `file` is null for sessions that exist only in
    // memory (the details then hold what the lane knows).
    void setSession(std::shared_ptr<const SessionSnapshot> snapshot, std::shared_ptr<const SessionFile> file);
    void request(Channel channel, int lane, quint32 index);
    // Details already fetched (GUI thread), or nullptr.
    const EventDetails* cached(int lane, quint32 index) const;

signals:
    void detailsReady(int channel, const ws::EventDetails& details);

private:
    std::shared_ptr<const SessionSnapshot> m_snapshot;
    std::shared_ptr<const SessionFile> m_file;
    BackgroundJob* m_jobs[ChannelCount] = {};
    QHash<quint64, EventDetails> m_cache;
};

// Synchronous lookup used by the worker (and tests): reads the row behind lanes[lane][index]
// through `reader` (a connection to snapshot.path; null: only what the lane knows) and finds
// the correlated event.
EventDetails queryEventDetails(const SessionReader* reader, const SessionSnapshot& snapshot, int lane, quint32 index);

} // namespace ws

Q_DECLARE_METATYPE(ws::EventDetails)

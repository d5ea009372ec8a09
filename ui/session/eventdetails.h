// SPDX-License-Identifier: MIT
#pragma once

#include "core/timeline/timelinemodel.h"
#include "ui/session/sessionsnapshot.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

#include <atomic>
#include <memory>

class QThread;
struct sqlite3;

namespace ws {

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

// Answers "tell me about event (lane, index)" asynchronously, on its own thread with its own
// read-only connection to the session. Each channel (hover, selection) keeps only its newest
// request: moving the mouse over a thousand events costs one query, not a thousand.
class EventDetailsSource : public QObject {
    Q_OBJECT
public:
    enum Channel { Hover = 0, Selection = 1, ChannelCount };

    explicit EventDetailsSource(QObject* parent = nullptr);
    ~EventDetailsSource() override;

    void setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot);
    void request(Channel channel, int lane, quint32 index);
    // Details already fetched (GUI thread), or nullptr.
    const EventDetails* cached(int lane, quint32 index) const;

signals:
    void detailsReady(int channel, const ws::EventDetails& details);

private:
    class Worker;
    void deliver(int channel, quint64 serial, const EventDetails& details);

    std::shared_ptr<const SessionSnapshot> m_snapshot;
    QThread* m_thread = nullptr;
    Worker* m_worker = nullptr;
    std::shared_ptr<std::atomic<quint64>> m_serial[ChannelCount];
    QHash<quint64, EventDetails> m_cache;
};

// Synchronous lookup used by the worker (and tests): reads the row behind lanes[lane][index]
// through `db` (a read-only connection to snapshot.path) and finds the correlated event.
EventDetails queryEventDetails(::sqlite3* db, const SessionSnapshot& snapshot, int lane, quint32 index);

} // namespace ws

Q_DECLARE_METATYPE(ws::EventDetails)

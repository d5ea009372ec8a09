// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/selectionmodel.h"
#include "ui/session/sessionsnapshot.h"

#include <QObject>

#include <memory>
#include <vector>

namespace ws {

class BackgroundJob;

// Finds kernels, NVTX ranges and any other event by name (case-insensitive substring) and
// steps through the occurrences in time order, across all lanes. Matching and scanning run
// on a worker thread: a rare name in 100M events costs a full scan, never a frozen window.
class EventSearch : public QObject {
    Q_OBJECT
public:
    struct Position {
        TimeNs start = 0;
        int lane = -1;
        quint32 index = 0;
    };

    explicit EventSearch(QObject* parent = nullptr);
    ~EventSearch() override;

    void setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot);
    void setQuery(const QString& text);
    QString query() const { return m_query; }

    // Steps from `from` (the selected event, or the view start) to the next / previous
    // occurrence, wrapping around at the ends.
    void next(const Position& from);
    void previous(const Position& from);

    // Synchronous core, for the worker and the tests.
    static std::vector<char> matchNames(const SessionSnapshot& s, const QString& text);
    static bool step(const SessionSnapshot& s, const std::vector<char>& match, const Position& from, bool forward,
        Position* found, const CancellationToken& cancel = {});
    static qint64 countMatches(
        const SessionSnapshot& s, const std::vector<char>& match, const CancellationToken& cancel = {});
    // 1-based position of the occurrence at `p` among all occurrences in (start, lane, index)
    // order: what "3 of 48" says. 0 when cancelled.
    static qint64 ordinalOf(const SessionSnapshot& s, const std::vector<char>& match, const Position& p,
        const CancellationToken& cancel = {});

signals:
    // After setQuery: how many distinct names and events match.
    void queryCounted(int names, qint64 events);
    // Emitted right before found(): the occurrence's 1-based position in time order.
    void foundAt(qint64 ordinal);
    void found(const ws::EventSelection& event);
    void notFound(const QString& query);

private:
    void run(const Position& from, bool forward);

    std::shared_ptr<const SessionSnapshot> m_snapshot;
    QString m_query;
    std::shared_ptr<const std::vector<char>> m_match;
    // Counting the query's matches, and stepping to the next one: a new query (or snapshot)
    // drops both runs' results, a new step the older step's.
    BackgroundJob* m_count;
    BackgroundJob* m_step;
};

} // namespace ws

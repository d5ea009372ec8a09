// SPDX-License-Identifier: MIT
#include "ui/timeline/eventsearch.h"

#include <QPointer>
#include <QtConcurrent>

#include <algorithm>

namespace ws {

namespace {

// (start, lane, index) orders every event of the session, equal starts included.
bool before(const EventSearch::Position& a, const EventSearch::Position& b)
{
    return std::tie(a.start, a.lane, a.index) < std::tie(b.start, b.lane, b.index);
}

} // namespace

EventSearch::EventSearch(QObject* parent)
    : QObject(parent)
{
}

EventSearch::~EventSearch()
{
    m_cancel.cancel();
}

void EventSearch::setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_cancel.cancel();
    m_cancel = CancellationToken();
    m_snapshot = std::move(snapshot);
    const QString q = m_query;
    m_query.clear();
    setQuery(q);
}

std::vector<char> EventSearch::matchNames(const SessionSnapshot& s, const QString& text)
{
    std::vector<char> match;
    if (!s.model || text.trimmed().isEmpty())
        return match;
    const QByteArray needle = text.trimmed().toUtf8().toLower();
    const auto& all = s.model->strings.all();
    match.assign(all.size(), 0);
    for (size_t i = 1; i < all.size(); ++i) {
        const QByteArray hay = QByteArray::fromRawData(all[i].data(), static_cast<qsizetype>(all[i].size())).toLower();
        match[i] = hay.contains(needle) ? 1 : 0;
    }
    return match;
}

qint64 EventSearch::countMatches(
    const SessionSnapshot& s, const std::vector<char>& match, const CancellationToken& cancel)
{
    qint64 n = 0;
    if (match.empty())
        return 0;
    for (const auto& lane : s.model->lanes) {
        if (cancel.isCancelled())
            return n;
        for (const StringId id : lane.name)
            n += (id < match.size() && match[id]) ? 1 : 0;
    }
    return n;
}

bool EventSearch::step(const SessionSnapshot& s, const std::vector<char>& match, const Position& from, bool forward,
    Position* found, const CancellationToken& cancel)
{
    if (match.empty() || !s.model)
        return false;
    const auto& lanes = s.model->lanes;
    const auto isMatch = [&](const TimelineLane& l, size_t k) { return l.name[k] < match.size() && match[l.name[k]]; };
    bool have = false;
    Position best;
    // Per lane: the nearest occurrence strictly after (before) `from`; the nearest of those wins.
    for (size_t li = 0; li < lanes.size(); ++li) {
        if (cancel.isCancelled())
            return false;
        const TimelineLane& l = lanes[li];
        if (l.size() == 0)
            continue;
        const Position self {0, static_cast<int>(li), 0};
        if (forward) {
            auto k
                = static_cast<size_t>(std::lower_bound(l.start.begin(), l.start.end(), from.start) - l.start.begin());
            for (; k < l.size(); ++k) {
                const Position p {l.start[k], self.lane, static_cast<quint32>(k)};
                if (have && !before(p, best))
                    break; // cannot beat what another lane found
                if (before(from, p) && isMatch(l, k)) {
                    best = p;
                    have = true;
                    break;
                }
            }
        } else {
            auto k
                = static_cast<int64_t>(std::upper_bound(l.start.begin(), l.start.end(), from.start) - l.start.begin())
                - 1;
            for (; k >= 0; --k) {
                const Position p {l.start[static_cast<size_t>(k)], self.lane, static_cast<quint32>(k)};
                if (have && !before(best, p))
                    break;
                if (before(p, from) && isMatch(l, static_cast<size_t>(k))) {
                    best = p;
                    have = true;
                    break;
                }
            }
        }
    }
    if (have)
        *found = best;
    return have;
}

void EventSearch::setQuery(const QString& text)
{
    if (text == m_query)
        return;
    m_query = text;
    m_match.reset();
    m_cancel.cancel();
    m_cancel = CancellationToken();
    if (!m_snapshot || text.trimmed().isEmpty()) {
        emit queryCounted(0, 0);
        return;
    }
    const quint64 serial = ++m_serial;
    auto snapshot = m_snapshot;
    const CancellationToken cancel = m_cancel;
    auto* watcher = new QFutureWatcher<std::pair<std::shared_ptr<const std::vector<char>>, qint64>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, serial] {
        watcher->deleteLater();
        if (serial != m_serial || watcher->future().resultCount() == 0)
            return;
        const auto [match, count] = watcher->future().result();
        m_match = match;
        int names = 0;
        for (const char c : *match)
            names += c ? 1 : 0;
        emit queryCounted(names, count);
    });
    watcher->setFuture(QtConcurrent::run([snapshot, text, cancel] {
        auto match = std::make_shared<const std::vector<char>>(matchNames(*snapshot, text));
        const qint64 count = countMatches(*snapshot, *match, cancel);
        return std::make_pair(std::shared_ptr<const std::vector<char>>(match), count);
    }));
}

void EventSearch::next(const Position& from)
{
    run(from, true);
}

void EventSearch::previous(const Position& from)
{
    run(from, false);
}

void EventSearch::run(const Position& from, bool forward)
{
    if (!m_snapshot || m_query.trimmed().isEmpty())
        return;
    auto snapshot = m_snapshot;
    const QString text = m_query;
    auto match = m_match;
    const CancellationToken cancel = m_cancel;
    const quint64 serial = m_serial;
    auto* watcher = new QFutureWatcher<std::pair<bool, Position>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, serial, snapshot, text] {
        watcher->deleteLater();
        if (serial != m_serial || watcher->future().resultCount() == 0)
            return;
        const auto [ok, p] = watcher->future().result();
        if (!ok) {
            emit notFound(text);
            return;
        }
        const TimelineLane& l = snapshot->model->lanes[static_cast<size_t>(p.lane)];
        EventSelection e;
        e.lane = p.lane;
        e.index = p.index;
        e.ref = l.ref[p.index];
        e.start = l.start[p.index];
        e.end = l.end[p.index];
        e.name = snapshot->qstr(l.name[p.index]);
        emit found(e);
    });
    watcher->setFuture(QtConcurrent::run([snapshot, text, match, from, forward, cancel] {
        const std::vector<char> m = match ? *match : matchNames(*snapshot, text);
        Position p;
        if (step(*snapshot, m, from, forward, &p, cancel))
            return std::make_pair(true, p);
        // Wrap around: from before the first event (or after the last one).
        const Position edge = forward ? Position {std::numeric_limits<TimeNs>::min(), -1, 0}
                                      : Position {std::numeric_limits<TimeNs>::max(), INT_MAX, 0};
        if (step(*snapshot, m, edge, forward, &p, cancel))
            return std::make_pair(true, p);
        return std::make_pair(false, Position {});
    }));
}

} // namespace ws

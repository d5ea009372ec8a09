// SPDX-License-Identifier: MIT
#include "ui/timeline/eventsearch.h"

#include "ui/session/backgroundjob.h"

#include <algorithm>
#include <climits>
#include <limits>

namespace ws {

namespace {

// (start, lane, index) orders every event of the session, equal starts included.
bool before(const EventSearch::Position& a, const EventSearch::Position& b)
{
    return std::tie(a.start, a.lane, a.index) < std::tie(b.start, b.lane, b.index);
}

QThreadPool* searchPool()
{
    // Two threads: a step need not wait behind the count of a query just typed.
    return BackgroundJob::pool("event search", 2);
}

} // namespace

EventSearch::EventSearch(QObject* parent)
    : QObject(parent)
    , m_count(new BackgroundJob(searchPool(), this))
    , m_step(new BackgroundJob(searchPool(), this))
{
}

EventSearch::~EventSearch() = default;

void EventSearch::setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_count->discard();
    m_step->discard();
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
    m_step->discard(); // it steps through the old query's matches
    if (!m_snapshot || text.trimmed().isEmpty()) {
        m_count->discard();
        emit queryCounted(0, 0);
        return;
    }
    using Counted = std::pair<std::shared_ptr<const std::vector<char>>, qint64>;
    m_count->start(
        [snapshot = m_snapshot, text](const BackgroundJob::Context& context) {
            auto match = std::make_shared<const std::vector<char>>(matchNames(*snapshot, text));
            const qint64 count = countMatches(*snapshot, *match, context.cancel);
            return Counted(std::move(match), count);
        },
        [this](Counted counted) {
            m_match = std::move(counted.first);
            int names = 0;
            for (const char c : *m_match)
                names += c ? 1 : 0;
            emit queryCounted(names, counted.second);
        });
}

void EventSearch::next(const Position& from)
{
    run(from, true);
}

void EventSearch::previous(const Position& from)
{
    run(from, false);
}

qint64 EventSearch::ordinalOf(
    const SessionSnapshot& s, const std::vector<char>& match, const Position& p, const CancellationToken& cancel)
{
    if (match.empty() || !s.model)
        return 0;
    qint64 earlier = 0;
    const auto& lanes = s.model->lanes;
    for (size_t li = 0; li < lanes.size(); ++li) {
        if (cancel.isCancelled())
            return 0;
        const TimelineLane& l = lanes[li];
        const int lane = static_cast<int>(li);
        // Lanes are sorted by start: only events up to p.start can come before p.
        const auto end
            = static_cast<size_t>(std::upper_bound(l.start.begin(), l.start.end(), p.start) - l.start.begin());
        for (size_t k = 0; k < end; ++k) {
            const Position q {l.start[k], lane, static_cast<quint32>(k)};
            if (l.name[k] < match.size() && match[l.name[k]] && before(q, p))
                ++earlier;
        }
    }
    return earlier + 1;
}

void EventSearch::run(const Position& from, bool forward)
{
    if (!m_snapshot || m_query.trimmed().isEmpty())
        return;
    auto snapshot = m_snapshot;
    const QString text = m_query;
    struct Step {
        bool ok = false;
        Position p;
        qint64 ordinal = 0;
    };
    m_step->start(
        [snapshot, text, match = m_match, from, forward](const BackgroundJob::Context& context) {
            const std::vector<char> m = match ? *match : matchNames(*snapshot, text);
            Step r;
            r.ok = step(*snapshot, m, from, forward, &r.p, context.cancel);
            if (!r.ok) {
                // Wrap around: from before the first event (or after the last one).
                const Position edge = forward ? Position {std::numeric_limits<TimeNs>::min(), -1, 0}
                                              : Position {std::numeric_limits<TimeNs>::max(), INT_MAX, 0};
                r.ok = step(*snapshot, m, edge, forward, &r.p, context.cancel);
            }
            if (r.ok)
                r.ordinal = ordinalOf(*snapshot, m, r.p, context.cancel);
            return r;
        },
        [this, snapshot, text](Step result) {
            if (!result.ok) {
                emit notFound(text);
                return;
            }
            const Position p = result.p;
            emit foundAt(result.ordinal);
            const TimelineLane& l = snapshot->model->lanes[static_cast<size_t>(p.lane)];
            EventSelection e;
            e.lane = p.lane;
            e.index = p.index;
            e.ref = l.ref[p.index];
            e.start = l.start[p.index];
            e.end = l.endAt(p.index);
            e.name = snapshot->qstr(l.name[p.index]);
            emit found(e);
        });
}

} // namespace ws

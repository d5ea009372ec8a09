// SPDX-License-Identifier: MIT
#include "ui/timeline/framescheduler.h"

#include <QThreadPool>
#include <QtConcurrent>

namespace ws {

namespace {

QThreadPool* framePool()
{
    // Frame builds get their own pool: a session load or a search scan on the global pool
    // must never delay the next frame.
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool();
        p->setMaxThreadCount(1);
        return p;
    }();
    return pool;
}

} // namespace

FrameScheduler::FrameScheduler(RequestFactory makeRequest, StaleCheck stale, QObject* parent)
    : QObject(parent)
    , m_makeRequest(std::move(makeRequest))
    , m_stale(std::move(stale))
{
}

FrameScheduler::~FrameScheduler()
{
    shutdown();
}

void FrameScheduler::request()
{
    if (m_watcher) {
        m_dirty = true; // coalesce: one build in flight, the newest state goes next
        return;
    }
    start();
}

void FrameScheduler::cancel()
{
    m_cancel.cancel();
}

void FrameScheduler::shutdown()
{
    m_cancel.cancel();
    if (m_watcher) {
        m_watcher->disconnect(this);
        m_watcher->waitForFinished();
        delete m_watcher;
        m_watcher = nullptr;
    }
    m_dirty = false;
}

void FrameScheduler::start()
{
    m_dirty = false;
    std::optional<FrameRequest> made = m_makeRequest();
    if (!made)
        return;
    m_cancel = CancellationToken();
    FrameRequest req = std::move(*made);
    req.generation = ++m_generation;
    req.cancel = m_cancel;
    auto* watcher = new QFutureWatcher<std::shared_ptr<TimelineFrame>>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::finished, this, &FrameScheduler::onFinished);
    watcher->setFuture(QtConcurrent::run(framePool(), [req = std::move(req)] { return buildTimelineFrame(req); }));
}

void FrameScheduler::onFinished()
{
    auto* watcher = m_watcher;
    m_watcher = nullptr;
    if (!watcher)
        return;
    watcher->deleteLater();
    std::shared_ptr<TimelineFrame> f = watcher->future().resultCount() ? watcher->future().result() : nullptr;
    emit frameBuilt(std::move(f));
    if (m_dirty || (m_stale && m_stale()))
        request();
}

} // namespace ws

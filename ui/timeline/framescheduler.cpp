// SPDX-License-Identifier: MIT
#include "ui/timeline/framescheduler.h"

#include "ui/session/backgroundjob.h"

#include <QtGlobal>

namespace ws {

namespace {

QThreadPool* framePool()
{
    // Frame builds get their own pool: a session load or a search scan elsewhere must never
    // delay the next frame. One thread: builds of one view never overlap anyway.
    return BackgroundJob::pool("timeline frames", 1);
}

} // namespace

FrameScheduler::FrameScheduler(RequestFactory makeRequest, StaleCheck stale, QObject* parent)
    : QObject(parent)
    , m_makeRequest(std::move(makeRequest))
    , m_stale(std::move(stale))
    , m_job(new BackgroundJob(framePool(), this))
{
}

FrameScheduler::~FrameScheduler()
{
    shutdown();
}

bool FrameScheduler::isBuilding() const
{
    return m_job->isRunning();
}

quint64 FrameScheduler::generation() const
{
    return m_job->generation();
}

void FrameScheduler::request()
{
    if (m_job->isRunning()) {
        m_dirty = true; // coalesce: one build in flight, the newest state goes next
        return;
    }
    start();
}

void FrameScheduler::cancel()
{
    m_job->cancel();
}

void FrameScheduler::shutdown()
{
    // The build paints with the application's fonts: it must not outlive the view.
    m_job->discard();
    m_job->wait();
    m_dirty = false;
}

void FrameScheduler::start()
{
    m_dirty = false;
    std::optional<FrameRequest> made = m_makeRequest();
    if (!made)
        return;
    m_job->start(
        [req = std::move(*made)](const BackgroundJob::Context& context) mutable -> std::shared_ptr<TimelineFrame> {
            req.generation = context.generation;
            req.cancel = context.cancel;
            try {
                return buildTimelineFrame(req);
            } catch (const std::exception& e) {
                // Delivered as "no frame", so the scheduler is never left waiting on a build.
                qWarning("timeline frame build failed: %s", e.what());
                return nullptr;
            }
        },
        [this](std::shared_ptr<TimelineFrame> frame) { onBuilt(std::move(frame)); });
}

void FrameScheduler::onBuilt(std::shared_ptr<TimelineFrame> frame)
{
    emit frameBuilt(std::move(frame));
    if (m_dirty || (m_stale && m_stale()))
        request();
}

} // namespace ws

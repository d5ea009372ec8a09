// SPDX-License-Identifier: MIT
#pragma once

#include "ui/timeline/timelineframe.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace ws {

class BackgroundJob;

// Builds timeline frames off the GUI thread: at most one build in flight on the one-thread
// "timeline frames" pool, newer requests coalesce into one follow-up build, cancel() abandons
// the running one (a new session), and every build carries its job's generation. The request
// is made when the build starts (makeRequest), so it always describes the newest view.
class FrameScheduler : public QObject {
    Q_OBJECT
public:
    // The request for the newest state; nullopt when there is nothing to draw (no session).
    using RequestFactory = std::function<std::optional<FrameRequest>()>;
    // After a frame arrives: true when the shown frame no longer matches the view (a build
    // for the newest state follows).
    using StaleCheck = std::function<bool()>;

    FrameScheduler(RequestFactory makeRequest, StaleCheck stale, QObject* parent = nullptr);
    ~FrameScheduler() override;

    // Starts a build now, or marks one to follow the build in flight.
    void request();
    // Cancels the build in flight (its frame, if any, still arrives: the receiver checks it).
    void cancel();
    // Cancels and waits for the build in flight, without delivering it (the owner goes away).
    void shutdown();

    bool isBuilding() const;
    // The newest build's generation (0 before the first; a shutdown also moves it on).
    quint64 generation() const;

signals:
    // A finished build (nullptr when it was cancelled).
    void frameBuilt(std::shared_ptr<ws::TimelineFrame> frame);

private:
    void start();
    void onBuilt(std::shared_ptr<TimelineFrame> frame);

    RequestFactory m_makeRequest;
    StaleCheck m_stale;
    BackgroundJob* m_job;
    bool m_dirty = false;
};

} // namespace ws

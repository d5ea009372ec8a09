// SPDX-License-Identifier: MIT
#include "ui/session/backgroundjob.h"

#include <QDateTime>
#include <QDebug>
#include <QMetaObject>
#include <QThreadPool>

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

namespace ws {

// What the worker side shares with the job object: the generation it must match and the
// object to post to, cleared (under the mutex) when the object goes away, and how many runs
// are queued or running (wait() sleeps on `idle` until none is).
struct BackgroundJobShared {
    std::mutex mutex;
    BackgroundJob* owner = nullptr;
    std::atomic<quint64> generation {0};
    int active = 0;
    std::condition_variable idle;
};

BackgroundJob::BackgroundJob(QThreadPool* pool, QObject* parent)
    : QObject(parent)
    , m_pool(pool)
    , m_shared(std::make_shared<BackgroundJobShared>())
{
    m_shared->owner = this;
}

BackgroundJob::~BackgroundJob()
{
    m_cancel.cancel();
    const std::lock_guard lock(m_shared->mutex);
    m_shared->owner = nullptr;
}

QThreadPool* BackgroundJob::pool(const char* name, int threads)
{
    // Leaked on purpose: work still running at exit must find its pool. The map is leaked too,
    // so the pools stay reachable (a static map's destructor would orphan them: LeakSanitizer).
    static std::mutex mutex;
    static auto* pools = new std::map<std::string, QThreadPool*>();
    const std::lock_guard lock(mutex);
    QThreadPool*& p = (*pools)[name];
    if (!p) {
        p = new QThreadPool();
        p->setMaxThreadCount(threads);
        p->setObjectName(QString::fromLatin1(name));
    }
    return p;
}

quint64 BackgroundJob::generation() const
{
    return m_shared->generation.load();
}

BackgroundJob::Context BackgroundJob::begin()
{
    m_cancel.cancel(); // the previous run is discarded: stop it early
    m_cancel = CancellationToken();
    m_running = true;
    Context c;
    c.cancel = m_cancel;
    c.generation = m_shared->generation.fetch_add(1) + 1;
    c.m_shared = m_shared;
    c.m_lastReport = std::make_shared<std::atomic<qint64>>(0);
    return c;
}

void BackgroundJob::cancel()
{
    m_cancel.cancel();
}

void BackgroundJob::discard()
{
    m_cancel.cancel();
    m_shared->generation.fetch_add(1);
    m_running = false;
}

bool BackgroundJob::isStale(const std::shared_ptr<BackgroundJobShared>& shared, quint64 generation)
{
    return shared->generation.load() != generation;
}

void BackgroundJob::wait()
{
    std::unique_lock lock(m_shared->mutex);
    m_shared->idle.wait(lock, [this] { return m_shared->active == 0; });
}

void BackgroundJob::run(std::function<void()> task)
{
    {
        const std::lock_guard lock(m_shared->mutex);
        ++m_shared->active;
    }
    m_pool->start([task = std::move(task), shared = m_shared] {
        try {
            task();
        } catch (const std::exception& e) {
            qWarning("background work failed: %s", e.what());
        }
        const std::lock_guard lock(shared->mutex);
        if (--shared->active == 0)
            shared->idle.notify_all();
    });
}

void BackgroundJob::post(
    const std::shared_ptr<BackgroundJobShared>& shared, quint64 generation, std::function<void()> fn)
{
    const std::lock_guard lock(shared->mutex);
    if (!shared->owner || shared->generation.load() != generation)
        return;
    BackgroundJob* owner = shared->owner;
    // Checked again on the owner's thread: a start() or cancel() may come between.
    QMetaObject::invokeMethod(
        owner,
        [owner, shared, generation, fn = std::move(fn)] {
            if (shared->generation.load() != generation)
                return;
            owner->m_running = false;
            fn();
            emit owner->finished();
        },
        Qt::QueuedConnection);
}

void BackgroundJob::Context::progress(double fraction, const QString& phase) const
{
    // Callers report thousands of times; the GUI needs about 30 a second.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (fraction < 1.0 && now - m_lastReport->load() < 30)
        return;
    m_lastReport->store(now);
    const std::lock_guard lock(m_shared->mutex);
    BackgroundJob* owner = m_shared->owner;
    if (!owner || m_shared->generation.load() != generation)
        return;
    QMetaObject::invokeMethod(
        owner,
        [owner, shared = m_shared, gen = generation, fraction, phase] {
            if (shared->generation.load() == gen)
                emit owner->progress(fraction, phase);
        },
        Qt::QueuedConnection);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/util/cancellation.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

class QThreadPool;

namespace ws {

struct BackgroundJobShared;

// One kind of background work of one owner (loading a session, a stats report, the details of
// the hovered event): each start() cancels the run before it and bumps the generation, the
// work runs on a pool thread with a cancellation token and a progress callback, and its result
// comes back on the owner's (GUI) thread only if no newer run started meanwhile. Stale results
// are dropped, so callers never compare serials themselves. The work must capture values, not
// the owner: it may finish after the owner is gone (its result is then dropped).
class BackgroundJob : public QObject {
    Q_OBJECT
public:
    // What the work sees. progress() may be called often: the GUI gets about 30 updates a
    // second, and only those of the current generation.
    class Context {
    public:
        CancellationToken cancel;
        quint64 generation = 0;
        void progress(double fraction, const QString& phase) const;

    private:
        friend class BackgroundJob;
        std::shared_ptr<BackgroundJobShared> m_shared;
        std::shared_ptr<std::atomic<qint64>> m_lastReport;
    };

    // `pool` runs the work (see pool()); it must outlive every run.
    explicit BackgroundJob(QThreadPool* pool, QObject* parent = nullptr);
    ~BackgroundJob() override;

    // A process-wide pool of `threads` threads for one purpose (`name`), created on first use:
    // a long session load never waits behind a frame build or a stats report, and vice versa.
    static QThreadPool* pool(const char* name, int threads);

    // Runs `work(const Context&) -> R` on the pool, then `deliver(R)` on this object's thread
    // unless discard() or another start() came first. Returns the run's generation. `work`
    // reports failures in R (an exception escaping it is logged and the run delivers nothing).
    template <class Work, class Deliver> quint64 start(Work work, Deliver deliver)
    {
        using R = std::invoke_result_t<Work&, const Context&>;
        const Context context = begin();
        auto shared = m_shared;
        run([context, shared, work = std::move(work), deliver = std::move(deliver)]() mutable {
            if (isStale(shared, context.generation))
                return; // discarded while it waited for a thread
            auto result = std::make_shared<R>(work(context));
            post(shared, context.generation,
                [deliver = std::move(deliver), result]() mutable { deliver(std::move(*result)); });
        });
        return context.generation;
    }

    // Asks the running work to stop (its token fires); what it returns, typically "cancelled",
    // is still delivered.
    void cancel();
    // Asks the running work to stop and drops its result.
    void discard();
    // A run started and its result not delivered yet.
    bool isRunning() const { return m_running; }
    // Blocks until the work of every run started so far has returned; a result still current
    // is delivered later by the event loop as usual. For an owner whose work must not outlive
    // it (a frame build paints with the application's fonts): discard(), then wait().
    void wait();
    quint64 generation() const;

signals:
    void progress(double fraction, const QString& phase);
    // After the current run's result was delivered.
    void finished();

private:
    Context begin();
    static bool isStale(const std::shared_ptr<BackgroundJobShared>& shared, quint64 generation);
    void run(std::function<void()> task);
    static void post(const std::shared_ptr<BackgroundJobShared>& shared, quint64 generation, std::function<void()> fn);

    QThreadPool* m_pool;
    std::shared_ptr<BackgroundJobShared> m_shared;
    CancellationToken m_cancel;
    bool m_running = false;
};

} // namespace ws

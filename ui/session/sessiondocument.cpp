// SPDX-License-Identifier: MIT
#include "ui/session/sessiondocument.h"

#include "core/analysis/sessiondependencies.h"
#include "core/iket/warplaneprovider.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "ui/session/backgroundjob.h"
#include "ui/session/eventdetails.h"
#include "ui/session/sessionfile.h"

#include <QElapsedTimer>
#include <QFile>
#include <QThreadPool>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>

namespace ws {

// What the snapshot stage hands back to the GUI thread.
struct SessionLoad {
    std::shared_ptr<const SessionSnapshot> snapshot;
    std::shared_ptr<const SessionFile> file;
    QString error;
    bool cancelled = false;
};

namespace {

// Its own pool so a long load never waits behind frame builds (and vice versa).
QThreadPool* loadPool()
{
    return BackgroundJob::pool("session load", 2);
}

// Separate from the timeline's pools: the panels' read never delays a frame.
QThreadPool* panelPool()
{
    return BackgroundJob::pool("panel data", 1);
}

// The test hook (setLoadHookForTests): set on the GUI thread, read by load workers.
std::mutex gLoadHookMutex;
SessionDocument::LoadHook gLoadHook;

SessionDocument::LoadHook loadHook()
{
    const std::lock_guard lock(gLoadHookMutex);
    return gLoadHook;
}

// The snapshot stage, on a worker: copy (resources), open or import, lanes, counters, LOD
// indices. Phases share the progress bar: lanes 85%, counters 5%, LOD indices 10% (an import
// takes the first half).
SessionLoad loadSnapshot(
    const QString& copyFrom, const QString& path, const QString& shown, const BackgroundJob::Context& job)
{
    double base = 0.0;
    double weight = 0.85;
    const ProgressCallback report = [&](double f, const char* phase) {
        job.progress(base + weight * std::clamp(f, 0.0, 1.0), QString::fromUtf8(phase));
    };
    SessionLoad result;
    if (!copyFrom.isEmpty()) {
        report(0.0, "copying the session");
        QFile::remove(path);
        if (!QFile::copy(copyFrom, path)) {
            result.error = QStringLiteral("could not copy %1 to %2").arg(copyFrom, path);
            return result;
        }
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
    try {
        QElapsedTimer phase;
        phase.start();
        SessionSnapshot::LoadTimes times;
        bool imported = false;
        const auto file = SessionFile::open(
            path,
            [&](double f, const char* what) {
                if (!imported) {
                    imported = true;
                    weight = 0.5;
                }
                report(f, (std::string("importing: ") + what).c_str());
            },
            job.cancel);
        if (imported) {
            base = 0.5;
            weight = 0.35;
        }
        const SessionReader& reader = file->reader();
        auto meta = reader.meta();
        auto links = reader.readKernelLinks();
        auto dependencies = readStreamDependencies(reader);
        times.reader = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        if (const auto hook = loadHook())
            hook(job.cancel);
        phase.restart();
        auto model = TimelineModel::load(reader, report, job.cancel, true, iket::laneProviders());
        const auto openSpan = model ? timingSpanOf(*model, reader.readRuns()) : std::nullopt;
        times.lanes = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        phase.restart();
        base = 0.85;
        weight = 0.05;
        report(0.0, "reading counters");
        auto counters = loadCounterSeries(reader, job.cancel);
        times.counters = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        phase.restart();
        base = 0.9;
        weight = 0.1;
        auto built = SessionSnapshot::build(std::move(model), std::move(counters), std::move(meta), report, job.cancel);
        times.index = static_cast<double>(phase.nsecsElapsed()) / 1e6;
        if (built)
            built->loadTimes = times;
        if (!built || job.cancel.isCancelled()) {
            result.cancelled = true;
        } else {
            built->path = file->path();
            built->displayName = shown;
            built->hasFile = true;
            built->kernelLinks = std::move(links);
            built->dependencies = std::move(dependencies);
            built->openBegin = openSpan ? openSpan->first : built->begin();
            built->openEnd = openSpan ? openSpan->second : built->end();
            result.snapshot = std::move(built);
            result.file = file;
        }
    } catch (const SessionError& e) {
        result.cancelled = e.kind() == SessionError::Kind::Cancelled;
        result.error = QString::fromStdString(e.reason());
    } catch (const std::exception& e) {
        result.error = QString::fromUtf8(e.what());
    }
    if (result.cancelled)
        result.error = QStringLiteral("loading was cancelled");
    return result;
}

struct PanelRead {
    std::shared_ptr<const PanelData> data;
    QString error;
};

BenchOutcome readBench(const SessionFile& file, const std::string& name)
{
    try {
        const SessionReader& reader = file.reader();
        // Only bench sessions pay for a full read: the others answer from the row counts.
        const auto counts = reader.tableCounts();
        const auto runs = counts.find("bench_run");
        if (runs == counts.end() || runs->second == 0)
            return {};
        return {bench::benchResultFromSession(reader.readAll(), name), {}};
    } catch (const std::exception& e) {
        return {std::nullopt, QString::fromUtf8(e.what())};
    }
}

} // namespace

SessionDocument::SessionDocument(QObject* parent)
    : QObject(parent)
    , m_load(new BackgroundJob(loadPool(), this))
    , m_panels(new BackgroundJob(panelPool(), this))
    , m_bench(new BackgroundJob(panelPool(), this))
    , m_details(new EventDetailsSource(this))
{
    qRegisterMetaType<std::shared_ptr<const ws::SessionSnapshot>>();
    qRegisterMetaType<std::shared_ptr<const ws::PanelData>>();
    qRegisterMetaType<ws::BenchOutcome>();
    connect(m_load, &BackgroundJob::progress, this, &SessionDocument::progress);
}

SessionDocument::~SessionDocument()
{
    m_load->discard();
    m_panels->discard();
    m_bench->discard();
}

bool SessionDocument::isLoading() const
{
    return m_load->isRunning();
}

void SessionDocument::releaseLater(std::shared_ptr<const SessionSnapshot> snapshot)
{
    if (!snapshot)
        return;
    loadPool()->start([s = std::move(snapshot)]() mutable { s.reset(); });
}

void SessionDocument::setLoadHookForTests(LoadHook hook)
{
    const std::lock_guard lock(gLoadHookMutex);
    gLoadHook = std::move(hook);
}

void SessionDocument::cancel()
{
    m_load->cancel();
}

void SessionDocument::open(const QString& path, const QString& displayName)
{
    openCopy({}, path, displayName);
}

void SessionDocument::reload()
{
    // An open under way brings the newest file anyway; after a failed open, the loaded session
    // is still the one shown, and the one read again.
    if (!m_snapshot || !m_snapshot->hasFile || (isLoading() && !m_reloading))
        return;
    m_panels->discard();
    m_bench->discard();
    m_reloading = true;
    m_path = m_loadedPath;
    m_load->start([path = m_path, shown = m_snapshot->displayName](
                      const BackgroundJob::Context& job) { return loadSnapshot({}, path, shown, job); },
        [this](SessionLoad result) { onLoaded(std::move(result)); });
}

void SessionDocument::openCopy(const QString& source, const QString& path, const QString& displayName)
{
    // The previous open's stages finish in the background; their results are dropped.
    m_panels->discard();
    m_bench->discard();
    m_reloading = false;
    m_path = path;
    const QString shown = displayName.isEmpty() ? path : displayName;
    m_load->start(
        [source, path, shown](const BackgroundJob::Context& job) { return loadSnapshot(source, path, shown, job); },
        [this](SessionLoad result) { onLoaded(std::move(result)); });
    emit started(path);
}

void SessionDocument::onLoaded(SessionLoad result)
{
    const bool reloading = std::exchange(m_reloading, false);
    if (!result.snapshot) {
        emit failed(m_path, result.error, result.cancelled);
        return;
    }
    m_file = std::move(result.file);
    m_loadedPath = m_path;
    // The replaced snapshot is freed off the GUI thread, like the window does after an open.
    releaseLater(std::exchange(m_snapshot, std::move(result.snapshot)));
    if (!reloading)
        m_panelData.reset();
    m_details->setSession(m_snapshot, m_file);
    if (reloading)
        emit reloaded(m_snapshot);
    else
        emit loaded(m_snapshot);
    if (m_readsPanels)
        readPanelsAndBench(!reloading);
}

void SessionDocument::readPanelsAndBench(bool announce)
{
    const auto file = m_file;
    const auto snapshot = m_snapshot;
    if (announce)
        emit panelDataLoading(file->path());
    m_panels->start(
        [file, origin = snapshot->begin(), lanes = snapshot->model](const BackgroundJob::Context& job) -> PanelRead {
            try {
                // The stats tables show times from the timeline's +0: the snapshot's begin; the
                // launches come from its lanes when the file allows.
                return {PanelData::load(file, job.cancel, origin, lanes), {}};
            } catch (const std::exception& e) {
                return {nullptr, QString::fromUtf8(e.what())};
            }
        },
        [this, snapshot, path = file->path()](const PanelRead& r) {
            m_panelData = r.data;
            if (r.data)
                emit panelDataReady(r.data, snapshot);
            else
                emit panelDataFailed(path, r.error);
        });
    const std::string name
        = snapshot->displayName.isEmpty() ? file->path().toStdString() : snapshot->displayName.toStdString();
    m_bench->start([file, name](const BackgroundJob::Context&) { return readBench(*file, name); },
        [this](const BenchOutcome& outcome) { emit benchReady(outcome); });
}

} // namespace ws

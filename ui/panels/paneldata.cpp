// SPDX-License-Identifier: MIT
#include "ui/panels/paneldata.h"

#include "core/analysis/sessionfilesource.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"

#include <QThreadPool>
#include <QtConcurrent>

namespace ws {

namespace {

QThreadPool* panelPool()
{
    // Separate from the timeline's pools: the panels' read never delays a frame.
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool();
        p->setMaxThreadCount(1);
        return p;
    }();
    return pool;
}

} // namespace

std::shared_ptr<PanelData> PanelData::load(const QString& path, const CancellationToken& cancel)
{
    auto d = std::make_shared<PanelData>();
    d->path = path;
    const SessionReader reader(path.toStdString());
    const SessionFileSource source(reader);
    d->devices = source.header().devices;
    d->meta = source.header().meta;
    d->origin = source.timeSpan().begin;
    d->launches = KernelLaunchTable::build(source, cancel);
    d->metrics = SessionMetrics::read(reader);
    if (cancel.isCancelled())
        throw SessionError(SessionError::Kind::Cancelled, path.toStdString(), "cancelled");
    d->idle = analyzeGpuIdle(source);
    d->finish();
    return d;
}

std::shared_ptr<PanelData> PanelData::fromSession(std::shared_ptr<const SessionData> data)
{
    auto d = std::make_shared<PanelData>();
    d->memory = data;
    const MemoryRecordSource source(*data);
    d->devices = data->devices;
    d->meta = data->meta;
    d->origin = source.timeSpan().begin;
    d->launches = KernelLaunchTable::build(source);
    d->metrics = SessionMetrics::fromData(*data);
    d->idle = analyzeGpuIdle(source);
    d->finish();
    return d;
}

void PanelData::finish()
{
    const auto& groups = launches.groups();
    m_bestOfGroup.assign(groups.size(), -1);
    std::vector<TimeNs> bestDuration(groups.size(), -1);
    for (const SessionMetrics::Kernel& k : metrics.kernels()) {
        const KernelLaunchTable::Launch* l = launches.find(k.launch.id);
        if (!l)
            continue;
        if (l->duration() > bestDuration[l->group]) {
            bestDuration[l->group] = l->duration();
            m_bestOfGroup[l->group] = l->id;
        }
    }
    for (size_t g = 0; g < groups.size(); ++g) {
        if (m_bestOfGroup[g] < 0) {
            if (const auto* l = launches.longestOf(static_cast<uint32_t>(g)))
                m_bestOfGroup[g] = l->id;
        }
    }
}

const DeviceInfo* PanelData::device(uint32_t id) const
{
    for (const DeviceInfo& d : devices) {
        if (d.id == id)
            return &d;
    }
    return devices.empty() ? nullptr : &devices.front();
}

RooflineCeilings PanelData::ceilings(uint32_t deviceId) const
{
    const DeviceInfo* d = device(deviceId);
    return d ? RooflineCeilings::fromDevice(*d) : RooflineCeilings {};
}

const KernelLaunchTable::Launch* PanelData::representative(uint32_t group) const
{
    if (group >= m_bestOfGroup.size() || m_bestOfGroup[group] < 0)
        return nullptr;
    return launches.find(m_bestOfGroup[group]);
}

KernelFacts PanelData::facts(int64_t kernelId) const
{
    const KernelLaunchTable::Launch* l = launches.find(kernelId);
    const double traced = l ? static_cast<double>(l->duration()) : 0.0;
    if (const auto* p = metrics.find(kernelId))
        return kernelFacts(p->metrics, traced);
    KernelFacts f;
    if (traced > 0)
        f.durationNs = traced;
    return f;
}

QString PanelData::kernelName(int64_t kernelId) const
{
    const KernelLaunchTable::Launch* l = launches.find(kernelId);
    return l ? QString::fromStdString(launches.groups()[l->group].name) : QString();
}

QString PanelData::shortName(int64_t kernelId) const
{
    const KernelLaunchTable::Launch* l = launches.find(kernelId);
    return l ? QString::fromStdString(launches.groups()[l->group].shortName) : QString();
}

SessionFacts PanelData::sessionFacts(double tinyKernelNs) const
{
    SessionFacts s;
    s.devices = idle.devices;
    for (const auto& l : launches.launches()) {
        ++s.kernelLaunches;
        s.kernelTimeNs += l.duration();
        if (static_cast<double>(l.duration()) < tinyKernelNs) {
            ++s.tinyLaunches;
            s.tinyTimeNs += l.duration();
        }
    }
    return s;
}

PanelDataLoader::PanelDataLoader(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const ws::PanelData>>();
}

PanelDataLoader::~PanelDataLoader()
{
    cancel();
}

void PanelDataLoader::cancel()
{
    m_cancel.cancel();
    if (m_watcher) {
        // The read stops at its next cancellation check (every 64k rows), so waiting is short.
        m_watcher->disconnect(this);
        m_watcher->waitForFinished();
        delete m_watcher;
        m_watcher = nullptr;
    }
}

void PanelDataLoader::load(const QString& path)
{
    cancel();
    m_cancel = CancellationToken();
    const CancellationToken token = m_cancel;
    m_watcher = new QFutureWatcher<Result>(this);
    connect(m_watcher, &QFutureWatcher<Result>::finished, this, [this, path] {
        const Result r = m_watcher->result();
        m_watcher->deleteLater();
        m_watcher = nullptr;
        if (r.data)
            emit loaded(r.data);
        else
            emit failed(path, r.error);
    });
    m_watcher->setFuture(QtConcurrent::run(panelPool(), [path, token]() -> Result {
        try {
            return {PanelData::load(path, token), {}};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromUtf8(e.what())};
        }
    }));
}

} // namespace ws

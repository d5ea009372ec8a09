// SPDX-License-Identifier: MIT
#include "ui/session/paneldata.h"

#include "core/metrics/profiledescription.h"
#include "core/store/runinference.h"

#include <algorithm>
#include <future>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/nsysreports.h"
#include "core/analysis/sessionfilesource.h"
#include "core/ranking/launchidle.h"
#include "core/ranking/launchtablelanes.h"
#include "core/ranking/launchtableread.h"
#include "core/ranking/windowedsource.h"
#include "core/store/runrecipe.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/util/shellwords.h"
#include "ui/session/sessionfile.h"

#include <QFileInfo>

namespace ws {

std::shared_ptr<PanelData> PanelData::load(const std::shared_ptr<const SessionFile>& file,
    const CancellationToken& cancel, std::optional<TimeNs> origin, const std::shared_ptr<const TimelineModel>& lanes)
{
    auto d = std::make_shared<PanelData>();
    d->path = file->path();
    d->file = file;
    const SessionReader& reader = file->reader();
    const SessionFileSource source(reader);
    d->devices = source.header().devices;
    d->meta = source.header().meta;
    // The span is a min/max scan of every table (1.4 s at 10M events): the timeline's loader
    // already knows it.
    d->origin = origin ? *origin : source.timeSpan().begin;
    d->runs = reader.readRuns();
    d->links = reader.readKernelLinks();
    // The ranking, the kernel panels and the GPU's busy/idle summary count the traced launches
    // of a multi-run session; a profiled launch shows through the traced one it links to
    // (SessionMetrics).
    const SessionFileSource timing(source, SessionFileSource::Runs::Timing);
    // The copies and memsets for the busy/idle summary are read on a connection of their own
    // while this thread builds the launch table.
    using Work = std::map<uint32_t, std::vector<GpuWork>>;
    auto copies = std::async(std::launch::async, [path = reader.path()] {
        const SessionReader own(path);
        const SessionFileSource all(own);
        const SessionFileSource timed(all, SessionFileSource::Runs::Timing);
        Work work;
        std::vector<std::string> labels; // names for the gaps, which the summary does not list
        addCopiesAndMemsets(timed, work, labels);
        return work;
    });
    // The launches from the timeline's lanes and the lane cache's launch rows when the file has
    // them (launchTableFromLanes: no kernel row decoded), else the kernel rows in slices on
    // connections of their own (readKernelLaunchTable).
    std::optional<KernelLaunchTable> fromLanes;
    if (lanes)
        fromLanes = launchTableFromLanes(reader, *lanes, timing.runIds(), cancel);
    d->launches = fromLanes ? std::move(*fromLanes) : readKernelLaunchTable(timing, cancel);
    const Work work = copies.get();
    d->metrics = SessionMetrics::read(reader);
    if (cancel.isCancelled())
        throw SessionError(SessionError::Kind::Cancelled, reader.path(), "cancelled");
    // The ranking on a second thread while this one sweeps the GPUs' busy and idle time.
    auto ranking = std::async(std::launch::async, [&launches = d->launches] { return rankKernels(launches); });
    d->gpuBusy = summarizeGpuBusy(d->launches, work);
    d->ranking = ranking.get();
    try {
        // Small next to the session's events (one row per instruction and reason).
        auto tables = std::make_shared<SourceTables>(SourceTables::read(reader));
        if (!tables->empty())
            d->sourceStrings = std::make_shared<StringTable>(reader.readStrings());
        d->sourceTables = std::move(tables);
    } catch (const SessionError& e) {
        d->sourceError = QString::fromUtf8(e.what());
    }
    d->finish();
    return d;
}

std::shared_ptr<PanelData> PanelData::fromSession(const std::shared_ptr<const SessionData>& data)
{
    auto d = std::make_shared<PanelData>();
    d->memory = data;
    const MemoryRecordSource source(*data);
    d->devices = data->devices;
    d->meta = data->meta;
    d->runs = data->runs;
    d->links = data->kernelLinks;
    d->origin = source.timeSpan().begin;
    d->launches = KernelLaunchTable::build(source);
    d->ranking = rankKernels(d->launches);
    d->metrics = SessionMetrics::fromData(*data);
    d->gpuBusy = analyzeGpuIdle(source).devices;
    auto tables = std::make_shared<SourceTables>();
    tables->functions = data->sassFunctions;
    tables->instructions = data->sassInstructions;
    tables->counters = data->sourceCounters;
    tables->files = data->sourceFiles;
    d->sourceTables = std::move(tables);
    d->sourceStrings = std::shared_ptr<const StringTable>(data, &data->strings);
    d->finish();
    return d;
}

void PanelData::finish()
{
    m_defaultFacts = computeSessionFacts(DiagnosisOptions {}.tinyKernelNs);
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

std::map<std::string, std::string> PanelData::measurementMeta(int64_t kernelId) const
{
    // In a multi-run session the profile's own meta (passes, cache control, replay mode) is its
    // run's options; the session's meta is the first run's.
    if (const SessionMetrics::Kernel* k = metrics.find(kernelId))
        return runMeasurementMeta(runs, k->metricsRunId, meta);
    return meta;
}

int64_t PanelData::sampledLaunch(int64_t kernelId) const
{
    if (!sourceTables)
        return -1;
    const auto sampled = [this](int64_t id) {
        return std::any_of(sourceTables->counters.begin(), sourceTables->counters.end(),
            [id](const SourceCounter& c) { return c.kernelId == id; });
    };
    if (sampled(kernelId))
        return kernelId;
    for (const KernelLink& link : links) {
        if (link.traceKernelId == kernelId && sampled(link.kernelId))
            return link.kernelId;
    }
    return -1;
}

int64_t PanelData::sampledLaunchOfSameKernel(int64_t kernelId) const
{
    const KernelLaunchTable::Launch* own = launches.find(kernelId);
    // Without samples there is nothing to find in millions of launches.
    if (!own || !sourceTables || sourceTables->counters.empty())
        return -1;
    for (const KernelLaunchTable::Launch& l : launches.launches()) {
        if (l.group == own->group && l.id != kernelId && sampledLaunch(l.id) >= 0)
            return l.id;
    }
    return -1;
}

const RunInfo* PanelData::run(uint32_t runId) const
{
    for (const RunInfo& r : runs) {
        if (r.id == runId)
            return &r;
    }
    return nullptr;
}

namespace {

// "(profile, --set full, 26 passes, cache control all)" from a run's kind and options: the
// collector's own arguments when it stored them, else the sections it was asked for.
QString runSummary(const RunInfo& run)
{
    QStringList parts {QString::fromStdString(run.kind)};
    const auto options = store::fromJsonObject(run.optionsJson).value_or(std::map<std::string, std::string> {});
    const auto option = [&](const char* key) {
        const auto it = options.find(key);
        return it == options.end() ? QString() : QString::fromStdString(it->second);
    };
    // The collector's own options, less what the launch id already says (which kernel, which
    // launches: a kernel filter is a long escaped regex) and the subcommand (the kind).
    QStringList kept;
    if (const auto words = splitCommand(option(kCollectorArgumentsOption).toStdString())) {
        static const QStringList kWhich {QStringLiteral("--kernel-name"), QStringLiteral("--kernel-regex"),
            QStringLiteral("--launch-skip"), QStringLiteral("--launch-count")};
        for (size_t i = 0; i < words->size(); ++i) {
            const QString w = QString::fromStdString((*words)[i]);
            if (i == 0 && (w == QString::fromStdString(run.kind) || w == QStringLiteral("profile")))
                continue;
            if (kWhich.contains(w)) {
                ++i; // and its value
                continue;
            }
            if (std::any_of(kWhich.begin(), kWhich.end(), [&](const QString& o) { return w.startsWith(o + '='); }))
                continue;
            kept << QString::fromStdString(shellQuote((*words)[i]));
        }
    }
    const QString arguments = kept.join(QLatin1Char(' '));
    if (!arguments.isEmpty()) {
        parts << arguments;
    } else if (const QString sections = option("profile_sections"); !sections.isEmpty()) {
        const auto n = sections.count(QLatin1Char(',')) + 1;
        parts << (n == 1 ? QObject::tr("section %1").arg(sections) : QObject::tr("%1 sections").arg(n));
    }
    if (const QString passes = option("profile_passes"); !passes.isEmpty())
        parts << QObject::tr("%1 passes").arg(passes);
    if (const QString cache = option("profile_cache_control"); !cache.isEmpty())
        parts << QObject::tr("cache control %1").arg(cache);
    return parts.join(QStringLiteral(", "));
}

// The program a run started (base name of the first word of its command line).
QString programOf(const RunInfo& run)
{
    const auto words = splitCommand(run.commandLine);
    if (!words || words->empty())
        return {};
    return QFileInfo(QString::fromStdString(words->front())).fileName();
}

QString provenance(const QString& what, const RunInfo* run, int64_t launchId)
{
    if (!run)
        return QObject::tr("%1 from launch #%2").arg(what).arg(launchId);
    QString s
        = QObject::tr("%1 from run %2 (%3), launch #%4").arg(what).arg(run->id).arg(runSummary(*run)).arg(launchId);
    if (const QString program = programOf(*run); !program.isEmpty())
        s += QObject::tr(" of %1").arg(program);
    return s;
}

} // namespace

QString PanelData::metricsProvenance(int64_t kernelId) const
{
    const SessionMetrics::Kernel* k = metrics.find(kernelId);
    if (!k)
        return {};
    return provenance(
        QObject::tr("metrics"), run(k->metricsRunId), k->measuredKernelId != 0 ? k->measuredKernelId : k->launch.id);
}

QString PanelData::samplesProvenance(int64_t kernelId) const
{
    const int64_t sampled = sampledLaunch(kernelId);
    if (sampled < 0)
        return {};
    // The samples carry the run that took them.
    uint32_t runId = 0;
    for (const SourceCounter& c : sourceTables->counters) {
        if (c.kernelId == sampled) {
            runId = c.runId;
            break;
        }
    }
    return provenance(QObject::tr("samples"), run(runId), sampled);
}

QString PanelData::notProfiledText()
{
    return QObject::tr("not profiled — right-click the kernel → Collect metrics for this launch");
}

QString PanelData::notSampledText()
{
    return QObject::tr("no PC samples — right-click the kernel → Sample stall reasons for this launch");
}

int64_t PanelData::shownLaunch(int64_t kernelId) const
{
    if (launches.find(kernelId))
        return kernelId;
    for (const SessionMetrics::Kernel& k : metrics.kernels()) {
        if (k.measuredKernelId == kernelId)
            return k.launch.id;
    }
    return kernelId;
}

ReportTable PanelData::report(const QString& id, TimeWindow window) const
{
    if (memory) {
        const MemoryRecordSource source(*memory);
        return computeReport(id.toStdString(), WindowedSource(source, window));
    }
    if (!file)
        throw SessionError(SessionError::Kind::NotFound, path.toStdString(), "the session has no file");
    const SessionFileSource source(file->reader(), SessionFileSource::Runs::Timing);
    return computeReport(id.toStdString(), WindowedSource(source, window));
}

SessionFacts PanelData::sessionFacts(double tinyKernelNs) const
{
    return tinyKernelNs == DiagnosisOptions {}.tinyKernelNs ? m_defaultFacts : computeSessionFacts(tinyKernelNs);
}

SessionFacts PanelData::computeSessionFacts(double tinyKernelNs) const
{
    SessionFacts s;
    s.devices = gpuBusy;
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

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/gpuidlegaps.h"
#include "core/diagnosis/diagnosis.h"
#include "core/metrics/kernelmetrics.h"
#include "core/ranking/kernellaunchtable.h"
#include "core/ranking/kernelranking.h"
#include "core/ranking/timewindow.h"
#include "core/report/reporttable.h"
#include "core/roofline/roofline.h"
#include "core/source/sourcetables.h"
#include "core/timeline/timelinemodel.h"
#include "core/util/cancellation.h"

#include <QMetaType>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ws {

class SessionFile;

// What the kernel panels know about one session, read once on a worker thread by the
// SessionDocument and immutable afterwards (shared as std::shared_ptr<const PanelData>): every
// launch in compact form (for the ranking and the linked selection), the profiled kernels with
// their metrics, the devices and their roofs, the GPU's busy/idle summary (for the
// overhead-bound rule) and the source counters. The stats tables are computed on demand from
// the document's file (`file`), like the CLI does.
class PanelData {
public:
    QString path; // the session file ("" for sessions that exist only in memory)
    // The document's open file: its read connections serve the stats reports (null in memory).
    std::shared_ptr<const SessionFile> file;
    std::vector<DeviceInfo> devices;
    std::map<std::string, std::string> meta;
    std::vector<RunInfo> runs;     // schema v2: trace, profile, ... runs (one inferred run for v1)
    std::vector<KernelLink> links; // profiled / sampled launch -> traced launch
    TimeNs origin = 0;             // earliest event of the session: the timeline's "+0"
    KernelLaunchTable launches;
    // rankKernels(launches) over the whole session: computed with the rest on the worker, so the
    // ranking and the first kernel shown cost the GUI thread no pass over millions of launches.
    std::vector<KernelRank> ranking;
    SessionMetrics metrics;
    // Each GPU's busy/idle summary (summarizeGpuBusy), what the overhead-bound rule and the
    // diagnosis read; the gaps themselves are not listed (millions on a big session).
    std::vector<GpuBusySummary> gpuBusy;
    // The session itself when it exists only in memory (fromSession): the stats tables read
    // it instead of the file.
    std::shared_ptr<const SessionData> memory;
    // Source counters (PC sampling) and the strings they name; null when the session has none.
    std::shared_ptr<const SourceTables> sourceTables;
    std::shared_ptr<const StringTable> sourceStrings;
    QString sourceError; // why the source counters could not be read

    // Reads everything above through the calling thread's connection to `file` (and the
    // copies and memsets through a second connection, meanwhile). `origin`, when the caller knows
    // it (the timeline's snapshot begins there), saves a scan of every table. `lanes`, the
    // timeline's model of the same file, saves reading every kernel row when the file's lane
    // cache has launch rows (launchTableFromLanes); the table is the same either way. Throws
    // SessionError naming the file.
    static std::shared_ptr<PanelData> load(const std::shared_ptr<const SessionFile>& file,
        const CancellationToken& cancel = {}, std::optional<TimeNs> origin = {},
        const std::shared_ptr<const TimelineModel>& lanes = {});
    // The same from a session in memory (tests, imported sessions not yet saved).
    static std::shared_ptr<PanelData> fromSession(const std::shared_ptr<const SessionData>& data);

    bool hasMetrics() const { return !metrics.empty(); }
    const DeviceInfo* device(uint32_t id) const;
    RooflineCeilings ceilings(uint32_t deviceId) const;

    // The launch the details show for a kernel name: the longest launch that has metrics,
    // else the longest launch. nullptr for an unknown group.
    const KernelLaunchTable::Launch* representative(uint32_t group) const;
    const SessionMetrics::Kernel* profiled(int64_t kernelId) const { return metrics.find(kernelId); }
    // The launch the panels show for `kernelId`: itself, or — for a profiled launch of a
    // multi-run session measured on behalf of a traced launch (kernel_link) — that traced launch.
    int64_t shownLaunch(int64_t kernelId) const;
    // The meta that says how `kernelId`'s metrics were measured: its profile run's options in a
    // multi-run session, else the session's meta (describeProfileRun reads it).
    std::map<std::string, std::string> measurementMeta(int64_t kernelId) const;
    // The launch whose PC samples the Source panel shows for `kernelId`: itself when it was
    // sampled, else a sampled launch of a PC-sampling run linked to it; -1 when none.
    int64_t sampledLaunch(int64_t kernelId) const;
    // A launch of the same kernel (same group of the launch table) that has PC samples, for a
    // launch that has none: PC sampling usually samples one launch of a kernel, and its stall
    // profile stands for the kernel (said as such on screen). -1 when none of them was sampled.
    int64_t sampledLaunchOfSameKernel(int64_t kernelId) const;

    // Where `kernelId`'s metrics come from, for the line above every panel that shows them:
    // "metrics from run 2 (profile, --set full, 26 passes, cache control all), launch #53 of
    // ws-example-gemm-relu"; "" when the launch was not profiled.
    QString metricsProvenance(int64_t kernelId) const;
    // The same for the PC samples the Source panel shows: "samples from run 3 (pc-sampling),
    // launch #65 of ws-example-gemm-relu"; "" when not sampled.
    QString samplesProvenance(int64_t kernelId) const;
    // What a traced launch without metrics / samples says: how to get them without leaving the
    // window (the kernel views' KernelActions items).
    static QString notProfiledText();
    static QString notSampledText();
    // The run with this id, nullptr when absent.
    const RunInfo* run(uint32_t runId) const;

    // Facts for a launch: its metrics when profiled, else just the traced duration.
    KernelFacts facts(int64_t kernelId) const;
    QString kernelName(int64_t kernelId) const; // demangled
    QString shortName(int64_t kernelId) const;  // base name
    // A stats report (`warpscope-cli stats -r ID`) over the events overlapping `window` (all of
    // them for an empty window), computed on the calling (worker) thread from the session in
    // memory or through that thread's connection to the document's file. Throws SessionError.
    ReportTable report(const QString& id, TimeWindow window) const;

    // Session-level facts for diagnoseSession(): a pass over every launch, done once on the
    // worker for the default threshold (the diagnosis asks on every selection change).
    SessionFacts sessionFacts(double tinyKernelNs) const;

private:
    void finish();
    SessionFacts computeSessionFacts(double tinyKernelNs) const;
    SessionFacts m_defaultFacts;        // computeSessionFacts(DiagnosisOptions {}.tinyKernelNs)
    std::vector<int64_t> m_bestOfGroup; // per group: the representative launch id
};

} // namespace ws

Q_DECLARE_METATYPE(std::shared_ptr<const ws::PanelData>)

// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/streamdependencies.h"
#include "core/timeline/lodcounter.h"
#include "core/timeline/lodindex.h"
#include "core/timeline/timelinemodel.h"
#include "core/util/cancellation.h"

#include <QMetaType>
#include <QRgb>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ws {

class SessionReader;

// Everything the viewer shows of one open session, immutable once built and shared between
// the GUI thread and the frame builders as std::shared_ptr<const SessionSnapshot>: the lanes,
// one LOD index per long lane, counter series, per-name colours and the session's meta.
class SessionSnapshot {
public:
    QString path;         // the file read (a temporary copy for the embedded demo)
    QString displayName;  // what the user opened
    bool hasFile = false; // false for sessions built in memory (benchmarks, tests)
    std::shared_ptr<const TimelineModel> model;
    std::vector<LodIndex> lod; // parallel to model->lanes; empty for short lanes
    std::vector<CounterSeries> counters;
    std::vector<QRgb> nameColor; // per StringId
    std::map<std::string, std::string> meta;
    // Profiled / sampled launches of a multi-run session and the traced launches they were
    // measured for (kernel_link): a kernel view acting on a launch acts on its traced launch.
    std::vector<KernelLink> kernelLinks;
    // Dependencies between streams through CUDA events (event_op; DependencyPainter draws
    // them). Set by the document's loader (readStreamDependencies); empty without event_op.
    std::vector<StreamDependency> dependencies;
    // Where the view opens: the span of the trace (and import) runs' processes when the session
    // also holds runs that replayed the program (profile, PC sampling) or measured without it
    // (bench), which happen seconds later and would squeeze the trace into a sliver; else
    // begin()..end(). Set by the document's loader (timingSpanOf).
    TimeNs openBegin = 0;
    TimeNs openEnd = 0;
    // How long opening took, per phase (ms, wall clock on the loader thread).
    struct LoadTimes {
        double reader = 0;   // open + validate the file
        double lanes = 0;    // TimelineModel::load
        double counters = 0; // counter tracks
        double index = 0;    // LOD indices and colours
    } loadTimes;

    const std::string& str(StringId id) const;
    QString qstr(StringId id) const { return QString::fromStdString(str(id)); }
    QRgb color(StringId id) const { return id < nameColor.size() ? nameColor[id] : 0xff808080u; }
    const LodIndex* indexFor(size_t lane) const;
    // The traced launch `kernelId` links to, or `kernelId` itself (a traced launch, or a
    // profiled one without a traced counterpart).
    int64_t tracedLaunchOf(int64_t kernelId) const;

    TimeNs begin() const { return m_begin; }
    TimeNs end() const { return m_end; }
    int64_t eventCount() const;
    size_t residentBytes() const;
    // "NVIDIA H200 (GPU 0)", or "no GPU recorded".
    QString deviceSummary() const;
    bool hasGpuActivity() const;
    // Why the GPU part is empty, in the recorder's words when it left any in meta.
    QString gpuEmptyReason() const;

    // Builds indices and colours on the calling (worker) thread. Progress spans [0, 1].
    // Returns nullptr when cancelled.
    static std::shared_ptr<SessionSnapshot> build(std::shared_ptr<const TimelineModel> model,
        std::vector<CounterSeries> counters, std::map<std::string, std::string> meta,
        const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

private:
    TimeNs m_begin = 0;
    TimeNs m_end = 0;
};

// Reads counter_track / counter_sample through the reader's read-only connection.
// The extent of the events of processes of trace/import runs, when `runs` also holds other
// kinds; nullopt when every run is a timing run or none has events.
std::optional<std::pair<TimeNs, TimeNs>> timingSpanOf(const TimelineModel& model, const std::vector<RunInfo>& runs);

std::vector<CounterSeries> loadCounterSeries(const SessionReader& reader, const CancellationToken& cancel = {});

} // namespace ws

Q_DECLARE_METATYPE(std::shared_ptr<const ws::SessionSnapshot>)

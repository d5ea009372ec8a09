// SPDX-License-Identifier: MIT
#include "ui/session/sessionsnapshot.h"

#include "core/model/gpumetricsgaps.h"
#include "core/store/sessionreader.h"
#include "core/timeline/lodfold.h"
#include "ui/style/colorscheme.h"

#include <QSet>
#include <QStringList>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

namespace ws {

const std::string& SessionSnapshot::str(StringId id) const
{
    static const std::string empty;
    if (!model || id >= model->strings.size())
        return empty;
    return model->strings.at(id);
}

const LodIndex* SessionSnapshot::indexFor(size_t lane) const
{
    if (lane >= lod.size() || lod[lane].empty())
        return nullptr;
    return &lod[lane];
}

int64_t SessionSnapshot::eventCount() const
{
    int64_t n = 0;
    if (model) {
        for (const auto& l : model->lanes)
            n += static_cast<int64_t>(l.size());
    }
    return n;
}

size_t SessionSnapshot::residentBytes() const
{
    size_t bytes = sizeof(*this) + nameColor.capacity() * sizeof(QRgb);
    if (model) {
        bytes += sizeof(TimelineModel);
        for (const auto& l : model->lanes)
            bytes += l.residentBytes();
        for (const auto& s : model->strings.all())
            bytes += s.capacity() + sizeof(std::string) + 16; // + hash index entry
    }
    for (const auto& i : lod)
        bytes += i.residentBytes();
    for (const auto& c : counters)
        bytes += c.residentBytes();
    return bytes;
}

QString SessionSnapshot::deviceSummary() const
{
    if (!model || model->devices.empty())
        return QStringLiteral("no GPU recorded");
    QStringList parts;
    QSet<QString> seen;
    for (const auto& d : model->devices) {
        const QString s = QStringLiteral("GPU %1 %2").arg(d.id).arg(QString::fromStdString(d.name));
        if (!seen.contains(s)) {
            seen.insert(s);
            parts << s;
        }
    }
    return parts.join(QStringLiteral(", "));
}

bool SessionSnapshot::hasGpuActivity() const
{
    if (!model)
        return false;
    return std::any_of(model->lanes.begin(), model->lanes.end(),
        [](const TimelineLane& l) { return l.kind == LaneKind::GpuStream && l.size() > 0; });
}

QString SessionSnapshot::gpuEmptyReason() const
{
    // The recorder explains a missing GPU part in meta; prefer its words.
    QStringList reasons;
    for (const auto& [k, v] : meta) {
        const QString key = QString::fromStdString(k);
        if ((key.contains(QLatin1String("gpu"), Qt::CaseInsensitive)
                || key.contains(QLatin1String("cupti"), Qt::CaseInsensitive)
                || key.contains(QLatin1String("cuda"), Qt::CaseInsensitive))
            && (key.contains(QLatin1String("reason")) || key.contains(QLatin1String("error"))
                || key.contains(QLatin1String("status")) || key.contains(QLatin1String("warning")))
            && !v.empty())
            reasons << QStringLiteral("%1: %2").arg(key, QString::fromStdString(v));
    }
    if (!reasons.isEmpty())
        return reasons.join(QStringLiteral("; "));
    if (model && model->devices.empty())
        return QStringLiteral("the session holds no GPU device: the program ran without a usable GPU or CUDA driver, "
                              "or never initialised CUDA");
    return QStringLiteral("the session holds no kernels, copies or memsets");
}

int64_t SessionSnapshot::tracedLaunchOf(int64_t kernelId) const
{
    for (const KernelLink& link : kernelLinks) {
        if (link.kernelId == kernelId)
            return link.traceKernelId;
    }
    return kernelId;
}

std::shared_ptr<SessionSnapshot> SessionSnapshot::build(std::shared_ptr<const TimelineModel> model,
    std::vector<CounterSeries> counters, std::map<std::string, std::string> meta, const ProgressCallback& progress,
    const CancellationToken& cancel)
{
    auto s = std::make_shared<SessionSnapshot>();
    s->model = std::move(model);
    s->counters = std::move(counters);
    s->meta = std::move(meta);
    // record --gpu-metrics: the stretches without samples, on their device's counter tracks.
    if (const auto gaps = s->meta.find(gpumetricskey::kGapList); gaps != s->meta.end())
        for (const GpuMetricsGap& g : decodeGpuMetricsGaps(gaps->second))
            for (auto& c : s->counters)
                if (c.pid == g.pid && c.deviceId == g.deviceId)
                    c.gaps.push_back({g.start, g.end, g.reason});
    const TimelineModel& m = *s->model;

    s->nameColor.resize(m.strings.size());
    for (size_t i = 0; i < m.strings.size(); ++i)
        s->nameColor[i] = ColorScheme::forName(m.strings.at(static_cast<StringId>(i)));

    // One index per long lane, lanes spread over the cores: this (loader) thread and helpers
    // take the next lane until none is left.
    int64_t total = 0;
    for (const auto& l : m.lanes)
        total += static_cast<int64_t>(l.size());
    std::atomic<int64_t> done {0};
    std::vector<size_t> todo;
    for (size_t i = 0; i < m.lanes.size(); ++i) {
        if (m.lanes[i].size() >= kLodIndexMinEvents)
            todo.push_back(i);
    }
    s->lod.resize(m.lanes.size());
    std::atomic<size_t> next {0};
    const auto work = [&](bool reports) {
        for (size_t t = next.fetch_add(1); t < todo.size() && !cancel.isCancelled(); t = next.fetch_add(1)) {
            const TimelineLane& lane = m.lanes[todo[t]];
            s->lod[todo[t]] = LodIndex::build(lane.start, lane.ends(), cancel);
            const int64_t now = done.fetch_add(static_cast<int64_t>(lane.size())) + static_cast<int64_t>(lane.size());
            // ProgressCallback is called from one thread only: the caller's.
            if (reports && progress && total > 0)
                progress(static_cast<double>(now) / static_cast<double>(total), "building level-of-detail index");
        }
    };
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> helpers;
    for (size_t h = 1; h < std::min(cores, todo.size()); ++h)
        helpers.emplace_back(work, false);
    work(true);
    for (auto& h : helpers)
        h.join();
    if (cancel.isCancelled())
        return nullptr;

    TimeNs b = m.begin;
    TimeNs e = m.end;
    if (b >= e) {
        // Models built in memory may leave begin/end unset.
        bool any = false;
        for (const auto& l : m.lanes) {
            if (l.size() == 0)
                continue;
            b = any ? std::min(b, l.start.front()) : l.start.front();
            e = any ? std::max(e, l.ends().back()) : l.ends().back();
            any = true;
        }
    }
    for (const auto& c : s->counters) {
        if (c.size() == 0)
            continue;
        b = std::min(b, c.timestamps().front());
        e = std::max(e, c.timestamps().back());
    }
    s->m_begin = b;
    s->m_end = std::max(e, b + 1);
    return s;
}

std::optional<std::pair<TimeNs, TimeNs>> timingSpanOf(const TimelineModel& model, const std::vector<RunInfo>& runs)
{
    std::set<uint32_t> timing;
    for (const RunInfo& r : runs) {
        if (r.kind == "trace" || r.kind == "import")
            timing.insert(r.id);
    }
    if (timing.empty() || timing.size() == runs.size())
        return std::nullopt;
    std::set<int64_t> pids;
    for (const ProcessInfo& p : model.processes) {
        if (timing.contains(p.runId))
            pids.insert(p.pid);
    }
    std::optional<std::pair<TimeNs, TimeNs>> span;
    for (const TimelineLane& l : model.lanes) {
        if (l.size() == 0 || !pids.contains(l.pid))
            continue;
        const TimeNs b = l.start.front();
        const TimeNs e = l.ends().max();
        span = span ? std::pair {std::min(span->first, b), std::max(span->second, e)} : std::pair {b, e};
    }
    return span;
}

std::vector<CounterSeries> loadCounterSeries(const SessionReader& reader, const CancellationToken& cancel)
{
    std::vector<CounterSeries> out;
    std::vector<CounterTrack> tracks = reader.readCounterTracks();
    // One pass over the samples, bucketed by track, sorted only when the file did not keep order.
    std::map<uint32_t, size_t> slot;
    for (size_t i = 0; i < tracks.size(); ++i)
        slot[tracks[i].id] = i;
    std::vector<std::vector<std::pair<TimeNs, double>>> buckets(tracks.size());
    // The store's row stream has no cancellation of its own: stop it by throwing, every 64k rows.
    struct Stopped { };
    size_t seen = 0;
    try {
        reader.forEachRow<CounterSample>([&](const CounterSample& sample) {
            if ((++seen & 0xffff) == 0 && cancel.isCancelled())
                throw Stopped {};
            const auto it = slot.find(sample.trackId);
            if (it != slot.end())
                buckets[it->second].emplace_back(sample.ts, sample.value);
        });
    } catch (const Stopped&) {
        return {};
    }
    for (size_t i = 0; i < tracks.size(); ++i) {
        auto& b = buckets[i];
        if (!std::is_sorted(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.first < y.first; }))
            std::stable_sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        std::vector<TimeNs> ts(b.size());
        std::vector<double> vs(b.size());
        for (size_t k = 0; k < b.size(); ++k) {
            ts[k] = b[k].first;
            vs[k] = b[k].second;
        }
        std::vector<std::pair<TimeNs, double>>().swap(b);
        CounterSeries filled(std::move(ts), std::move(vs));
        filled.trackId = tracks[i].id;
        filled.pid = tracks[i].pid;
        filled.deviceId = tracks[i].deviceId;
        filled.name = std::move(tracks[i].name);
        filled.unit = std::move(tracks[i].unit);
        out.push_back(std::move(filled));
    }
    return out;
}

} // namespace ws

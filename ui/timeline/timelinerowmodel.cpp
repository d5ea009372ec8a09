// SPDX-License-Identifier: MIT
#include "ui/timeline/timelinerowmodel.h"

#include "core/iket/warplaneprovider.h"
#include "core/iket/warplanes.h"
#include "core/model/commranks.h"
#include "ui/style/timeformat.h"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace ws {

struct TimelineRowModel::Node {
    Kind kind = Kind::Group;
    QString label;
    QString tooltip;
    QString note;        // shown in a group header's time area (warp roles: the per-role summary)
    QString explanation; // what the row is, where its label alone does not say
    int lane = -1;
    int counter = -1;
    qint64 events = 0;
    bool expanded = true;
    bool visible = true;
    bool pinned = false;
    bool gpu = false;
    // Warp-role groups of one kernel: its lanes per block, and the block whose lanes are the
    // children now.
    int64_t warpKernel = -1;
    int warpBlock = -1;
    std::map<int, std::vector<int>> warpBlockLanes;
    QString warpLosses;    // what the launch lost, short, in its header (" · 2,904 events lost")
    QStringList lossNotes; // the same in full, first in the header's note and tooltip
    Node* parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;

    Node* add(std::unique_ptr<Node> child)
    {
        child->parent = this;
        children.push_back(std::move(child));
        return children.back().get();
    }
    int row() const
    {
        if (!parent)
            return 0;
        for (size_t i = 0; i < parent->children.size(); ++i) {
            if (parent->children[i].get() == this)
                return static_cast<int>(i);
        }
        return 0;
    }
    qint64 totalEvents() const
    {
        qint64 n = events;
        for (const auto& c : children)
            n += c->totalEvents();
        return n;
    }
};

namespace {

std::unique_ptr<TimelineRowModel::Node> group(const QString& label)
{
    auto n = std::make_unique<TimelineRowModel::Node>();
    n->label = label;
    return n;
}

} // namespace

TimelineRowModel::TimelineRowModel(QObject* parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<Node>())
{
}

TimelineRowModel::~TimelineRowModel() = default;

void TimelineRowModel::setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    build();
    endResetModel();
    emit rowsLayoutChanged();
}

void TimelineRowModel::build()
{
    m_root = std::make_unique<Node>();
    if (!m_snapshot || !m_snapshot->model)
        return;
    const TimelineModel& m = *m_snapshot->model;

    const auto ranks = processRanks(m_snapshot->meta);
    // Importers give a trace's named processes and threads ("Spans", a stream's annotations)
    // ids from 2^32 up (core/import/chrometracebuilder.cpp): those are not worth showing.
    constexpr int64_t kImportedNameIds = int64_t(1) << 32;
    constexpr int64_t kGpuAnnotationIds = int64_t(1) << 40;
    const auto format = m_snapshot->meta.find("import.format");
    const bool kinetoImport = format != m_snapshot->meta.end() && format->second == "kineto";
    std::map<int64_t, std::string> processName;
    for (const auto& p : m.processes)
        processName[p.pid] = p.name;
    std::map<std::pair<int64_t, int64_t>, std::string> threadName;
    for (const auto& t : m.threads)
        threadName[{t.pid, t.tid}] = t.name;
    std::map<uint32_t, std::string> deviceName;
    for (const auto& d : m.devices)
        deviceName.emplace(d.id, d.name);

    // Groups keyed so their order is stable: processes by pid, threads by tid, GPUs by id.
    std::map<int64_t, Node*> processes;
    std::map<std::pair<int64_t, int64_t>, Node*> threads;
    std::map<uint32_t, Node*> gpus;
    std::map<int64_t, Node*> kernels;
    Node* hostRoot = m_root.get();

    const auto processNode = [&](int64_t pid) {
        auto it = processes.find(pid);
        if (it != processes.end())
            return it->second;
        const auto name = processName.find(pid);
        // Distributed runs: "rank 1 · pid 4242 (python3)" (ranks from meta, analysis/commranks.h).
        QString label = ranks.count(pid) ? QString::fromStdString(processRankLabel(pid, ranks))
                                         : QStringLiteral("Process %1").arg(pid);
        const bool named = name != processName.end() && !name->second.empty();
        if (named && pid >= kImportedNameIds)
            label = QString::fromStdString(name->second); // "Spans", not "Process 4294967296 (Spans)"
        else if (named)
            label += QStringLiteral(" (%1)").arg(QString::fromStdString(name->second));
        // The trace's own label of the process (Kineto's process_labels: "CPU").
        if (const auto labels = m_snapshot->meta.find("import.process_labels." + std::to_string(pid));
            labels != m_snapshot->meta.end() && !labels->second.empty())
            label += QStringLiteral(" · %1").arg(QString::fromStdString(labels->second));
        Node* n = hostRoot->add(group(label));
        processes[pid] = n;
        return n;
    };
    const auto threadNode = [&](int64_t pid, int64_t tid) {
        auto it = threads.find({pid, tid});
        if (it != threads.end())
            return it->second;
        // CUPTI leaves the thread of some records (syncs seen from the GPU) unknown: tid 0. The
        // row's tooltip (timeline label, Tracks dock) says why (issue 24 item 11: it was the
        // demo's first row, unexplained).
        QString label = tid == 0 ? QStringLiteral("thread not recorded") : QStringLiteral("thread %1").arg(tid);
        const auto name = threadName.find({pid, tid});
        if (name != threadName.end() && !name->second.empty()) {
            const QString n = QString::fromStdString(name->second);
            // A trace's own thread name is the label when it says more than an internal id:
            // Kineto's "thread 462 (python3)" (not "thread 462 (thread 462 (python3))"), an
            // importer's "GPU 0 stream 7 annotations" for a made-up tid.
            if (tid >= kImportedNameIds || n.startsWith(QStringLiteral("thread ")))
                label = n;
            else
                label += QStringLiteral(" (%1)").arg(n);
        }
        Node* n = processNode(pid)->add(group(label));
        if (tid == 0)
            n->explanation = QStringLiteral(
                "CUPTI records these events (synchronizations seen from the GPU) without the CPU thread "
                "that waited on them, so they cannot be put under a thread of the process. The waits "
                "themselves are on the threads' CUDA API rows.");
        threads[{pid, tid}] = n;
        return n;
    };
    const auto gpuNode = [&](uint32_t device) {
        auto it = gpus.find(device);
        if (it != gpus.end())
            return it->second;
        QString label = QStringLiteral("GPU %1").arg(device);
        const auto name = deviceName.find(device);
        if (name != deviceName.end() && !name->second.empty())
            label += QStringLiteral("  %1").arg(QString::fromStdString(name->second));
        Node* n = m_root->add(group(label));
        gpus[device] = n;
        return n;
    };

    // Every recorded process gets a row, with or without lanes: a host-only recording still
    // shows what ran.
    for (const auto& p : m.processes)
        processNode(p.pid);

    // Host processes first, then GPUs, then warp roles (the order of ui.md). Lanes are taken
    // in the one lane order of core/timeline/trackkind.h (TimelineModel's lanes follow it too);
    // the groups they go to order processes, GPUs and kernels.
    std::vector<size_t> order(m.lanes.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
        [&](size_t a, size_t b) { return laneOrderKey(m.lanes[a]) < laneOrderKey(m.lanes[b]); });

    // Streams of one device seen from several processes need the pid to tell them apart.
    std::map<uint32_t, std::set<int64_t>> pidsPerDevice;
    for (const auto& l : m.lanes) {
        if (laneKind(l.kind).group == TrackGroup::Device)
            pidsPerDevice[l.deviceId].insert(l.pid);
    }
    // GPU groups in device order, whichever process's lanes come first.
    for (const auto& [device, pids] : pidsPerDevice)
        gpuNode(device);

    for (const size_t li : order) {
        const TimelineLane& l = m.lanes[li];
        auto node = std::make_unique<Node>();
        node->kind = Kind::Lane;
        node->lane = static_cast<int>(li);
        node->events = static_cast<qint64>(l.size());
        node->label = QString::fromStdString(l.label);
        switch (laneKind(l.kind).group) {
        case TrackGroup::Thread:
            // A PyTorch profiler trace's host ranges are aten:: operators and record_function
            // annotations, not NVTX: say so (issue 24 item 10).
            if (kinetoImport && l.kind == LaneKind::Nvtx) {
                // Kinds by the importer's ids: a (device, stream)'s gpu_user_annotation thread
                // from 2^40, a named pid's ("Spans") threads from 2^32, real threads below.
                const bool gpuSide = l.tid >= kGpuAnnotationIds;
                const bool span = !gpuSide && l.pid >= kImportedNameIds;
                node->label = (gpuSide       ? QStringLiteral("GPU annotations")
                                      : span ? QStringLiteral("spans")
                                             : QStringLiteral("CPU ops"))
                    + (l.depth > 0 ? QStringLiteral(" (depth %1)").arg(l.depth) : QString());
                node->explanation = gpuSide
                    ? QStringLiteral("record_function ranges as the GPU ran them (Kineto's gpu_user_annotation)")
                    : span ? QStringLiteral("the profiler's own spans (the profiled window)")
                           : QStringLiteral("PyTorch profiler ranges of this thread: aten:: operators (cpu_op), "
                                            "record_function annotations and Python functions; nested ones one "
                                            "row deeper");
            }
            threadNode(l.pid, l.tid)->add(std::move(node));
            break;
        case TrackGroup::Device: {
            node->gpu = true;
            if (node->label.isEmpty())
                node->label = QString::fromStdString(laneKindLabel(l.kind, l.depth, l.streamId));
            if (pidsPerDevice[l.deviceId].size() > 1)
                node->label += QStringLiteral(" (pid %1)").arg(l.pid);
            gpuNode(l.deviceId)->add(std::move(node));
            break;
        }
        case TrackGroup::Kernel: {
            // Children come per block (the block chooser): see fillWarpBlock.
            auto it = kernels.find(l.kernelId);
            if (it == kernels.end()) {
                Node* k = m_root->add(group(QString()));
                k->warpKernel = l.kernelId;
                it = kernels.emplace(l.kernelId, k).first;
            }
            it->second->warpBlockLanes[l.block].push_back(static_cast<int>(li));
            break;
        }
        }
    }

    // A launch's losses in its header, where they show even when the group is collapsed (the
    // warps' own lanes say it too, but only inside the group).
    if (!kernels.empty()) {
        std::map<int64_t, std::pair<int64_t, int64_t>> dropped; // kernel -> events, warps
        for (const auto& [key, n] : iket::droppedEventsByWarp(m_snapshot->meta)) {
            auto& d = dropped[std::get<0>(key)];
            d.first += n;
            ++d.second;
        }
        const auto unrecorded = iket::unrecordedWarpsByKernel(m_snapshot->meta);
        for (auto& [kernel, k] : kernels) {
            if (const auto d = dropped.find(kernel); d != dropped.end()) {
                k->warpLosses += QStringLiteral(" · %1 events lost").arg(formatCount(d->second.first));
                k->lossNotes << QStringLiteral("%1 events lost by %2 warps that ran out of slots (raise eventsPerWarp)")
                                    .arg(formatCount(d->second.first), formatCount(d->second.second));
            }
            if (const auto u = unrecorded.find(kernel); u != unrecorded.end()) {
                k->warpLosses += QStringLiteral(" · %1 warps not recorded").arg(formatCount(u->second));
                k->lossNotes << QStringLiteral(
                    "%1 warps not recorded: outside the grid their ws::iket::Launch was sized for")
                                    .arg(formatCount(u->second));
            }
        }
    }
    // Every traced launch gets a group; only the first starts expanded, so a loop of traced
    // launches does not push everything else off screen (a collapsed group shows its first row).
    for (auto& [kernel, k] : kernels) {
        fillWarpBlock(k, k->warpBlockLanes.begin()->first);
        k->expanded = k == kernels.begin()->second;
    }

    Node* otherCounters = nullptr;
    for (size_t ci = 0; ci < m_snapshot->counters.size(); ++ci) {
        const CounterSeries& c = m_snapshot->counters[ci];
        auto node = std::make_unique<Node>();
        node->kind = Kind::Counter;
        node->counter = static_cast<int>(ci);
        node->events = static_cast<qint64>(c.size());
        node->label = QString::fromStdString(c.name);
        if (!c.unit.empty())
            node->label += QStringLiteral(" [%1]").arg(QString::fromStdString(c.unit));
        if (gpus.count(c.deviceId) || deviceName.count(c.deviceId)) {
            gpuNode(c.deviceId)->add(std::move(node));
        } else {
            if (!otherCounters)
                otherCounters = m_root->add(group(QStringLiteral("Counters")));
            otherCounters->add(std::move(node));
        }
    }
    // GPU groups go after the host groups even when a counter created one early.
    std::stable_sort(m_root->children.begin(), m_root->children.end(), [&](const auto& a, const auto& b) {
        const auto host = [&](const Node* n) {
            return std::any_of(processes.begin(), processes.end(), [n](const auto& p) { return p.second == n; });
        };
        return host(a.get()) && !host(b.get());
    });
    for (auto& [id, n] : gpus)
        n->gpu = true;
    // An imported trace names processes that hold nothing the timeline draws (Kineto's
    // "Traces", whose only event is an instant marker): no empty headers for those (issue 24
    // item 10). A recording keeps every process, so a host-only one still shows what ran.
    if (m_snapshot->meta.count("import.format")) {
        std::function<bool(const Node*)> hasRows = [&](const Node* n) {
            return n->kind != Kind::Group
                || std::any_of(n->children.begin(), n->children.end(), [&](const auto& c) { return hasRows(c.get()); });
        };
        std::erase_if(m_root->children, [&](const auto& c) {
            const bool process
                = std::any_of(processes.begin(), processes.end(), [&](const auto& p) { return p.second == c.get(); });
            return process && !hasRows(c.get());
        });
    }
    // Many host rows would push the GPUs off the first screen: threads start collapsed, each
    // showing its first row (CUDA API) as a summary in its header.
    size_t hostLanes = 0;
    for (const auto& l : m.lanes)
        hostLanes += laneKind(l.kind).group == TrackGroup::Thread ? 1 : 0;
    if (hostLanes > kMaxExpandedHostLanes) {
        for (auto& [key, n] : threads)
            n->expanded = false;
    }
}

void TimelineRowModel::fillWarpBlock(Node* group, int block)
{
    const TimelineModel& m = *m_snapshot->model;
    group->children.clear();
    group->warpBlock = block;
    for (const int li : group->warpBlockLanes[block]) {
        const TimelineLane& l = m.lanes[static_cast<size_t>(li)];
        auto node = std::make_unique<Node>();
        node->kind = Kind::Lane;
        node->lane = li;
        node->events = static_cast<qint64>(l.size());
        node->label = QString::fromStdString(l.label);
        group->add(std::move(node));
    }
    // The per-role summary over the whole launch: waiting shares in the label, every phase's
    // mean and p95 in the tooltip.
    QStringList waiting;
    QString tip;
    for (const auto& r : iket::warpRoles(m)) {
        if (r.kernelId != group->warpKernel)
            continue;
        const QString role = QString::fromStdString(m.strings.at(r.role));
        waiting << QStringLiteral("%1: %2% of the time waiting").arg(role).arg(100.0 * r.waitShare(), 0, 'f', 0);
        tip += QStringLiteral("\n%1 (%2 warps, %3% of their time waiting)")
                   .arg(role)
                   .arg(r.warps)
                   .arg(100.0 * r.waitShare(), 0, 'f', 1);
        for (const auto& p : r.phases)
            tip += QStringLiteral("\n    %1 ×%2: mean %3, p95 %4")
                       .arg(QString::fromStdString(m.strings.at(p.name)))
                       .arg(p.count)
                       .arg(
                           formatDuration(static_cast<TimeNs>(p.meanNs)), formatDuration(static_cast<TimeNs>(p.p95Ns)));
    }
    group->label = QStringLiteral("kernel #%1 warp roles · block %2 of %3")
                       .arg(group->warpKernel)
                       .arg(block)
                       .arg(group->warpBlockLanes.size())
        + group->warpLosses;
    group->note = (group->lossNotes + waiting).join(QStringLiteral(" · "));
    // Tooltip lines each start with a line break: they follow the row's path and event count.
    group->tooltip.clear();
    for (const QString& loss : std::as_const(group->lossNotes))
        group->tooltip += QLatin1Char('\n') + loss;
    group->tooltip += tip;
}

QList<int> TimelineRowModel::warpBlocks(const QModelIndex& groupIndex) const
{
    QList<int> blocks;
    if (const Node* n = nodeFor(groupIndex); groupIndex.isValid() && n->warpKernel >= 0)
        for (const auto& [block, lanes] : n->warpBlockLanes)
            blocks << block;
    return blocks;
}

int TimelineRowModel::warpBlock(const QModelIndex& groupIndex) const
{
    return groupIndex.isValid() ? nodeFor(groupIndex)->warpBlock : -1;
}

bool TimelineRowModel::setWarpBlock(const QModelIndex& groupIndex, int block)
{
    if (!groupIndex.isValid())
        return false;
    Node* n = nodeFor(groupIndex);
    if (n->warpKernel < 0 || n->warpBlockLanes.count(block) == 0)
        return false;
    if (n->warpBlock == block)
        return true;
    const QModelIndex index = indexFor(n);
    if (!n->children.empty()) {
        beginRemoveRows(index, 0, static_cast<int>(n->children.size()) - 1);
        n->children.clear();
        endRemoveRows();
    }
    const auto count = static_cast<int>(n->warpBlockLanes[block].size());
    beginInsertRows(index, 0, count - 1);
    fillWarpBlock(n, block);
    endInsertRows();
    emit dataChanged(index, indexFor(n, ColumnCount - 1));
    emit rowsLayoutChanged();
    return true;
}

TimelineRowModel::Node* TimelineRowModel::nodeFor(const QModelIndex& index) const
{
    if (!index.isValid())
        return m_root.get();
    return static_cast<Node*>(index.internalPointer());
}

QModelIndex TimelineRowModel::indexFor(const Node* node, int column) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row(), column, const_cast<Node*>(node));
}

QModelIndex TimelineRowModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    const Node* p = nodeFor(parent);
    return createIndex(row, column, p->children[static_cast<size_t>(row)].get());
}

QModelIndex TimelineRowModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const Node* n = nodeFor(child);
    return indexFor(n->parent);
}

int TimelineRowModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(nodeFor(parent)->children.size());
}

int TimelineRowModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant TimelineRowModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == NameColumn ? QStringLiteral("Row") : QStringLiteral("Events");
}

QVariant TimelineRowModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Node* n = nodeFor(index);
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return n->pinned ? QStringLiteral("%1  (pinned)").arg(n->label) : n->label;
        return formatCount(n->totalEvents());
    case Qt::CheckStateRole:
        if (index.column() == NameColumn)
            return n->visible ? Qt::Checked : Qt::Unchecked;
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == EventsColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        return QStringLiteral("%1\n%2 events").arg(data(index, PathRole).toString(), formatCount(n->totalEvents()))
            + n->tooltip + (n->explanation.isEmpty() ? QString() : QLatin1Char('\n') + n->explanation);
    case KindRole:
        return static_cast<int>(n->kind);
    case LaneIndexRole:
        return n->lane;
    case CounterIndexRole:
        return n->counter;
    case PinnedRole:
        return n->pinned;
    case ExpandedRole:
        return n->expanded;
    case IsGpuRole:
        return n->gpu;
    case PathRole: {
        QStringList parts;
        for (const Node* p = n; p && p != m_root.get(); p = p->parent)
            parts.prepend(p->label);
        return parts.join(QStringLiteral(" · "));
    }
    default:
        return {};
    }
}

bool TimelineRowModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid())
        return false;
    Node* n = nodeFor(index);
    bool* field = nullptr;
    bool v = value.toBool();
    switch (role) {
    case Qt::CheckStateRole:
        field = &n->visible;
        v = value.toInt() == Qt::Checked;
        break;
    case PinnedRole:
        if (n->kind == Kind::Group)
            return false;
        field = &n->pinned;
        break;
    case ExpandedRole:
        field = &n->expanded;
        break;
    default:
        return false;
    }
    if (*field == v)
        return true;
    *field = v;
    emit dataChanged(indexFor(n, 0), indexFor(n, ColumnCount - 1));
    emit rowsLayoutChanged();
    return true;
}

Qt::ItemFlags TimelineRowModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == NameColumn)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

bool TimelineRowModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
    const QModelIndex& destinationParent, int destinationChild)
{
    // Rows move only among their siblings: a stream belongs to its GPU.
    if (sourceParent != destinationParent || count <= 0)
        return false;
    Node* p = nodeFor(sourceParent);
    const int n = static_cast<int>(p->children.size());
    if (sourceRow < 0 || sourceRow + count > n || destinationChild < 0 || destinationChild > n)
        return false;
    if (destinationChild >= sourceRow && destinationChild <= sourceRow + count)
        return false; // no-op, and beginMoveRows refuses it
    if (!beginMoveRows(sourceParent, sourceRow, sourceRow + count - 1, destinationParent, destinationChild))
        return false;
    std::vector<std::unique_ptr<Node>> moved;
    for (int i = 0; i < count; ++i)
        moved.push_back(std::move(p->children[static_cast<size_t>(sourceRow + i)]));
    p->children.erase(p->children.begin() + sourceRow, p->children.begin() + sourceRow + count);
    const int insertAt = destinationChild > sourceRow ? destinationChild - count : destinationChild;
    p->children.insert(
        p->children.begin() + insertAt, std::make_move_iterator(moved.begin()), std::make_move_iterator(moved.end()));
    endMoveRows();
    emit rowsLayoutChanged();
    return true;
}

bool TimelineRowModel::moveUp(const QModelIndex& index)
{
    if (!index.isValid() || index.row() == 0)
        return false;
    return moveRows(index.parent(), index.row(), 1, index.parent(), index.row() - 1);
}

bool TimelineRowModel::moveDown(const QModelIndex& index)
{
    if (!index.isValid() || index.row() + 1 >= rowCount(index.parent()))
        return false;
    return moveRows(index.parent(), index.row(), 1, index.parent(), index.row() + 2);
}

void TimelineRowModel::setExpanded(const QModelIndex& index, bool expanded)
{
    setData(index, expanded, ExpandedRole);
}

void TimelineRowModel::setPinned(const QModelIndex& index, bool pinned)
{
    setData(index, pinned, PinnedRole);
}

void TimelineRowModel::setVisible(const QModelIndex& index, bool visible)
{
    setData(index, visible ? Qt::Checked : Qt::Unchecked, Qt::CheckStateRole);
}

void TimelineRowModel::showAll()
{
    const std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        for (int r = 0; r < rowCount(parent); ++r) {
            const QModelIndex i = index(r, 0, parent);
            setVisible(i, true);
            walk(i);
        }
    };
    walk({});
}

void TimelineRowModel::expandAll(bool expanded)
{
    const std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        for (int r = 0; r < rowCount(parent); ++r) {
            const QModelIndex i = index(r, 0, parent);
            if (rowCount(i) > 0) {
                setExpanded(i, expanded);
                walk(i);
            }
        }
    };
    walk({});
}

QModelIndex TimelineRowModel::indexForId(quintptr id) const
{
    const std::function<const Node*(const Node*)> find = [&](const Node* n) -> const Node* {
        if (reinterpret_cast<quintptr>(n) == id)
            return n;
        for (const auto& c : n->children) {
            if (const Node* f = find(c.get()))
                return f;
        }
        return nullptr;
    };
    return indexFor(find(m_root.get()));
}

int TimelineRowModel::firstLane(const Node* node)
{
    for (const auto& c : node->children) {
        if (c->kind == Kind::Lane && c->visible)
            return c->lane;
    }
    return -1;
}

void TimelineRowModel::lanesUnder(const Node* node, std::vector<int>& out)
{
    for (const auto& c : node->children) {
        if (c->lane >= 0)
            out.push_back(c->lane);
        lanesUnder(c.get(), out);
    }
}

void TimelineRowModel::collect(
    const Node* node, int depth, std::vector<Row>& out, bool pinnedOnly, const QString& prefix) const
{
    for (const auto& c : node->children) {
        if (!c->visible)
            continue;
        const QString path = prefix.isEmpty() ? c->label : prefix + QStringLiteral(" · ") + c->label;
        if (!pinnedOnly || (c->pinned && c->kind != Kind::Group)) {
            if (pinnedOnly || !c->pinned) {
                Row r;
                r.kind = c->kind;
                r.lane = c->lane;
                r.counter = c->counter;
                r.depth = depth;
                r.expanded = c->expanded;
                if (c->kind == Kind::Group && !c->expanded) {
                    r.summaryLane = firstLane(c.get());
                    lanesUnder(c.get(), r.hiddenLanes);
                }
                r.gpu = c->gpu;
                r.pinned = c->pinned;
                r.label = pinnedOnly ? path : c->label;
                r.note = c->note;
                r.explanation = c->explanation;
                r.path = path;
                r.id = reinterpret_cast<quintptr>(c.get());
                out.push_back(std::move(r));
            }
        }
        // Pinned rows are searched everywhere; normal rows stop at collapsed groups.
        if (pinnedOnly || c->expanded)
            collect(c.get(), depth + 1, out, pinnedOnly, path);
    }
}

std::vector<TimelineRowModel::Row> TimelineRowModel::rows() const
{
    std::vector<Row> out;
    collect(m_root.get(), 0, out, false, {});
    return out;
}

std::vector<TimelineRowModel::Row> TimelineRowModel::pinnedRows() const
{
    std::vector<Row> out;
    collect(m_root.get(), 0, out, true, {});
    return out;
}

} // namespace ws

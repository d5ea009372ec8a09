// SPDX-License-Identifier: MIT
#include "ui/panels/kernelfocus.h"

#include "core/ranking/kernelranking.h"
#include "ui/session/sessionsnapshot.h"

#include <algorithm>

#include <QFileInfo>

namespace ws {

KernelFocus::KernelFocus(SelectionModel* selection, QObject* parent)
    : QObject(parent)
    , m_selection(selection)
{
    connect(m_selection, &SelectionModel::selectedEventChanged, this, &KernelFocus::onSelectedEvent);
    connect(m_selection, &SelectionModel::selectedNameChanged, this, &KernelFocus::onSelectedName);
}

void KernelFocus::setLoading(const QString& path)
{
    m_loadingPath = path;
    m_data.reset();
    m_snapshot.reset();
    m_pinned.clear();
    m_current = -1;
    emit dataChanged();
    emit changed();
}

QString KernelFocus::emptyText() const
{
    if (isLoading())
        return tr("Loading the kernels of %1…").arg(QFileInfo(m_loadingPath).fileName());
    return tr("No session.");
}

void KernelFocus::setData(std::shared_ptr<const PanelData> data, std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_loadingPath.clear();
    // The same file read again (a run was appended and the session reloaded): launch ids of the
    // earlier runs do not change, so the current kernel and the pins stay and refill.
    const bool sameSession = m_data && data && !data->path.isEmpty() && m_data->path == data->path;
    const qint64 previous = sameSession ? m_current : -1;
    const QList<qint64> pinned = sameSession ? m_pinned : QList<qint64> {};
    m_data = std::move(data);
    m_snapshot = std::move(snapshot);
    m_pinned.clear();
    m_current = -1;
    for (qint64 id : pinned) {
        if (m_data->launches.find(id))
            m_pinned.append(id);
    }
    if (previous >= 0 && m_data->launches.find(previous))
        m_current = previous;
    // A profile session opens on its most expensive profiled kernel: there is something to
    // read before the first click.
    if (m_current < 0 && m_data && !m_data->launches.empty()) {
        const EventSelection e = m_selection->selectedEvent();
        if (e.isValid() && e.ref.table() == EventTable::Kernel
            && m_data->launches.find(m_data->shownLaunch(e.ref.rowid()))) {
            m_current = m_data->shownLaunch(e.ref.rowid());
        } else {
            for (const KernelRank& r : m_data->ranking) {
                const auto* l = m_data->representative(r.group);
                if (l && (!m_data->hasMetrics() || m_data->profiled(l->id))) {
                    m_current = l->id;
                    break;
                }
            }
        }
    }
    emit dataChanged();
    emit changed();
}

QList<KernelFocus::Column> KernelFocus::columns() const
{
    QList<Column> out;
    for (qint64 id : m_pinned)
        out.append({id, true, id == m_current});
    if (m_current >= 0 && !m_pinned.contains(m_current))
        out.append({m_current, false, true});
    return out;
}

int KernelFocus::currentGroup() const
{
    if (!m_data || m_current < 0)
        return -1;
    const auto* l = m_data->launches.find(m_current);
    return l ? static_cast<int>(l->group) : -1;
}

EventSelection KernelFocus::eventFor(qint64 kernelId) const
{
    EventSelection e;
    if (!m_snapshot || !m_snapshot->model || !m_data)
        return e;
    const KernelLaunchTable::Launch* l = m_data->launches.find(kernelId);
    if (!l)
        return e;
    const EventRef ref = EventRef::make(EventTable::Kernel, kernelId);
    const auto& lanes = m_snapshot->model->lanes;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const TimelineLane& lane = lanes[i];
        if (lane.kind != LaneKind::GpuStream || lane.pid != l->pid || lane.deviceId != l->deviceId
            || lane.streamId != l->streamId)
            continue;
        auto it = std::lower_bound(lane.start.begin(), lane.start.end(), l->start);
        for (; it != lane.start.end() && *it == l->start; ++it) {
            const size_t index = static_cast<size_t>(it - lane.start.begin());
            if (lane.ref[index] == ref) {
                e.lane = static_cast<int>(i);
                e.index = static_cast<quint32>(index);
                e.ref = ref;
                e.start = lane.start[index];
                e.end = lane.endAt(index);
                e.name = m_snapshot->qstr(lane.name[index]);
                return e;
            }
        }
    }
    return e;
}

void KernelFocus::selectKernel(qint64 kernelId)
{
    if (!m_data)
        return;
    const KernelLaunchTable::Launch* l = m_data->launches.find(kernelId);
    if (!l)
        return;
    setCurrent(kernelId);
    // Selecting the event also names the kernel (SelectionModel uses the timeline's name for
    // it); without a timeline event, name it the same way ourselves.
    const EventSelection e = eventFor(kernelId);
    if (e.isValid())
        m_selection->setSelectedEvent(e);
    else
        m_selection->setSelectedName(QString::fromStdString(m_data->launches.groups()[l->group].shortName));
}

void KernelFocus::selectGroup(int group)
{
    if (!m_data || group < 0)
        return;
    if (const auto* l = m_data->representative(static_cast<uint32_t>(group)))
        selectKernel(l->id);
}

void KernelFocus::pin(qint64 kernelId)
{
    if (m_pinned.contains(kernelId) || !m_data || !m_data->launches.find(kernelId))
        return;
    if (m_pinned.size() >= kMaxPinned)
        m_pinned.removeFirst();
    m_pinned.append(kernelId);
    emit changed();
}

void KernelFocus::unpin(qint64 kernelId)
{
    if (m_pinned.removeAll(kernelId) > 0)
        emit changed();
}

void KernelFocus::togglePinCurrent()
{
    if (m_current < 0)
        return;
    if (isPinned(m_current))
        unpin(m_current);
    else
        pin(m_current);
}

void KernelFocus::clearPins()
{
    if (m_pinned.isEmpty())
        return;
    m_pinned.clear();
    emit changed();
}

void KernelFocus::frameSpan(TimeNs start, TimeNs end)
{
    const TimeNs d = std::max<TimeNs>(end - start, 10);
    m_selection->jumpToViewRange({start - d / 10, end + d / 10});
}

void KernelFocus::revealSpan(TimeNs start, TimeNs end)
{
    const TimeRange v = m_selection->viewRange();
    const TimeNs d = std::max<TimeNs>(end - start, 1);
    // Already in view: leave the user's zoom alone.
    if (!v.isEmpty() && start >= v.begin && end <= v.end)
        return;
    TimeNs span = v.isEmpty() ? d * 10 : v.duration();
    if (static_cast<double>(d) < static_cast<double>(span) / 50.0)
        span = std::max<TimeNs>(d * 50, 100);
    span = std::max(span, d + d / 5); // wider than the span itself
    const TimeNs mid = start + d / 2;
    m_selection->jumpToViewRange({mid - span / 2, mid - span / 2 + span});
}

void KernelFocus::setCurrent(qint64 kernelId)
{
    if (kernelId == m_current)
        return;
    m_current = kernelId;
    emit changed();
}

void KernelFocus::onSelectedEvent(const EventSelection& e)
{
    // Only kernels move the focus; picking an API call or a copy keeps the panels as they are.
    if (!m_data || !e.isValid() || e.ref.table() != EventTable::Kernel)
        return;
    // A profiled launch of another run focuses the traced launch it was measured for.
    if (const KernelLaunchTable::Launch* l = m_data->launches.find(m_data->shownLaunch(e.ref.rowid())))
        setCurrent(l->id);
}

void KernelFocus::onSelectedName(const QString& name)
{
    // The shared name is the timeline's (the short name); a full demangled name is accepted
    // too. Several kernels can share a short name: the current one keeps the focus if it has it.
    if (!m_data || name.isEmpty())
        return;
    const std::string n = name.toStdString();
    const auto& groups = m_data->launches.groups();
    auto matches = [&](int g) {
        return groups[static_cast<size_t>(g)].name == n || groups[static_cast<size_t>(g)].shortName == n;
    };
    const int current = currentGroup();
    if (current >= 0 && matches(current))
        return;
    for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
        if (matches(g)) {
            if (const auto* l = m_data->representative(static_cast<uint32_t>(g)))
                setCurrent(l->id);
            return;
        }
    }
}

} // namespace ws

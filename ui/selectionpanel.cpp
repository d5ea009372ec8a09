// SPDX-License-Identifier: MIT
#include "ui/selectionpanel.h"

#include "ui/style/timeformat.h"

#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace ws {

SelectionPanel::SelectionPanel(SelectionModel* selection, EventDetailsSource* details, QWidget* parent)
    : QWidget(parent)
    , m_selection(selection)
    , m_source(details)
    , m_tree(new QTreeWidget(this))
{
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Field"), tr("Value")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->setRootIsDecorated(false);
    m_tree->setAlternatingRowColors(true);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(m_tree);
    connect(m_selection, &SelectionModel::timeRangeChanged, this, &SelectionPanel::refresh);
    // The details of the new selection may already be here: the timeline requests them on the
    // same signal and a hovered event's are cached, in which case they are delivered at once,
    // possibly before this slot runs (connection order). Taking them from the cache here, and
    // accepting an answer from either channel, means they can never be wiped by the reset.
    connect(m_selection, &SelectionModel::selectedEventChanged, this, [this] {
        const EventSelection e = m_selection->selectedEvent();
        const EventDetails* known = e.isValid() && m_source ? m_source->cached(e.lane, e.index) : nullptr;
        m_details = known ? *known : EventDetails {};
        refresh();
    });
    connect(details, &EventDetailsSource::detailsReady, this, [this](int, const EventDetails& d) {
        const EventSelection e = m_selection->selectedEvent();
        if (e.isValid() && e.lane == d.lane && e.index == d.index) {
            m_details = d;
            refresh();
        }
    });
}

void SelectionPanel::setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_details = {};
    refresh();
}

void SelectionPanel::refresh()
{
    m_tree->clear();
    if (!m_snapshot)
        return;
    const auto add = [this](const QString& k, const QString& v, bool bold = false) {
        auto* item = new QTreeWidgetItem(m_tree, {k, v});
        item->setToolTip(1, v);
        if (bold) {
            QFont f = item->font(0);
            f.setBold(true);
            item->setFont(0, f);
            item->setFont(1, f);
        }
    };
    const TimeNs origin = m_snapshot->begin();
    const TimeRange r = m_selection->timeRange();
    if (!r.isEmpty()) {
        add(tr("Time range"), formatDuration(r.duration()), true);
        add(tr("From"), QStringLiteral("+%1").arg(formatDuration(r.begin - origin)));
        add(tr("To"), QStringLiteral("+%1").arg(formatDuration(r.end - origin)));
        qint64 events = 0;
        qint64 gpu = 0;
        struct Span {
            const TimelineLane* lane;
            size_t first;
            size_t last;
        };
        std::vector<Span> gpuSpans;
        for (const auto& lane : m_snapshot->model->lanes) {
            // Two binary searches per lane: events overlapping the range.
            const size_t first = lane.ends().upperBound(r.begin);
            const auto last = static_cast<size_t>(
                std::lower_bound(lane.start.begin(), lane.start.end(), r.end) - lane.start.begin());
            if (last <= first)
                continue;
            events += static_cast<qint64>(last - first);
            if (lane.kind == LaneKind::GpuStream) {
                gpu += static_cast<qint64>(last - first);
                gpuSpans.push_back({&lane, first, last});
            }
        }
        add(tr("Events in range"), formatCount(events));
        // Busy time (events clipped to the range) costs one pass over the range's GPU work:
        // done here only when that is small, so the GUI thread never stalls on it.
        constexpr qint64 kMaxSummed = 200000;
        if (gpu <= kMaxSummed) {
            TimeNs busy = 0;
            for (const Span& sp : gpuSpans) {
                for (size_t k = sp.first; k < sp.last; ++k)
                    busy += std::min(sp.lane->endAt(k), r.end) - std::max(sp.lane->start[k], r.begin);
            }
            add(tr("GPU work in range"),
                tr("%1 events, busy %2 (summed over streams)").arg(formatCount(gpu), formatDuration(busy)));
        } else {
            add(tr("GPU work in range"), tr("%1 events").arg(formatCount(gpu)));
        }
    }
    const EventSelection e = m_selection->selectedEvent();
    if (e.isValid()) {
        add(tr("Selected"), e.name, true);
        const EventDetails& d = m_details;
        if (d.lane == e.lane && d.index == e.index) {
            for (const auto& [k, v] : d.fields)
                add(k, v);
            if (!d.error.isEmpty())
                add(tr("Details"), tr("unavailable: %1").arg(d.error));
        } else {
            add(tr("Start"), QStringLiteral("+%1").arg(formatDuration(e.start - origin)));
            add(tr("Duration"), formatDuration(e.end - e.start));
            if (m_snapshot->hasFile)
                add(tr("Details"), tr("reading…"));
        }
        add(tr("Row"), QString::fromStdString(m_snapshot->model->lanes[static_cast<size_t>(e.lane)].label));
    }
    if (r.isEmpty() && !e.isValid())
        add(tr("Nothing selected"), tr("click an event, or Shift+drag a time range"));
}

} // namespace ws

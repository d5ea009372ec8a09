// SPDX-License-Identifier: MIT
#include "ui/session/selectionmodel.h"

namespace ws {

namespace {
constexpr int kHistoryLimit = 100;
}

SelectionModel::SelectionModel(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<ws::TimeRange>();
    qRegisterMetaType<ws::EventSelection>();
}

void SelectionModel::setViewRange(TimeRange range)
{
    if (range.isEmpty() || range == m_view)
        return;
    m_view = range;
    emit viewRangeChanged(m_view);
}

void SelectionModel::jumpToViewRange(TimeRange range)
{
    if (range.isEmpty() || range == m_view)
        return;
    if (!m_view.isEmpty()) {
        m_back.append(m_view);
        if (m_back.size() > kHistoryLimit)
            m_back.removeFirst();
    }
    m_forward.clear();
    setViewRange(range);
    emit historyChanged();
}

void SelectionModel::goBack()
{
    if (m_back.isEmpty())
        return;
    m_forward.append(m_view);
    setViewRange(m_back.takeLast());
    emit historyChanged();
}

void SelectionModel::goForward()
{
    if (m_forward.isEmpty())
        return;
    m_back.append(m_view);
    setViewRange(m_forward.takeLast());
    emit historyChanged();
}

void SelectionModel::setTimeRange(TimeRange range)
{
    if (range.isEmpty())
        range = {};
    if (range == m_range)
        return;
    m_range = range;
    emit timeRangeChanged(m_range);
}

void SelectionModel::setSelectedEvent(const EventSelection& event)
{
    const EventSelection e = event.isValid() ? event : EventSelection {};
    if (e == m_event)
        return;
    m_event = e;
    emit selectedEventChanged(m_event);
    if (e.isValid() && e.ref.table() == EventTable::Kernel)
        setSelectedName(e.name);
}

void SelectionModel::setSelectedName(const QString& name)
{
    if (name == m_name)
        return;
    m_name = name;
    emit selectedNameChanged(m_name);
}

void SelectionModel::reset(TimeRange view)
{
    m_back.clear();
    m_forward.clear();
    setSelectedEvent({});
    setSelectedName({});
    setTimeRange({});
    setViewRange(view);
    emit historyChanged();
}

} // namespace ws

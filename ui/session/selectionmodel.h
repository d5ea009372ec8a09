// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/timeline/timelinemodel.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

namespace ws {

// A half-open time interval in session nanoseconds; empty when end <= begin.
struct TimeRange {
    TimeNs begin = 0;
    TimeNs end = 0;
    bool isEmpty() const { return end <= begin; }
    TimeNs duration() const { return isEmpty() ? 0 : end - begin; }
    bool operator==(const TimeRange&) const = default;
};

// One event picked on the timeline (or by any panel): where it sits and what it is.
struct EventSelection {
    int lane = -1; // index into TimelineModel::lanes
    quint32 index = 0;
    EventRef ref;
    TimeNs start = 0;
    TimeNs end = 0;
    QString name;
    bool isValid() const { return lane >= 0; }
    bool operator==(const EventSelection&) const = default;
};

// The one selection and zoom state every panel shares (hotspot's FilterAndZoomStack idea):
// the visible range, the range selection (the app-wide time filter), the selected event and
// the selected kernel name. Each signal fires once per real change, never for a no-op set.
// Zoom history keeps the view ranges that explicit actions (fit, zoom to selection, jump)
// left behind, for Back / Forward.
class SelectionModel : public QObject {
    Q_OBJECT
public:
    explicit SelectionModel(QObject* parent = nullptr);

    TimeRange viewRange() const { return m_view; }
    TimeRange timeRange() const { return m_range; }
    EventSelection selectedEvent() const { return m_event; }
    QString selectedName() const { return m_name; }

    // The time filter panels should apply: the range selection, or everything when empty.
    bool hasTimeFilter() const { return !m_range.isEmpty(); }

    bool canGoBack() const { return !m_back.isEmpty(); }
    bool canGoForward() const { return !m_forward.isEmpty(); }

public slots:
    void setViewRange(ws::TimeRange range);
    // Like setViewRange, but remembers the range it leaves for goBack().
    void jumpToViewRange(ws::TimeRange range);
    void goBack();
    void goForward();

    void setTimeRange(ws::TimeRange range);
    void clearTimeRange() { setTimeRange({}); }
    void setSelectedEvent(const ws::EventSelection& event);
    void clearSelectedEvent() { setSelectedEvent({}); }
    void setSelectedName(const QString& name);
    // A new session: forget everything, history included.
    void reset(ws::TimeRange view);

signals:
    void viewRangeChanged(ws::TimeRange range);
    void timeRangeChanged(ws::TimeRange range);
    void selectedEventChanged(const ws::EventSelection& event);
    void selectedNameChanged(const QString& name);
    void historyChanged();

private:
    TimeRange m_view;
    TimeRange m_range;
    EventSelection m_event;
    QString m_name;
    QList<TimeRange> m_back;
    QList<TimeRange> m_forward;
};

} // namespace ws

Q_DECLARE_METATYPE(ws::TimeRange)
Q_DECLARE_METATYPE(ws::EventSelection)

// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/paneldata.h"
#include "ui/session/selectionmodel.h"

#include <QList>
#include <QObject>

#include <memory>

namespace ws {

class SessionSnapshot;

// The kernels the details panels, the roofline and the diagnosis look at: the one the shared
// selection points at ("current") plus kernels the user pinned to compare side by side. It
// listens to the SelectionModel (a kernel picked on the timeline, or a kernel name picked in
// the ranking) and writes back to it when a panel picks a kernel, so every view follows.
class KernelFocus : public QObject {
    Q_OBJECT
public:
    explicit KernelFocus(SelectionModel* selection, QObject* parent = nullptr);

    // New session. The snapshot maps kernel ids to timeline events (may be null: then picking
    // a kernel sets only the selected name).
    void setData(std::shared_ptr<const PanelData> data, std::shared_ptr<const SessionSnapshot> snapshot);
    const std::shared_ptr<const PanelData>& data() const { return m_data; }
    SelectionModel* selection() const { return m_selection; }

    // A session's panel data is being read on a worker: the panels drop the previous session's
    // data and say so instead of "No session." until setData() brings the new one.
    void setLoading(const QString& path);
    bool isLoading() const { return !m_loadingPath.isEmpty(); }
    // What a panel without data shows: "Loading <file>…" or "No session.".
    QString emptyText() const;

    qint64 current() const { return m_current; }
    const QList<qint64>& pinned() const { return m_pinned; }
    bool isPinned(qint64 kernelId) const { return m_pinned.contains(kernelId); }

    struct Column {
        qint64 kernelId = -1;
        bool pinned = false;
        bool current = false;
    };
    // Pinned kernels in pin order, then the current one when it is not pinned.
    QList<Column> columns() const;
    // The group (kernel name) of the current kernel, -1 without one.
    int currentGroup() const;

    // The timeline event of a launch; invalid when the snapshot has none.
    EventSelection eventFor(qint64 kernelId) const;

    static constexpr int kMaxPinned = 6;

    // Where a table row sends the timeline (the shared view range, so every view follows):
    // frameSpan shows [start, end) with a tenth of margin each side, as search frames a hit;
    // revealSpan scrolls only when the span is not wholly in view, keeping the zoom unless the
    // span would be under 2 % of it (then it zooms in, as the timeline's reveal does). Both remember the range they
    // leave (Back).
    void frameSpan(TimeNs start, TimeNs end);
    void revealSpan(TimeNs start, TimeNs end);

public slots:
    // Makes a launch current and selects it everywhere: its timeline event, and with it the
    // selected kernel name (the timeline's short name).
    void selectKernel(qint64 kernelId);
    // Makes a kernel name current through its representative launch.
    void selectGroup(int group);
    void pin(qint64 kernelId);
    void unpin(qint64 kernelId);
    void togglePinCurrent();
    void clearPins();

signals:
    void changed();     // current or pins changed
    void dataChanged(); // a new session

private:
    void onSelectedEvent(const EventSelection& e);
    void onSelectedName(const QString& name);
    void setCurrent(qint64 kernelId);

    SelectionModel* m_selection;
    std::shared_ptr<const PanelData> m_data;
    std::shared_ptr<const SessionSnapshot> m_snapshot;
    qint64 m_current = -1;
    QList<qint64> m_pinned;
    QString m_loadingPath;
};

} // namespace ws

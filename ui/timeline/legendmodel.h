// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/selectionmodel.h"
#include "ui/session/sessionsnapshot.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace ws {

class BackgroundJob;

// The timeline's legend: every event name with its colour, total time and count, largest
// total first. It follows the app-wide time filter (the range selection): totals count the
// events that overlap the range. Sums run on a worker thread.
class LegendModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn = 0, TotalColumn, CountColumn, ColumnCount };
    enum Role { NameIdRole = Qt::UserRole + 1, TotalNsRole };

    struct Entry {
        StringId name = 0;
        TimeNs total = 0;
        qint64 count = 0;
    };

    explicit LegendModel(QObject* parent = nullptr);
    ~LegendModel() override;

    void setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot);
    void setTimeRange(ws::TimeRange range);
    TimeRange timeRange() const { return m_range; }
    const std::vector<Entry>& entries() const { return m_entries; }

    // Synchronous core (worker and tests): per name totals over events overlapping `range`
    // (everything when the range is empty), sorted by total, then count, then name id.
    static std::vector<Entry> compute(const SessionSnapshot& s, TimeRange range, const CancellationToken& cancel = {});

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void updated();

private:
    void recompute();

    std::shared_ptr<const SessionSnapshot> m_snapshot;
    TimeRange m_range;
    std::vector<Entry> m_entries;
    BackgroundJob* m_job; // the sums for the newest snapshot and range
};

} // namespace ws

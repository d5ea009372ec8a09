// SPDX-License-Identifier: MIT
#include "ui/timeline/legendmodel.h"

#include "core/analysis/commkernels.h"

#include "ui/session/backgroundjob.h"
#include "ui/style/timeformat.h"

#include <QColor>

#include <algorithm>

namespace ws {

namespace {

// Communication names say so, not only through their colour family.
QString nameText(const SessionSnapshot& s, StringId name)
{
    const std::string& text = s.str(name);
    if (!isCommunicationName(text))
        return QString::fromStdString(text);
    return QStringLiteral("%1  [%2]")
        .arg(QString::fromStdString(text),
            QString::fromLatin1(kCommFamilyLabel.data(), static_cast<qsizetype>(kCommFamilyLabel.size())));
}

} // namespace

LegendModel::LegendModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_job(new BackgroundJob(BackgroundJob::pool("legend", 1), this))
{
}

LegendModel::~LegendModel() = default;

void LegendModel::setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_range = {};
    recompute();
}

void LegendModel::setTimeRange(TimeRange range)
{
    if (range == m_range)
        return;
    m_range = range;
    recompute();
}

std::vector<LegendModel::Entry> LegendModel::compute(
    const SessionSnapshot& s, TimeRange range, const CancellationToken& cancel)
{
    std::vector<Entry> out;
    if (!s.model)
        return out;
    std::vector<Entry> per(s.model->strings.size());
    for (const auto& lane : s.model->lanes) {
        if (cancel.isCancelled())
            return {};
        size_t first = 0;
        size_t last = lane.size();
        if (!range.isEmpty()) {
            // Events overlapping [begin, end): end > begin and start < end; ends are sorted too.
            first = lane.ends().upperBound(range.begin);
            last = static_cast<size_t>(
                std::lower_bound(lane.start.begin(), lane.start.end(), range.end) - lane.start.begin());
        }
        for (size_t k = first; k < last; ++k) {
            const StringId id = lane.name[k];
            if (id >= per.size())
                continue;
            per[id].total += lane.endAt(k) - lane.start[k];
            ++per[id].count;
        }
    }
    for (size_t i = 0; i < per.size(); ++i) {
        if (per[i].count > 0) {
            per[i].name = static_cast<StringId>(i);
            out.push_back(per[i]);
        }
    }
    std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
        return std::tie(b.total, b.count, a.name) < std::tie(a.total, a.count, b.name);
    });
    return out;
}

void LegendModel::recompute()
{
    if (!m_snapshot) {
        m_job->discard();
        beginResetModel();
        m_entries.clear();
        endResetModel();
        emit updated();
        return;
    }
    m_job->start([snapshot = m_snapshot, range = m_range](
                     const BackgroundJob::Context& context) { return compute(*snapshot, range, context.cancel); },
        [this](std::vector<Entry> entries) {
            beginResetModel();
            m_entries = std::move(entries);
            endResetModel();
            emit updated();
        });
}

int LegendModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int LegendModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LegendModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return QStringLiteral("Name");
        case TotalColumn:
            return QStringLiteral("Total time");
        case CountColumn:
            return QStringLiteral("Count");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole)
        return QStringLiteral(
            "Sums over events that overlap the selected time range (all events when none is selected)");
    return {};
}

QVariant LegendModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || !m_snapshot)
        return {};
    const Entry& e = m_entries[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return nameText(*m_snapshot, e.name);
        case TotalColumn:
            return formatDuration(e.total);
        case CountColumn:
            return formatCount(e.count);
        default:
            return {};
        }
    case Qt::DecorationRole:
        if (index.column() == NameColumn)
            return QColor::fromRgb(m_snapshot->color(e.name));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() != NameColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        return nameText(*m_snapshot, e.name);
    case NameIdRole:
        return static_cast<quint32>(e.name);
    case TotalNsRole:
        return static_cast<qint64>(e.total);
    default:
        return {};
    }
}

} // namespace ws

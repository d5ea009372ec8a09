// SPDX-License-Identifier: MIT
#include "ui/compare/hypothesismodel.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace ws {

HypothesisModel::HypothesisModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void HypothesisModel::setHypotheses(
    const std::vector<compare::Hypothesis>& list, const std::vector<compare::HypothesisResult>& results)
{
    beginResetModel();
    m_list = list;
    m_results = results;
    endResetModel();
}

void HypothesisModel::addHypothesis(const compare::Hypothesis& h)
{
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_list.push_back(h);
    endInsertRows();
    emit hypothesesEdited(m_list);
}

int HypothesisModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_list.size());
}

int HypothesisModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HypothesisModel::data(const QModelIndex& index, int role) const
{
    if (index.row() < 0 || index.row() >= rowCount() || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const auto row = static_cast<size_t>(index.row());
    const compare::Hypothesis& h = m_list[row];
    const compare::HypothesisResult* r = row < m_results.size() ? &m_results[row] : nullptr;
    const auto col = static_cast<Column>(index.column());
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (col) {
        case Subject:
            return QString::fromStdString(h.subject);
        case Kernel:
            return QString::fromStdString(h.kernel);
        case Direction:
            return QString::fromLatin1(compare::directionName(h.direction));
        case Size:
            return h.sizePct ? QVariant(*h.sizePct) : QVariant(QString());
        case Outcome:
            if (!r)
                return tr("not checked yet");
            return !r->evaluated ? tr("not checked") : (r->held ? tr("held") : tr("did not hold"));
        case Observed:
            if (!r || !std::isfinite(r->observedPct))
                return {};
            return QString::asprintf("%+.1f%%", r->observedPct);
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole && r)
        return QString::fromStdString(r->text);
    if (role == Qt::BackgroundRole && col == Outcome && r && r->evaluated)
        return QBrush(r->held ? QColor(200, 235, 205) : QColor(245, 205, 205));
    return {};
}

bool HypothesisModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || index.row() < 0 || index.row() >= rowCount())
        return false;
    compare::Hypothesis h = m_list[static_cast<size_t>(index.row())];
    const QString text = value.toString().trimmed();
    switch (static_cast<Column>(index.column())) {
    case Subject:
        h.subject = text.toStdString();
        break;
    case Kernel:
        h.kernel = text.toStdString();
        break;
    case Direction: {
        try {
            h.direction = compare::parseHypothesis("x:" + text.toLower().toStdString()).direction;
        } catch (const std::invalid_argument&) {
            return false;
        }
        break;
    }
    case Size: {
        if (text.isEmpty()) {
            h.sizePct.reset();
            break;
        }
        bool ok = false;
        QString digits = text;
        digits.remove(QLatin1Char('%'));
        const double v = digits.toDouble(&ok);
        if (!ok || !(v > 0))
            return false;
        h.sizePct = v;
        break;
    }
    default:
        return false;
    }
    // Re-validated as the CLI would parse it.
    try {
        h = compare::parseHypothesis(compare::formatHypothesis(h));
    } catch (const std::invalid_argument&) {
        return false;
    }
    m_list[static_cast<size_t>(index.row())] = h;
    emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    emit hypothesesEdited(m_list);
    return true;
}

Qt::ItemFlags HypothesisModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() <= Size)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant HypothesisModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Subject:
        return tr("Subject (latency, time or metric)");
    case Kernel:
        return tr("Kernel");
    case Direction:
        return tr("Direction");
    case Size:
        return tr("Size (%)");
    case Outcome:
        return tr("Outcome");
    case Observed:
        return tr("Observed");
    case ColumnCount:
        break;
    }
    return {};
}

bool HypothesisModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > rowCount())
        return false;
    beginRemoveRows({}, row, row + count - 1);
    m_list.erase(m_list.begin() + row, m_list.begin() + row + count);
    if (static_cast<size_t>(row) < m_results.size())
        m_results.erase(m_results.begin() + row, m_results.begin() + std::min<int>(row + count, int(m_results.size())));
    endRemoveRows();
    emit hypothesesEdited(m_list);
    return true;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/panels/sourcemodels.h"

#include "core/source/stallreasonname.h"
#include "ui/panels/sourcesyntax.h"
#include "ui/style/colorscheme.h"

#include <QBrush>
#include <QFont>
#include <QFontDatabase>

#include <algorithm>

namespace ws {

namespace sourcecolors {

QColor reason(int index)
{
    // Distinct hues for the few reasons that matter; later ones cycle.
    static const QColor kColors[] = {QColor(0xd6, 0x27, 0x28), QColor(0x1f, 0x77, 0xb4), QColor(0x2c, 0xa0, 0x2c),
        QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2),
        QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22), QColor(0x17, 0xbe, 0xcf)};
    constexpr int n = static_cast<int>(std::size(kColors));
    return kColors[((index % n) + n) % n];
}

QColor heat(double share)
{
    share = std::clamp(share, 0.0, 1.0);
    // White -> orange -> dark red, so a small share stays readable and the hottest stands out.
    const double r = 255 - 60 * share;
    const double g = 255 - 215 * share;
    const double b = 255 - 225 * share;
    return QColor(static_cast<int>(r), static_cast<int>(g), static_cast<int>(b));
}

} // namespace sourcecolors

namespace {

QString pct(int64_t n, int64_t total)
{
    return total > 0 ? QStringLiteral("%1%").arg(100.0 * static_cast<double>(n) / static_cast<double>(total), 0, 'f', 1)
                     : QString();
}

QVariantList reasonList(const std::vector<int64_t>& samples)
{
    QVariantList out;
    for (int64_t n : samples)
        out << QVariant::fromValue<qlonglong>(n);
    return out;
}

QString reasonTooltip(const SourceView& view, const std::vector<int64_t>& samples, int64_t total)
{
    QString tip;
    std::vector<size_t> order(samples.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return samples[a] > samples[b]; });
    for (size_t i : order) {
        if (samples[i] == 0)
            continue;
        tip += QStringLiteral("%1: %2 (%3)\n")
                   .arg(QString::fromStdString(StallReasonName::label(view.reasons()[i])))
                   .arg(samples[i])
                   .arg(pct(samples[i], total));
    }
    return tip.trimmed();
}

const QColor kHighlight(0xff, 0xf2, 0xa8);

} // namespace

SassTableModel::SassTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void SassTableModel::setView(std::shared_ptr<const SourceView> view)
{
    beginResetModel();
    m_view = std::move(view);
    m_lineFile = -1;
    m_line = 0;
    m_reason = -1;
    rebuildRows();
    endResetModel();
}

void SassTableModel::setHottestOnly(size_t n)
{
    if (n == m_hottest)
        return;
    beginResetModel();
    m_hottest = n;
    rebuildRows();
    endResetModel();
}

void SassTableModel::rebuildRows()
{
    m_rows.clear();
    if (!m_view)
        return;
    if (m_hottest == 0) {
        m_rows.resize(m_view->sassRows().size());
        for (size_t i = 0; i < m_rows.size(); ++i)
            m_rows[i] = i;
        return;
    }
    m_rows = m_view->hottest(m_hottest);
    std::sort(m_rows.begin(), m_rows.end()); // address order reads like the listing
}

int SassTableModel::rowOf(size_t sassRow) const
{
    const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), sassRow);
    return it != m_rows.end() && *it == sassRow ? static_cast<int>(it - m_rows.begin()) : -1;
}

void SassTableModel::highlightLine(int fileIndex, int32_t line)
{
    m_lineFile = fileIndex;
    m_line = line;
    m_reason = -1;
    if (rowCount() > 0)
        emit dataChanged(
            index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::BackgroundRole, sourceroles::kHighlighted});
}

void SassTableModel::highlightReason(int reason)
{
    m_reason = reason;
    m_line = 0;
    m_lineFile = -1;
    if (rowCount() > 0)
        emit dataChanged(
            index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::BackgroundRole, sourceroles::kHighlighted});
}

bool SassTableModel::highlighted(const SourceView::SassRow& r) const
{
    if (m_line > 0)
        return r.fileIndex == m_lineFile && r.line == m_line;
    if (m_reason >= 0 && m_view)
        return r.total > 0 && m_view->dominantReason(r.samples) == m_reason;
    return false;
}

int SassTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SassTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SassTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_view || index.row() >= rowCount())
        return {};
    const SourceView::SassRow& r = m_view->sassRows()[m_rows[static_cast<size_t>(index.row())]];
    const int c = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (c) {
        case Address:
            return QStringLiteral("%1").arg(r.pcOffset, 4, 16, QLatin1Char('0'));
        case Samples:
            return r.total > 0 ? QVariant::fromValue<qlonglong>(r.total) : QVariant();
        case Reasons: {
            const int d = m_view->dominantReason(r.samples);
            return d >= 0 ? QString::fromStdString(StallReasonName::label(m_view->reasons()[static_cast<size_t>(d)]))
                          : QString();
        }
        case Executed:
            return r.instExecuted >= 0 ? QVariant::fromValue<qlonglong>(r.instExecuted) : QVariant();
        case Line:
            return r.line > 0 ? QVariant(r.line) : QVariant();
        case Instruction:
            return r.text.empty() ? tr("(not disassembled)") : QString::fromStdString(r.text);
        default:
            return {};
        }
    case Qt::ToolTipRole:
        if (c == Samples || c == Reasons)
            return reasonTooltip(*m_view, r.samples, r.total)
                + (r.notIssued > 0 ? tr("\nnot issued: %1").arg(r.notIssued) : QString());
        if (c == Line && r.fileIndex >= 0)
            return QStringLiteral("%1:%2")
                .arg(QString::fromStdString(m_view->files()[static_cast<size_t>(r.fileIndex)].path))
                .arg(r.line);
        return {};
    case Qt::BackgroundRole:
        if (c == Samples && r.total > 0 && m_view->maxRowTotal() > 0)
            return QBrush(
                sourcecolors::heat(static_cast<double>(r.total) / static_cast<double>(m_view->maxRowTotal())));
        if (highlighted(r))
            return QBrush(kHighlight);
        return {};
    case Qt::ForegroundRole:
        // On the heat or highlight colour, black or white by that colour, whatever the palette
        // (a dark palette's light text on the light highlight could not be read).
        if (const QVariant bg = data(index, Qt::BackgroundRole); bg.isValid())
            return QBrush(QColor::fromRgb(ColorScheme::textOn(bg.value<QBrush>().color().rgb())));
        return {};
    case Qt::TextAlignmentRole:
        if (c == Samples || c == Executed || c == Line)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::FontRole:
        if (c == Instruction || c == Address)
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        return {};
    case sourceroles::kReasonSamples:
        return reasonList(r.samples);
    case sourceroles::kScaleMax:
        return QVariant::fromValue<qlonglong>(m_view->maxRowTotal());
    case sourceroles::kTotal:
        return QVariant::fromValue<qlonglong>(r.total);
    case sourceroles::kHighlighted:
        return highlighted(r);
    default:
        return {};
    }
}

QVariant SassTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    // Short titles over narrow counter columns; the whole name is the tooltip.
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        switch (section) {
        case Address:
            return tr("Address (offset in the function)");
        case Samples:
            return tr("Stall samples of the instruction");
        case Reasons:
            return tr("Stall reasons (bar split by reason; hover a row for the names)");
        case Executed:
            return tr("Instructions executed");
        case Line:
            return tr("Source line");
        default:
            return {};
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Address:
        return tr("Addr");
    case Samples:
        return tr("Samples");
    case Reasons:
        return tr("Stalls");
    case Executed:
        return tr("Exec");
    case Line:
        return tr("Line");
    case Instruction:
        return tr("SASS");
    default:
        return {};
    }
}

SourceLineModel::SourceLineModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

const SourceView::File* SourceLineModel::file() const
{
    if (!m_view || m_file < 0 || static_cast<size_t>(m_file) >= m_view->files().size())
        return nullptr;
    return &m_view->files()[static_cast<size_t>(m_file)];
}

void SourceLineModel::setView(std::shared_ptr<const SourceView> view, int fileIndex)
{
    beginResetModel();
    m_view = std::move(view);
    m_file = fileIndex;
    m_line = 0;
    m_reason = -1;
    // Where block comments open and close, once per file (painting then needs no look-back).
    m_inComment.clear();
    if (const SourceView::File* f = file(); f && f->haveText) {
        bool in = false;
        for (const auto& l : f->lines) {
            m_inComment.push_back(in);
            (void)SourceSyntax::cudaLine(QString::fromStdString(l.text), in);
        }
    }
    endResetModel();
}

void SourceLineModel::highlightLine(int32_t line)
{
    m_line = line;
    m_reason = -1;
    if (rowCount() > 0)
        emit dataChanged(
            index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::BackgroundRole, sourceroles::kHighlighted});
}

void SourceLineModel::highlightReason(int reason)
{
    m_reason = reason;
    m_line = 0;
    if (rowCount() > 0)
        emit dataChanged(
            index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::BackgroundRole, sourceroles::kHighlighted});
}

int SourceLineModel::rowCount(const QModelIndex& parent) const
{
    const SourceView::File* f = file();
    return parent.isValid() || !f ? 0 : static_cast<int>(f->lines.size());
}

int SourceLineModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SourceLineModel::data(const QModelIndex& index, int role) const
{
    const SourceView::File* f = file();
    if (!index.isValid() || !f || index.row() >= rowCount())
        return {};
    const SourceView::LineRow& l = f->lines[static_cast<size_t>(index.row())];
    const int c = index.column();
    const bool lit = (m_line > 0 && l.line == m_line)
        || (m_reason >= 0 && l.total > 0 && m_view->dominantReason(l.samples) == m_reason);
    switch (role) {
    case Qt::DisplayRole:
        switch (c) {
        case LineNumber:
            return l.line;
        case Samples:
            return l.total > 0 ? QVariant::fromValue<qlonglong>(l.total) : QVariant();
        case Reasons: {
            const int d = m_view->dominantReason(l.samples);
            return d >= 0 ? QString::fromStdString(StallReasonName::label(m_view->reasons()[static_cast<size_t>(d)]))
                          : QString();
        }
        case Source:
            return f->haveText ? QString::fromStdString(l.text) : tr("(source not recorded)");
        default:
            return {};
        }
    case Qt::ToolTipRole:
        if (c == Samples || c == Reasons)
            return reasonTooltip(*m_view, l.samples, l.total)
                + tr("\n%1 of the kernel's samples, %2 SASS instruction(s)")
                      .arg(pct(l.total, m_view->totalSamples()))
                      .arg(l.sassRows.size());
        return {};
    case Qt::BackgroundRole:
        if (c == Samples && l.total > 0 && m_view->maxLineTotal() > 0)
            return QBrush(
                sourcecolors::heat(static_cast<double>(l.total) / static_cast<double>(m_view->maxLineTotal())));
        if (lit)
            return QBrush(kHighlight);
        return {};
    case Qt::ForegroundRole:
        if (const QVariant bg = data(index, Qt::BackgroundRole); bg.isValid())
            return QBrush(QColor::fromRgb(ColorScheme::textOn(bg.value<QBrush>().color().rgb())));
        if (c == LineNumber)
            return QBrush(Qt::gray);
        return {};
    case Qt::TextAlignmentRole:
        if (c == Samples || c == LineNumber)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::FontRole:
        if (c == Source || c == LineNumber)
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        return {};
    case sourceroles::kReasonSamples:
        return reasonList(l.samples);
    case sourceroles::kScaleMax:
        return QVariant::fromValue<qlonglong>(m_view->maxLineTotal());
    case sourceroles::kTotal:
        return QVariant::fromValue<qlonglong>(l.total);
    case sourceroles::kHighlighted:
        return lit;
    case sourceroles::kInBlockComment:
        return static_cast<size_t>(index.row()) < m_inComment.size() && m_inComment[static_cast<size_t>(index.row())];
    default:
        return {};
    }
}

QVariant SourceLineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        switch (section) {
        case Samples:
            return tr("Stall samples of the line's instructions");
        case Reasons:
            return tr("Stall reasons (bar split by reason; hover a row for the names)");
        default:
            return {};
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case LineNumber:
        return tr("Line");
    case Samples:
        return tr("Samples");
    case Reasons:
        return tr("Stalls");
    case Source:
        return tr("CUDA source");
    default:
        return {};
    }
}

} // namespace ws

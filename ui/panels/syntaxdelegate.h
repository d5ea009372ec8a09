// SPDX-License-Identifier: MIT
#pragma once

#include <QStyledItemDelegate>

namespace ws {

// Paints the Source panel's text columns with syntax colours (SourceSyntax): CUDA source lines
// (the line's starting comment state from sourceroles::kInBlockComment) or SASS instructions.
// Selection and the row highlight keep their backgrounds; colours follow the cell's background,
// so a highlighted (light) row in the dark palette stays readable.
class SyntaxDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    enum class Language { Cuda, Sass };
    explicit SyntaxDelegate(Language language, QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    Language m_language;
};

} // namespace ws

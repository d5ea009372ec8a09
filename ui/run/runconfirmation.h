// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/runrecipe.h"

#include <QDialog>
#include <QList>
#include <QStringList>

class QCheckBox;
class QPlainTextEdit;
class QLabel;

namespace ws {

// What a session file asks to run, shown before anything runs ("Run again", "profile this
// kernel"): a session file is data, so the user sees the exact program, arguments, working
// directory and environment changes of every step, and a warning when the session was recorded
// by another user or on another machine.
class RunConfirmation : public QDialog {
    Q_OBJECT
public:
    // `commands`: each step's full argv as it will run (warpscope-cli and its arguments, the
    // program after "--"). `foreign`: recorded by recipe.user@recipe.host, not by us here.
    // `offerDontAsk`: show "don't ask again for this session" (never for foreign sessions).
    RunConfirmation(const QString& what, const RunRecipe& recipe, const QList<QStringList>& commands, bool foreign,
        bool offerDontAsk, QWidget* parent = nullptr);

    // The text the dialog shows (tests read it; so can a user copy it).
    static QString describe(const RunRecipe& recipe, const QList<QStringList>& commands);
    QString text() const;
    QString warning() const;
    bool dontAskAgain() const;

private:
    QPlainTextEdit* m_text;
    QLabel* m_warning;
    QCheckBox* m_dontAsk = nullptr;
};

} // namespace ws

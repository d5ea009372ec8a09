// SPDX-License-Identifier: MIT
#include "ui/run/runconfirmation.h"

#include "core/util/shellwords.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace ws {

namespace {

QString joined(const QStringList& argv)
{
    std::vector<std::string> words;
    words.reserve(static_cast<size_t>(argv.size()));
    for (const QString& a : argv)
        words.push_back(a.toStdString());
    return QString::fromStdString(joinCommand(words));
}

} // namespace

QString RunConfirmation::describe(const RunRecipe& recipe, const QList<QStringList>& commands)
{
    QStringList lines;
    QStringList program;
    for (const std::string& w : recipe.command)
        program << QString::fromStdString(w);
    lines << tr("Program:           %1").arg(program.value(0));
    lines << tr("Arguments:         %1").arg(program.size() > 1 ? joined(program.mid(1)) : tr("(none)"));
    lines << tr("Working directory: %1")
                 .arg(recipe.cwd.empty() ? tr("(not recorded: the current one)") : QString::fromStdString(recipe.cwd));
    // The steps inherit this process's environment: show what the recipe changes in it.
    const auto changes = environmentChanges(recipe, [](const std::string& name) -> std::optional<std::string> {
        if (!qEnvironmentVariableIsSet(name.c_str()))
            return std::nullopt;
        return qEnvironmentVariable(name.c_str()).toStdString();
    });
    if (changes.empty()) {
        lines << tr("Environment:       unchanged");
    } else {
        lines << tr("Environment changes:");
        for (const auto& [name, value] : changes)
            lines << QStringLiteral("  %1=%2").arg(QString::fromStdString(name), QString::fromStdString(value));
    }
    if (!recipe.host.empty() || !recipe.user.empty())
        lines << tr("Recorded by:       %1@%2")
                     .arg(QString::fromStdString(recipe.user), QString::fromStdString(recipe.host));
    lines << QString();
    lines << tr("Will run %n command(s):", nullptr, static_cast<int>(commands.size()));
    for (int i = 0; i < commands.size(); ++i)
        lines << QStringLiteral("  %1. %2").arg(i + 1).arg(joined(commands[i]));
    for (const std::string& s : recipe.skipped)
        lines << tr("  not repeated: %1").arg(QString::fromStdString(s));
    return lines.join(QLatin1Char('\n'));
}

RunConfirmation::RunConfirmation(const QString& what, const RunRecipe& recipe, const QList<QStringList>& commands,
    bool foreign, bool offerDontAsk, QWidget* parent)
    : QDialog(parent)
    , m_text(new QPlainTextEdit(this))
    , m_warning(new QLabel(this))
{
    setObjectName(QStringLiteral("runConfirmation"));
    setWindowTitle(what);
    auto* intro = new QLabel(
        tr("<b>%1</b> runs the program stored in the session file. Check what will run:").arg(what.toHtmlEscaped()),
        this);
    intro->setWordWrap(true);
    m_text->setObjectName(QStringLiteral("confirmationText"));
    m_text->setReadOnly(true);
    m_text->setFont(QFont(QStringLiteral("monospace")));
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setPlainText(describe(recipe, commands));
    m_warning->setObjectName(QStringLiteral("foreignWarning"));
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold"));
    if (foreign) {
        m_warning->setText(tr("This session was recorded by %1@%2, not by you on this machine. Its command line "
                              "is data from a file: run it only if you trust where it came from.")
                               .arg(QString::fromStdString(recipe.user), QString::fromStdString(recipe.host)));
    }
    m_warning->setVisible(foreign);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Run"));
    // A foreign command is never the default: Enter must not run it.
    buttons->button(QDialogButtonBox::Ok)->setDefault(!foreign);
    buttons->button(QDialogButtonBox::Cancel)->setDefault(foreign);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_warning);
    layout->addWidget(m_text, 1);
    if (offerDontAsk && !foreign) {
        m_dontAsk = new QCheckBox(tr("Don't ask again for this session"), this);
        m_dontAsk->setObjectName(QStringLiteral("dontAskAgain"));
        layout->addWidget(m_dontAsk);
    }
    layout->addWidget(buttons);
    resize(760, 420);
}

QString RunConfirmation::text() const
{
    return m_text->toPlainText();
}

QString RunConfirmation::warning() const
{
    return m_warning->isVisible() || !m_warning->text().isEmpty() ? m_warning->text() : QString();
}

bool RunConfirmation::dontAskAgain() const
{
    return m_dontAsk && m_dontAsk->isChecked();
}

} // namespace ws

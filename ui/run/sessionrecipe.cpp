// SPDX-License-Identifier: MIT
#include "ui/run/sessionrecipe.h"

#include "core/metrics/sessionmeta.h"
#include "core/store/runinference.h"
#include "core/store/sessionreader.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include <pwd.h>
#include <unistd.h>

#include <exception>

namespace ws {

namespace {

QString tr(const char* s)
{
    return QCoreApplication::translate("SessionRecipe", s);
}

// Where the recipe's program would start from here, or "" when it is not there.
QString findProgram(const RunRecipe& recipe)
{
    const QString program = QString::fromStdString(recipe.command.front());
    if (program.contains(QLatin1Char('/'))) {
        const QString cwd = QString::fromStdString(recipe.cwd);
        const QFileInfo f(QDir(cwd.isEmpty() ? QDir::currentPath() : cwd), program);
        return f.isFile() && f.isExecutable() ? f.absoluteFilePath() : QString();
    }
    return QStandardPaths::findExecutable(program);
}

} // namespace

QString describeTargetEnd(const QString& status)
{
    static const QRegularExpression sig(QStringLiteral("killed by signal (\\d+)"));
    static const QRegularExpression code(QStringLiteral("exited with code (-?\\d+)"));
    if (const auto m = sig.match(status); m.hasMatch()) {
        static const char* names[] = {"", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
            "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"};
        const int n = m.captured(1).toInt();
        const QString name = n > 0 && n < 16 ? QString::fromLatin1(names[n]) : QStringLiteral("signal %1").arg(n);
        return tr("target killed by %1").arg(name);
    }
    if (const auto m = code.match(status); m.hasMatch())
        return m.captured(1).toInt() == 0 ? QString() : tr("target exited with code %1").arg(m.captured(1));
    if (status.startsWith(QLatin1String("failed")))
        return tr("run %1").arg(status);
    return {};
}

SessionRecipe readSessionRecipe(const QString& path)
{
    SessionRecipe out;
    out.path = path;
    try {
        const SessionReader reader(path.toStdString());
        const std::vector<RunInfo> runs = reader.readRuns();
        out.runCount = static_cast<int>(runs.size());
        out.recipe = recipeOf(runs);
        // The last run that did not end well names the problem (a later good run of a re-run
        // does not hide it: the user sees the newest trouble).
        for (const RunInfo& run : runs) {
            const auto options = store::fromJsonObject(run.optionsJson.empty() ? "{}" : run.optionsJson);
            if (!options)
                continue;
            auto it = options->find(kRunStatusOption);
            if (it == options->end())
                it = options->find(metakey::kTargetExit); // record's run options carry the target's end
            if (it == options->end())
                continue;
            const QString problem = describeTargetEnd(QString::fromStdString(it->second));
            if (!problem.isEmpty())
                out.targetProblem = runs.size() > 1 ? tr("run %1: %2").arg(run.id).arg(problem) : problem;
        }
        if (out.targetProblem.isEmpty()) {
            const auto meta = reader.meta();
            if (const auto it = meta.find(metakey::kTargetExit); it != meta.end())
                out.targetProblem = describeTargetEnd(QString::fromStdString(it->second));
        }
        if (!out.recipe.runnable()) {
            QStringList why;
            for (const std::string& s : out.recipe.skipped)
                why << QString::fromStdString(s);
            out.unavailableReason = out.recipe.command.empty() && !runs.empty() && runs.front().kind == "import"
                ? tr("imported trace: no program to run")
                : why.isEmpty() ? tr("the session does not say how its program was started")
                                : why.join(QStringLiteral("; "));
        } else if (findProgram(out.recipe).isEmpty()) {
            out.unavailableReason
                = tr("program not found on this machine: %1").arg(QString::fromStdString(out.recipe.command.front()));
        }
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
        out.unavailableReason = tr("the session could not be read: %1").arg(out.error);
    }
    return out;
}

KernelLaunchInfo readKernelLaunch(const QString& path, int64_t kernelId)
{
    KernelLaunchInfo out;
    try {
        const SessionReader reader(path.toStdString());
        const auto kernel = reader.readKernel(kernelId);
        const auto ordinal = reader.launchOrdinal(kernelId);
        if (!kernel || !ordinal) {
            out.error = tr("no kernel launch with id %1 in %2").arg(kernelId).arg(path);
            return out;
        }
        const StringTable strings = reader.readStrings();
        out.mangledName = strings.at(kernel->mangledName);
        out.ordinal = *ordinal;
        for (const RunInfo& r : reader.readRuns()) {
            if (r.id == kernel->runId)
                out.run = r;
        }
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

QString nextAttemptPath(const QString& path)
{
    const QFileInfo f(path);
    QString base = f.completeBaseName();
    int n = 2;
    static const QRegularExpression attempt(QStringLiteral("^(.*)-(\\d+)$"));
    if (const auto m = attempt.match(base); m.hasMatch()) {
        base = m.captured(1);
        n = m.captured(2).toInt() + 1;
    }
    const QString suffix = f.suffix().isEmpty() ? QStringLiteral("wscope") : f.suffix();
    for (;; ++n) {
        QString candidate = f.dir().filePath(QStringLiteral("%1-%2.%3").arg(base).arg(n).arg(suffix));
        if (!QFileInfo::exists(candidate))
            return candidate;
    }
}

std::string localHost()
{
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    return host;
}

std::string localUser()
{
    if (const passwd* pw = ::getpwuid(::geteuid()))
        return pw->pw_name;
    return std::to_string(::geteuid());
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "ui/compare/comparedocument.h"

#include "core/store/sessionreader.h"
#include "ui/session/backgroundjob.h"

#include <algorithm>
#include <exception>

namespace ws {

namespace {

struct LoadOutcome {
    std::shared_ptr<CompareDocument::Sessions> sessions;
    std::vector<compare::Hypothesis> stored;
    AttemptChain chain;
    QString error;
};

compare::CompareSession loadSession(const QString& path)
{
    return compare::loadCompareSession(path.toStdString());
}

} // namespace

CompareDocument::CompareDocument(QObject* parent)
    : QObject(parent)
    , m_job(new BackgroundJob(BackgroundJob::pool("compare load", 1), this))
{
}

CompareDocument::~CompareDocument() = default;

void CompareDocument::load(const QString& pathA, const QString& pathB, const QStringList& extraBaselines)
{
    m_pathA = pathA;
    m_pathB = pathB;
    m_extra = extraBaselines;
    m_loading = true;
    emit loadingChanged(true);
    // A newer load() discards this one's result.
    m_job->start(
        [pathA, pathB, extraBaselines](const BackgroundJob::Context&) -> LoadOutcome {
            LoadOutcome out;
            try {
                auto s = std::make_shared<Sessions>();
                s->a = loadSession(pathA);
                s->b = loadSession(pathB);
                for (const auto& e : extraBaselines)
                    s->extra.push_back(loadSession(e));
                s->keyNote = compare::alignKeys(s->a, s->b);
                for (auto& e : s->extra) {
                    if (!compare::hasPaths(s->b))
                        compare::dropPaths(e);
                }
                out.stored = compare::storedHypotheses(s->b);
                out.chain = AttemptChain::resolve(pathB);
                out.sessions = std::move(s);
            } catch (const std::exception& e) {
                out.error = QString::fromStdString(e.what());
            }
            return out;
        },
        [this](LoadOutcome out) {
            m_loading = false;
            emit loadingChanged(false);
            if (!out.error.isEmpty()) {
                m_error = out.error;
                emit failed(m_error);
                return;
            }
            m_sessions = std::move(out.sessions);
            m_chain = std::move(out.chain);
            m_options.pairs.clear();
            m_hypotheses = std::move(out.stored);
            recompute();
        });
}

void CompareDocument::recompute()
{
    if (!m_sessions)
        return;
    try {
        std::vector<const compare::CompareSession*> extra;
        for (const auto& e : m_sessions->extra)
            extra.push_back(&e);
        auto c = std::make_unique<compare::Comparison>(
            compare::compareSessions(m_sessions->a, m_sessions->b, m_options, extra, m_hypotheses));
        if (!m_sessions->keyNote.empty())
            c->notes.insert(c->notes.begin(), m_sessions->keyNote);
        m_comparison = std::move(c);
        m_error.clear();
        emit changed();
    } catch (const std::exception& e) {
        m_error = QString::fromStdString(e.what());
        emit failed(m_error);
    }
}

void CompareDocument::setThreshold(double pct)
{
    m_options.rule.thresholdPct = pct;
    recompute();
}

void CompareDocument::setRange(const QString& name)
{
    m_options.rangeName = name.toStdString();
    recompute();
}

void CompareDocument::pairKernels(int keyA, int keyB)
{
    compare::UserPair p;
    p.keyA = keyA;
    p.keyB = keyB;
    m_options.pairs.push_back(p);
    recompute();
}

void CompareDocument::clearUserPairs()
{
    m_options.pairs.clear();
    recompute();
}

void CompareDocument::setHypotheses(std::vector<compare::Hypothesis> list)
{
    m_hypotheses = std::move(list);
    recompute();
}

bool CompareDocument::saveHypotheses()
{
    try {
        compare::saveHypotheses(m_pathB.toStdString(), m_hypotheses);
        return true;
    } catch (const std::exception& e) {
        m_error = QString::fromStdString(e.what());
        emit failed(m_error);
        return false;
    }
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparison.h"
#include "ui/compare/attemptchain.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace ws {

class BackgroundJob;

// What the compare window shows: sessions A (baseline), B and any extra baselines, loaded on a
// worker thread, and the comparison of B against them. Options (threshold, NVTX range, user
// pairs, hypotheses) change through the setters, each recomputing the comparison on the GUI
// thread (it is fast: the sessions are indexed once). Emits changed() after every successful
// load or recompute, failed() with a message naming the file otherwise.
class CompareDocument : public QObject {
    Q_OBJECT
public:
    struct Sessions {
        compare::CompareSession a, b;
        std::vector<compare::CompareSession> extra;
        std::string keyNote; // alignKeys' note
    };

    explicit CompareDocument(QObject* parent = nullptr);
    ~CompareDocument() override;

    // Loads asynchronously; `extraBaselines` are pinned baselines for z-scores.
    void load(const QString& pathA, const QString& pathB, const QStringList& extraBaselines = {});
    bool isLoading() const { return m_loading; }

    bool hasComparison() const { return m_comparison != nullptr; }
    const compare::Comparison& comparison() const { return *m_comparison; }
    const Sessions& sessions() const { return *m_sessions; }
    QString pathA() const { return m_pathA; }
    QString pathB() const { return m_pathB; }
    QStringList extraBaselines() const { return m_extra; }
    QString lastError() const { return m_error; }
    // B's attempts (B, its predecessor, …), read with the sessions.
    const AttemptChain& chain() const { return m_chain; }

    const compare::CompareOptions& options() const { return m_options; }
    void setThreshold(double pct);
    void setRange(const QString& name);
    // Pairs two kernel keys (indices into A's and B's keys), replacing their earlier partners.
    void pairKernels(int keyA, int keyB);
    void clearUserPairs();
    const std::vector<compare::Hypothesis>& hypotheses() const { return m_hypotheses; }
    void setHypotheses(std::vector<compare::Hypothesis> list);
    // Writes the hypotheses into B's file (meta compare.hypotheses). False with lastError().
    bool saveHypotheses();

signals:
    void changed();
    void failed(const QString& message);
    void loadingChanged(bool loading);

private:
    void recompute();

    QString m_pathA, m_pathB;
    QStringList m_extra;
    std::shared_ptr<Sessions> m_sessions;
    std::unique_ptr<compare::Comparison> m_comparison;
    compare::CompareOptions m_options;
    std::vector<compare::Hypothesis> m_hypotheses;
    QString m_error;
    AttemptChain m_chain;
    bool m_loading = false;
    BackgroundJob* m_job;
};

} // namespace ws

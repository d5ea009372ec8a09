// SPDX-License-Identifier: MIT
#pragma once

#include "core/diagnosis/diagnosis.h"
#include "ui/panels/kernelfocus.h"

#include <QWidget>

class QTextBrowser;

namespace ws {

// The diagnosis in the seeds' reading order: the timeline first (is the GPU idle between
// kernels? overhead-bound), then for each shown kernel its limiter (compute, memory or
// latency-bound) with every finding, the numbers that triggered it, the next step, and ncu's
// Est. Speedup where ncu defines one. What could not be judged says which section would tell.
class DiagnosisPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosisPanel(KernelFocus* focus, QWidget* parent = nullptr);

    QTextBrowser* browser() const { return m_browser; }
    // The findings last shown: session-level first, then per kernel in column order.
    const std::vector<Finding>& sessionFindings() const { return m_session; }
    const std::vector<std::pair<qint64, KernelDiagnosis>>& kernelDiagnoses() const { return m_kernels; }
    QString html() const;

    DiagnosisOptions options;

private:
    void rebuild();

    KernelFocus* m_focus;
    QTextBrowser* m_browser;
    std::vector<Finding> m_session;
    std::vector<std::pair<qint64, KernelDiagnosis>> m_kernels;
};

} // namespace ws

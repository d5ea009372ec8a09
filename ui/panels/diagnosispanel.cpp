// SPDX-License-Identifier: MIT
#include "ui/panels/diagnosispanel.h"

#include "core/metrics/sessionmeta.h"
#include "core/ranking/compactname.h"
#include "ui/panels/panelformat.h"
#include "ui/style/timeformat.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QSaveFile>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace ws {

namespace {

QString esc(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString findingHtml(const Finding& f)
{
    QString s = QStringLiteral("<li><span style='color:#555'>[%1]</span> <b>%2</b> — %3<br>&rarr; %4")
                    .arg(QString::fromLatin1(readingStepName(f.step)), esc(f.title), esc(f.evidence), esc(f.nextStep));
    if (f.estSpeedupPct) {
        s += QStringLiteral("<br><span style='color:#205a20'>Est. Speedup %1% </span>"
                            "<span style='color:#777'><small>(%2)</small></span>")
                 .arg(*f.estSpeedupPct, 0, 'f', 1)
                 .arg(esc(f.speedupBasis));
    }
    return s + QStringLiteral("</li>");
}

} // namespace

DiagnosisPanel::DiagnosisPanel(KernelFocus* focus, QWidget* parent)
    : QWidget(parent)
    , m_focus(focus)
    , m_browser(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("diagnosisPanel"));
    m_browser->setOpenLinks(false);
    auto* save = new QToolButton(this);
    save->setText(tr("Save…"));
    save->setToolTip(tr("Save the diagnosis as HTML"));
    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addStretch(1);
    top->addWidget(save);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_browser, 1);
    connect(save, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save diagnosis"), QStringLiteral("diagnosis.html"), QStringLiteral("HTML (*.html)"));
        if (path.isEmpty())
            return;
        QSaveFile f(path);
        const QByteArray bytes = html().toUtf8();
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
            QMessageBox::warning(this, tr("Save failed"), QStringLiteral("%1: %2").arg(path, f.errorString()));
    });
    connect(m_focus, &KernelFocus::changed, this, &DiagnosisPanel::rebuild);
    rebuild();
}

QString DiagnosisPanel::html() const
{
    return m_browser->toHtml();
}

void DiagnosisPanel::rebuild()
{
    m_session.clear();
    m_kernels.clear();
    const auto& session = m_focus->data();
    if (!session) {
        m_browser->setHtml(QStringLiteral("<p>%1</p>").arg(m_focus->emptyText().toHtmlEscaped()));
        return;
    }
    QString h;
    h += tr("<p style='color:#555'><small>Reading order: timeline &rarr; launch &rarr; occupancy &rarr; speed of light "
            "&rarr; memory path &rarr; scheduler &rarr; warp states. Thresholds are the seeds' and ncu's (judgment, "
            "not standards).</small></p>");

    // 1. Timeline.
    const auto kind = session->meta.find(metakey::kSessionKind);
    const bool profileRun = kind != session->meta.end() && kind->second == metakey::kSessionKindProfile;
    h += tr("<h3>Timeline: is the GPU busy?</h3>");
    if (!profileRun) {
        h += QStringLiteral("<ul>");
        for (const GpuBusySummary& d : session->gpuBusy) {
            h += tr("<li>GPU %1: busy %2 of the %3 between its first and last work (%4% idle in %5 gaps, largest "
                    "%6), %7 kernels/copies/memsets</li>")
                     .arg(d.deviceId)
                     .arg(formatDuration(d.busyNs), formatDuration(d.last - d.first))
                     .arg(d.idlePct(), 0, 'f', 1)
                     .arg(formatCount(d.gaps), formatDuration(d.largestGapNs), formatCount(d.operations));
        }
        if (session->gpuBusy.empty())
            h += tr("<li>No GPU work recorded.</li>");
        h += QStringLiteral("</ul>");
    }
    m_session = diagnoseSession(session->sessionFacts(options.tinyKernelNs), options);
    if (profileRun) {
        m_session.clear(); // replay order says nothing about the application's timeline
        h += tr("<p><i>This is a profile run: kernels were replayed one at a time, so their spacing says nothing "
                "about the application. Record a trace (warpscope-cli record) for the timeline rules.</i></p>");
    } else if (m_session.empty()) {
        h += tr("<p>No timeline finding: the GPU is busy most of its span and kernels are not mostly tiny.</p>");
    } else {
        h += QStringLiteral("<ul>");
        for (const Finding& f : m_session)
            h += findingHtml(f);
        h += QStringLiteral("</ul>");
    }

    // 2. Kernels.
    for (const KernelFocus::Column& c : m_focus->columns()) {
        const KernelLaunchTable::Launch* l = session->launches.find(c.kernelId);
        if (!l)
            continue;
        const KernelFacts facts = session->facts(c.kernelId);
        KernelDiagnosis d = diagnoseKernel(facts, session->ceilings(l->deviceId), options);
        const QString name = session->kernelName(c.kernelId);
        h += QStringLiteral("<h3>#%1 %2 — %3</h3>")
                 .arg(c.kernelId)
                 .arg(QString::fromStdString(compactKernelName(name.toStdString(), 70)).toHtmlEscaped(),
                     esc(d.headline));
        h += QStringLiteral("<p style='color:#555'><small>%1; launch #%2, %3 on the GPU%4</small></p>")
                 .arg(name.toHtmlEscaped())
                 .arg(c.kernelId)
                 .arg(formatDuration(l->duration()))
                 .arg(c.pinned ? tr(", pinned") : QString());
        if (!session->profiled(c.kernelId)) {
            h += tr("<p><b>Kernel metrics not collected</b> for this launch: %1, to judge compute, memory and "
                    "latency. From the trace alone:</p>")
                     .arg(PanelData::notProfiledText().toHtmlEscaped());
        } else if (session->runs.size() > 1) {
            h += QStringLiteral("<p style='color:#555'><small><i>%1</i></small></p>")
                     .arg(session->metricsProvenance(c.kernelId).toHtmlEscaped());
        }
        if (d.findings.empty())
            h += tr("<p>No finding.</p>");
        h += QStringLiteral("<ul>");
        for (const Finding& f : d.findings)
            h += findingHtml(f);
        h += QStringLiteral("</ul>");
        if (session->profiled(c.kernelId) && !d.notCollected.empty()) {
            h += tr("<p style='color:#777'><small>Not judged (not in this profile): %1.</small></p>")
                     .arg(QString::fromStdString([&] {
                         std::string s;
                         for (const std::string& n : d.notCollected)
                             s += (s.empty() ? "" : "; ") + n;
                         return s;
                     }())
                              .toHtmlEscaped());
        }
        m_kernels.emplace_back(c.kernelId, std::move(d));
    }
    if (m_focus->columns().isEmpty())
        h += tr("<p>Select a kernel (timeline, ranking or roofline) for its diagnosis.</p>");
    m_browser->setHtml(h);
}

} // namespace ws

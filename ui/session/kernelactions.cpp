// SPDX-License-Identifier: MIT
#include "ui/session/kernelactions.h"

#include <QAction>
#include <QMenu>

namespace ws {

KernelActions::KernelActions(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<KernelCollectionRequest>();
}

void KernelActions::addTo(QMenu* menu, int64_t kernelId)
{
    menu->addSeparator();
    const auto add = [&](const QString& text, KernelCollection what, int64_t count) {
        QAction* a = menu->addAction(m_whyNot.isEmpty() ? text : text + tr(" — unavailable: ") + m_whyNot);
        a->setEnabled(m_whyNot.isEmpty());
        a->setToolTip(m_whyNot.isEmpty()
                ? tr("Re-runs this session's program with the profiler on this kernel and adds the run to this "
                     "session; the exact command is shown before anything runs.")
                : m_whyNot);
        connect(a, &QAction::triggered, this, [this, kernelId, what, count] {
            emit collectRequested({.kernelId = kernelId, .what = what, .count = count});
        });
    };
    add(tr("Collect metrics for this launch (--set full)"), KernelCollection::Metrics, 1);
    add(tr("Collect metrics for %1 launches of this kernel from here").arg(kLaunchesPerBatch),
        KernelCollection::Metrics, kLaunchesPerBatch);
    add(tr("Sample stall reasons for this launch (PC sampling)"), KernelCollection::StallSampling, 1);
}

} // namespace ws

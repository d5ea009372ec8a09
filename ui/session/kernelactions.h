// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/runrecipe.h"

#include <QObject>
#include <QString>

class QMenu;

namespace ws {

// "Collect metrics for this kernel" / "Sample stall reasons for this kernel": what every kernel
// view (timeline, ranking, roofline) offers on a launch. Views only add the actions to their
// context menus; the main window owns the one instance, says whether the open session's program
// can be re-run (and why not), and acts on the requests by appending a profile run to the open
// session, so the panels fill in place.
struct KernelCollectionRequest {
    int64_t kernelId = 0;                              // the launch the user clicked (a traced launch)
    KernelCollection what = KernelCollection::Metrics; // metrics (--set full) or stall sampling
    int64_t count = 1;                                 // 1: this launch; N: N launches of this kernel from it
};

class KernelActions : public QObject {
    Q_OBJECT
public:
    explicit KernelActions(QObject* parent = nullptr);

    // "" when the session's program can be re-run; else the reason shown on the disabled items
    // ("imported trace: no program to run", "program not found: /path").
    void setUnavailableReason(const QString& reason) { m_whyNot = reason; }
    QString unavailableReason() const { return m_whyNot; }

    // Adds a separator and the collection actions for `kernelId` to `menu`: "Collect metrics for
    // this launch", "Collect metrics for the first N launches of this kernel from here", "Sample
    // stall reasons for this launch". Disabled, with the reason in their text, when the program
    // cannot be re-run.
    void addTo(QMenu* menu, int64_t kernelId);

    // How many launches the "first N launches" item collects.
    static constexpr int64_t kLaunchesPerBatch = 5;

signals:
    void collectRequested(const ws::KernelCollectionRequest& request);

private:
    QString m_whyNot;
};

} // namespace ws

Q_DECLARE_METATYPE(ws::KernelCollectionRequest)

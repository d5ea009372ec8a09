// SPDX-License-Identifier: MIT
#pragma once

#include "core/roofline/roofline.h"
#include "ui/panels/kernelfocus.h"

#include <QPointer>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QLabel;
class QMenu;
class QMouseEvent;

namespace ws {

class KernelActions;

// The roofline, log-log: achieved FLOP/s against arithmetic intensity, one point per profiled
// kernel launch and memory level (DRAM, L2, L1: a hierarchical roofline), under the roofs of
// the session's device (bandwidth of each level; peak FLOP/s per precision including tensor
// cores). The kernels the focus shows are drawn large in their colours and labelled; hovering
// a point says what it is, clicking one selects that kernel everywhere.
class RooflinePanel : public QWidget {
    Q_OBJECT
public:
    explicit RooflinePanel(KernelFocus* focus, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QLabel* noteLabel() const { return m_note; }
    const std::vector<RooflinePoint>& points() const { return m_points; }
    const RooflineCeilings& ceilings() const { return m_ceilings; }
    // Kernel ids of the highlighted points (the focus's shown kernels that have points).
    const std::vector<int64_t>& highlighted() const { return m_highlighted; }
    // The point nearest to a pixel position within `radius` pixels; -1 when none.
    int pointAt(const QPointF& pixel, double radius = 8) const;
    // Clicking at a pixel position: selects the kernel of the point there, if any.
    bool clickAt(const QPointF& pixel);

    // The collect actions a right-click on a kernel's point offers (owned by the main window;
    // none when null, the default).
    void setKernelActions(KernelActions* actions);
    // The context menu's kernel part for a pixel position: the KernelActions items for the
    // kernel of the point there (a traced launch). Nothing off a point or without actions.
    void fillContextMenu(QMenu& menu, const QPointF& pixel);

signals:
    void kernelActivated(qint64 kernelId);

private:
    void rebuild();
    void onMouseMove(QMouseEvent* e);
    void onMousePress(QMouseEvent* e);
    QString describe(const RooflinePoint& p) const;

    KernelFocus* m_focus;
    QCustomPlot* m_plot;
    QLabel* m_note;
    RooflineCeilings m_ceilings;
    std::vector<RooflinePoint> m_points;
    std::vector<int64_t> m_highlighted;
    QPointer<KernelActions> m_kernelActions;
};

} // namespace ws

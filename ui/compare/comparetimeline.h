// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparison.h"

#include <QWidget>

namespace ws {

// The two timelines stacked on one time axis: A above, B below, each with the NVTX ranges of
// its launching thread and one lane per GPU stream, both shifted so that their origins (the
// start of the chosen NVTX range, or the first kernel) sit at 0. One axis means zoom and pan
// are linked by construction: the wheel zooms around the cursor, dragging pans, double-click
// fits both. Matched kernels share a colour on both sides; unmatched ones are grey with a
// dashed outline.
class CompareTimeline : public QWidget {
    Q_OBJECT
public:
    explicit CompareTimeline(QWidget* parent = nullptr);

    void setComparison(
        const compare::CompareSession* a, const compare::CompareSession* b, const compare::Comparison* comparison);
    // Visible window in ns relative to the origins.
    void setRange(double begin, double end);
    double rangeBegin() const { return m_begin; }
    double rangeEnd() const { return m_end; }
    void fitAll();
    void zoomBy(double factor, double anchorFraction = 0.5);
    // The kernel (session 0 = A, 1 = B; launch index) under a widget position, or {-1, -1}.
    std::pair<int, int> launchAt(const QPoint& pos) const;

    QSize sizeHint() const override { return {900, 260}; }

signals:
    void rangeChanged(double begin, double end);
    void launchClicked(int side, int keyIndex);

protected:
    void paintEvent(QPaintEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;

private:
    struct Lane {
        int side = 0;        // 0 = A, 1 = B
        bool nvtx = false;   // an NVTX depth row, else a stream lane
        int depth = 0;       // NVTX depth
        uint32_t stream = 0; // stream id
        uint32_t device = 0;
        QString label;
        int top = 0;
        int height = 0;
    };
    void layoutLanes();
    double xOf(double t) const;
    double tOf(double x) const;
    QColor colorOf(int side, uint32_t key) const;
    const compare::CompareSession* session(int side) const { return side == 0 ? m_a : m_b; }
    struct SideInfo {
        TimeNs longest = 0; // longest launch, bounds the search for visible launches
    };
    const SideInfo& sideInfo(int s) const { return m_sides[s == 0 ? 0 : 1]; }
    TimeNs origin(int side) const;

    const compare::CompareSession* m_a = nullptr;
    const compare::CompareSession* m_b = nullptr;
    const compare::Comparison* m_comparison = nullptr;
    std::vector<Lane> m_lanes;
    SideInfo m_sides[2];
    std::vector<int> m_pairOfA, m_pairOfB; // key -> pair index, -1 unmatched
    double m_begin = 0, m_end = 1;
    int m_labelWidth = 150;
    int m_rulerHeight = 22;
    QPoint m_dragStart;
    double m_dragBegin = 0;
    bool m_dragging = false;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/timeline/timelinecoordinates.h"
#include "ui/session/eventdetails.h"
#include "ui/session/selectionmodel.h"
#include "ui/session/sessionsnapshot.h"
#include "ui/style/colorscheme.h"
#include "ui/timeline/dependencypainter.h"
#include "ui/timeline/framescheduler.h"
#include "ui/timeline/overlaypainter.h"
#include "ui/timeline/rowpainter.h"
#include "ui/timeline/rulerpainter.h"
#include "ui/timeline/timelineframe.h"
#include "ui/timeline/timelinepaintcontext.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineviewport.h"

#include <QHash>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QMenu;

#include <limits>
#include <memory>
#include <optional>
#include <vector>

class QScrollBar;

namespace ws {

class KernelActions;

// The timeline: ONE widget paints every row (not a cell per row). It composes
//   - a TimelineViewport: the visible time range (zoom around a point, pan, fit, Back/Forward),
//   - a FrameScheduler: frames built off the GUI thread (buildTimelineFrame; at most one build
//     in flight, newer requests coalesce, a new session cancels the running build),
//   - painters: RulerPainter, RowPainter (the frame's images, backgrounds, group notes) and
//     OverlayPainter (range, hover, selection, launch arrow, notices),
// and keeps the row layout, hit testing, tooltips and input. paintEvent only blits the newest
// frame; while a frame for a new view is being built, the previous one is shown
// shifted/scaled into place.
//
// Mouse: drag pans, Shift+drag (or drag in the ruler) selects a range, click selects,
// double-click fits an event, Ctrl+wheel zooms, wheel scrolls rows, Shift+wheel pans.
// Keys: W/S or +/- zoom, A/D or arrows pan, Home fits all, F fits the selection, Esc clears
// it, N / Shift+N step through search results. Right-click a row to hide, pin, move or
// collapse it.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kRulerHeight = 30;
    static constexpr int kDefaultLabelWidth = 240;

    struct Hit {
        int lane = -1;
        int counter = -1;
        quint32 first = 0;
        quint32 count = 0;
        quint32 widest = 0;
        quintptr rowId = 0;
        QRect rect; // widget coordinates
        int column = -1;
        double value = 0; // counters: the column's last value
        double minValue = 0;
        double maxValue = 0;
        bool isEvent() const { return lane >= 0 && count > 0; }
        bool isCounter() const { return counter >= 0; }
    };

    TimelineView(SelectionModel* selection, TimelineRowModel* rows, QWidget* parent = nullptr);
    ~TimelineView() override;

    void setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot);
    std::shared_ptr<const SessionSnapshot> snapshot() const { return m_snapshot; }
    void setDetailsSource(EventDetailsSource* details);
    void setEmptyMessage(const QString& message);

    QRect eventArea() const; // pinned + scrolled rows, right of the labels
    TimelineCoordinates coordinates() const;
    // Widget rectangle of a lane's row (event area part), empty when not shown.
    QRect laneRect(int lane) const;
    // The height that shows every row without scrolling (ruler, pinned and scrolled rows): the
    // window gives the timeline no more than this, so unused height goes to the panels.
    int rowsHeight() const
    {
        return kRulerHeight + (m_pinnedRowsHeight ? m_pinnedRowsHeight + 3 : 0) + m_contentHeight;
    }
    Hit hitTest(const QPoint& pos) const;

    std::shared_ptr<const TimelineFrame> frame() const { return m_frame; }
    bool isFrameCurrent() const;
    // Tests: the ruler's tick texts drawn every paint instead of copied from its cache.
    void setRulerCachesText(bool on) { m_ruler.setCachesText(on); }
    int rulerCachedLabels() const { return m_ruler.labels().size(); }
    bool isBuilding() const { return m_scheduler->isBuilding(); }
    double lastPaintMs() const { return m_lastPaintMs; }
    double worstPaintMs() const { return m_worstPaintMs; }
    double lastBuildMs() const { return m_lastBuildMs; }
    // CPU time of the last paint (GUI thread) and of the last frame build (worker).
    double lastPaintCpuMs() const { return m_lastPaintCpuMs; }
    double lastBuildCpuMs() const { return m_frame ? m_frame->buildCpuMs : 0.0; }
    // Layers of rows written straight into the window's buffer so far (RowPainter::paintFrame):
    // tests and the benchmark check the fast path is the one taken.
    int rowLayersWrittenDirectly() const { return m_directLayers; }

    // The dependency arrows between streams (DependencyPainter): on by default; View menu.
    void setDependenciesVisible(bool visible);
    bool dependenciesVisible() const { return m_showDependencies; }
    bool hasDependencies() const { return m_snapshot && !m_snapshot->dependencies.empty(); }

    QSize sizeHint() const override { return {1200, 700}; }

    // The collect actions a right-click on a kernel offers (owned by the main window; none
    // when null, the default).
    void setKernelActions(KernelActions* actions);
    // The kernel launch under `pos` (its rowid), -1 when none.
    qint64 kernelAt(const QPoint& pos) const;
    // The context menu for `pos`: the kernel's collect actions (for the traced launch a
    // profiled launch links to), then the row's and the view's items.
    void fillContextMenu(QMenu& menu, const QPoint& pos);
    // The kernel part of it: the KernelActions items for `kernelId`'s traced launch. Nothing
    // without KernelActions.
    void addKernelActions(QMenu& menu, qint64 kernelId);

    // A new snapshot of the same session (a run was appended and the file reloaded): keeps the
    // visible range, the vertical scroll and the selected event (found again by its row id:
    // rows of earlier runs keep their ids on append). setSnapshot() starts over instead.
    void reloadSnapshot(std::shared_ptr<const SessionSnapshot> snapshot);

public slots:
    void zoomBy(double factor, double anchorX = -1);
    void panBy(double fractionOfWidth);
    void fitAll();
    void fitSelection();
    // The pointer is over the timeline (keys pressed then go to it whatever has the focus).
    bool pointerOverTimeline() const;
    void fitEvent(const ws::EventSelection& event);
    // Brings an event into view (search): centres it, zooming in when it would be tiny.
    void revealEvent(const ws::EventSelection& event);
    void scrollToLane(int lane);

signals:
    void frameReady(double buildMs);
    void framePainted(double paintMs);
    void nextOccurrenceRequested();
    void previousOccurrenceRequested();

protected:
    bool event(QEvent* e) override;
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    void addWarpBlockChooser(QMenu& menu, const QModelIndex& group);
    void changeEvent(QEvent* e) override;

private:
    using LayoutRow = TimelineLayoutRow;

    void relayout();
    void requestFrame();
    std::optional<FrameRequest> makeFrameRequest();
    void onFrameBuilt(std::shared_ptr<TimelineFrame> frame);
    // Widget y where the current frame's scrolling rows end (below: plain background).
    int rowsEnd() const;
    // Whether a paint draws nothing but the background below rowsEnd(): no overlay reaches
    // there (a range selection, a selected event's arrows, dependency arrows, process ends,
    // the no-GPU notice).
    bool plainBelowRows() const;
    // After a paint of `painted`: where the view's pixels are now known to be plain.
    void notePlainBelow(const QRegion& painted, bool current);
    int rowHeight(const TimelineRowModel::Row& r) const;
    int pinnedHeight() const { return m_pinnedHeight; }
    QRect scrolledArea() const; // widget rect of the scrolling rows (labels included)
    QRect pinnedArea() const;
    int layerTop(int layer) const; // widget y of a layer's y = 0
    const LayoutRow* rowAt(const QPoint& pos) const;
    QRect rowRect(const LayoutRow& r) const; // widget rect, full width
    EventSelection selectionFor(int lane, quint32 index) const;
    QString tooltipFor(const Hit& hit) const;
    void showTooltip(const QPoint& pos, const QPoint& globalPos);
    void onDetails(int channel, const ws::EventDetails& details);
    void updateScrollBar();

    TimelinePaintContext paintContext() const;

    // Where the view stood before a reload: the scroll and the selected event's row top.
    static constexpr int kNoRow = std::numeric_limits<int>::min();
    struct ReloadAnchor {
        int scroll = 0;
        int selectedTop = kNoRow;
    };
    ReloadAnchor reloadAnchor() const;
    int scrolledRowTop(int lane) const; // widget y of a scrolled lane's row; kNoRow when not laid out

    SelectionModel* m_selection;
    TimelineRowModel* m_rows;
    TimelineViewport m_viewport;
    FrameScheduler* m_scheduler;
    RulerPainter m_ruler;
    RowPainter m_rowPainter;
    OverlayPainter m_overlays;
    DependencyPainter m_dependencies;
    bool m_showDependencies = true;
    EventDetailsSource* m_details = nullptr;
    std::shared_ptr<const SessionSnapshot> m_snapshot;
    QScrollBar* m_vscroll;
    ColorScheme m_colors;
    QString m_emptyMessage;
    int m_labelWidth = kDefaultLabelWidth;

    std::vector<LayoutRow> m_pinned;
    std::vector<LayoutRow> m_scrolled;
    QHash<int, size_t> m_laneRow; // lane -> index into m_pinned (layer 0) or m_scrolled
    QHash<int, int> m_laneLayer;
    int m_pinnedHeight = 0;
    int m_contentHeight = 0;
    int m_pinnedRowsHeight = 0; // uncapped, unlike m_pinnedHeight
    quint64 m_layoutGeneration = 0;

    std::shared_ptr<const TimelineFrame> m_frame;
    quint64 m_frameLayoutGeneration = 0;
    quint64 m_buildLayoutGeneration = 0;
    double m_lastPaintMs = 0;
    double m_worstPaintMs = 0;
    // From this widget y down, the view's own pixels are known to be plain background (as the
    // last paints left them): a new frame repaints only what is above (max: unknown).
    int m_plainFrom = std::numeric_limits<int>::max();
    double m_lastBuildMs = 0;
    double m_lastPaintCpuMs = 0;
    int m_directLayers = 0;

    enum class Drag { None, Pan, Range, Ruler };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    TimeRange m_pressView;
    TimelineCoordinates m_pressCoords; // the view the press was on: a drag pans its grid
    TimeNs m_pressTime = 0;
    bool m_moved = false;
    QPoint m_mousePos {-1, -1};
    Hit m_hover;
    QPoint m_tooltipGlobal;
    EventDetails m_selectedDetails;
    QTimer m_stalePaint;
    QPointer<KernelActions> m_kernelActions;
    std::optional<ReloadAnchor> m_reloadAnchor;
};

} // namespace ws

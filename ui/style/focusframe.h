// SPDX-License-Identifier: MIT
#pragma once

#include <QPointer>
#include <QWidget>

#include <vector>

namespace ws {

// Shows where the keyboard focus is: a frame in the palette's highlight colour around the region
// (a dock, the timeline) that holds the focus widget. The window's styles draw no focus on
// tables or on a custom-painted view, so without it a key press had no visible target (issue 24
// item 1). The frame is a child of the region it marks, on top of its content, transparent to
// the mouse; it follows the focus as QApplication reports it.
class FocusFrame : public QWidget {
    Q_OBJECT
public:
    static constexpr int kWidth = 2;

    explicit FocusFrame(QWidget* window);

    // A region that can be framed (each dock, the timeline). The innermost region holding the
    // focus widget is framed.
    void addRegion(QWidget* region);
    // The framed region, or null when the focus is outside every region (a menu, a dialog).
    QWidget* region() const { return m_region; }
    QColor color() const;

protected:
    void paintEvent(QPaintEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void follow(QWidget* focus);
    void frame(QWidget* region);

    QPointer<QWidget> m_window;
    QPointer<QWidget> m_region;
    std::vector<QPointer<QWidget>> m_regions;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/source/sourcetables.h"
#include "ui/panels/kernelfocus.h"
#include "ui/panels/sourcemodels.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QSplitter;
class QTableView;
class QToolButton;

namespace ws {

// Source counters of the focused kernel launch (ncu's Source page): the CUDA source with the
// stall samples of each line beside the SASS with the samples of each instruction, heat-coloured
// and split by stall reason. Clicking a source line highlights its SASS and the reverse; choosing
// a stall reason (here or in the warp-state panel) highlights where it dominates and scrolls to
// its hottest line. The tables come from the session (PC sampling, `profile --section
// SourceCounters`); the viewer needs no GPU or CUDA toolkit.
//
// Readable in its dock (issue 24 item 5): the counters are narrow columns (line, samples, a
// stall bar whose reasons are in the tooltip) before the syntax-coloured text; source and SASS
// sit side by side when the panel is wide, one above the other when it is not; F11 (or the
// Full window button) floats the dock over the whole window and back; H goes to the hottest
// line, and again to the next hottest (of the chosen stall reason, if one is).
class SourcePanel : public QWidget {
    Q_OBJECT
public:
    explicit SourcePanel(KernelFocus* focus, QWidget* parent = nullptr);

    SassTableModel* sassModel() const { return m_sass; }
    SourceLineModel* lineModel() const { return m_lines; }
    QTableView* sassTable() const { return m_sassView; }
    QTableView* sourceTable() const { return m_sourceView; }
    QComboBox* reasonBox() const { return m_reasonBox; }
    QLabel* summaryLabel() const { return m_summary; }
    QSplitter* splitter() const { return m_split; }
    QToolButton* hottestButton() const { return m_hottestButton; }
    QToolButton* fullWindowButton() const { return m_fullButton; }
    bool isFullWindow() const;
    // Source and SASS side by side from this width of the panel up, else stacked.
    static constexpr int kSideBySideWidth = 900;
    const std::shared_ptr<const SourceView>& view() const { return m_view; }
    qint64 kernelId() const { return m_kernel; }

public slots:
    // A stall reason by key ("long_scoreboard") or any of its names; "" shows all.
    void setStallReason(const QString& keyOrName);
    // Shows and highlights a source line of the current file and its SASS.
    void selectSourceLine(int line);
    // Highlights a SASS row (index into SourceView::sassRows()) and its source line.
    void selectSassRow(int sassRow);
    // 0 = every instruction, else the n hottest.
    void setHottestOnly(int n);
    // Goes to the hottest source line (of the chosen reason, if any); called again, to the next
    // hottest. Returns the line (0 when there is none).
    int goToHottestLine();
    // Floats the panel's dock over its main window (on) or puts it back (off).
    void setFullWindow(bool on);

signals:
    // The user chose a reason in this panel ("" for all).
    void stallReasonChosen(const QString& key);

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void loadTables();
    void refresh();
    void showFile(int fileIndex);
    void onReasonIndex(int comboIndex);

    KernelFocus* m_focus;
    std::shared_ptr<const SourceTables> m_tables;
    std::shared_ptr<const StringTable> m_strings;
    std::shared_ptr<const SourceView> m_view;
    qint64 m_kernel = -1;
    QLabel* m_summary;
    QLabel* m_banner;
    QComboBox* m_reasonBox;
    QComboBox* m_fileBox;
    QCheckBox* m_hottest;
    QSpinBox* m_hottestCount;
    QSplitter* m_split;
    QTableView* m_sourceView;
    QTableView* m_sassView;
    SourceLineModel* m_lines;
    SassTableModel* m_sass;
    QToolButton* m_hottestButton;
    QToolButton* m_fullButton;
    int m_hotRank = -1; // index into the lines by heat of the last goToHottestLine
};

} // namespace ws

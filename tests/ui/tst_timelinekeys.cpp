// SPDX-License-Identifier: MIT
// Issue 24 item 1, on the real window offscreen with the demo session: the timeline's keys
// (W/A/S/D, F, N / Shift+N, Esc, Home) reach the timeline whatever widget has the focus unless
// text is being typed, with the pointer over the timeline or elsewhere; Esc leaves any text
// field; and a frame shows which dock (or the timeline) has the focus. One row per focus widget,
// key and pointer position.
#include "settle.h"

#include "ui/mainwindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/session/sessiondocument.h"
#include "ui/style/focusframe.h"
#include "ui/timeline/timelinekeyrouter.h"
#include "ui/timeline/timelineview.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

using namespace ws;

namespace {

// What kind of widget has the focus: the routing rules depend on it.
enum class Kind { Timeline, Text, List, Other };

struct FocusWidget {
    const char* name;
    const char* dock; // the dock to raise first ("" for none)
    Kind kind;
};

// Every kind of widget a user can leave the focus in.
const FocusWidget kWidgets[] = {
    {"timeline", "", Kind::Timeline},
    {"search", "", Kind::Text},
    {"kernelFilter", "kernelRankingDock", Kind::Text},
    {"kernelTable", "kernelRankingDock", Kind::List},
    {"statsTable", "statsDock", Kind::List},
    {"legendView", "legendDock", Kind::List},
    {"sessionInfo", "sessionDock", Kind::List},
    {"selectionTree", "selectionDock", Kind::List},
    {"launchTable", "launchDock", Kind::List},
    {"sassInstructions", "sourceDock", Kind::List},
    {"hottestCount", "sourceDock", Kind::Text},
    {"pinButton", "launchDock", Kind::Other},
};

struct Key {
    const char* name;
    int key;
    Qt::KeyboardModifiers mods;
};

const Key kKeys[] = {
    {"W", Qt::Key_W, Qt::NoModifier},
    {"S", Qt::Key_S, Qt::NoModifier},
    {"A", Qt::Key_A, Qt::NoModifier},
    {"D", Qt::Key_D, Qt::NoModifier},
    {"F", Qt::Key_F, Qt::NoModifier},
    {"N", Qt::Key_N, Qt::NoModifier},
    {"Shift+N", Qt::Key_N, Qt::ShiftModifier},
    {"Esc", Qt::Key_Escape, Qt::NoModifier},
    {"Home", Qt::Key_Home, Qt::NoModifier},
};

// The spec (issue 24 item 1): text being typed keeps its keys (Esc leaves the field); otherwise
// the timeline gets them, except Home in a list while the pointer is away from the timeline.
QString expected(Kind kind, int key, bool over)
{
    if (kind == Kind::Text)
        return key == Qt::Key_Escape ? QStringLiteral("leaves field") : QStringLiteral("typed");
    if (key == Qt::Key_Home && kind == Kind::List && !over)
        return QStringLiteral("local");
    return QStringLiteral("timeline");
}

} // namespace

class TestTimelineKeys : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> m_w;
    TimeRange m_full;
    EventSelection m_kernel; // the longest kernel: selected before each key

    QDockWidget* dock(const char* name) const { return m_w->findChild<QDockWidget*>(QLatin1String(name)); }

    QWidget* widget(const QString& name) const
    {
        const auto first = [this](const char* dockName, auto* type) -> QWidget* {
            using T = std::remove_pointer_t<decltype(type)>;
            QDockWidget* d = dock(dockName);
            return d ? d->findChild<T*>() : nullptr;
        };
        if (name == QLatin1String("timeline"))
            return m_w->timelineView();
        if (name == QLatin1String("search"))
            return m_w->searchBox();
        if (name == QLatin1String("kernelFilter"))
            return m_w->analysisPanels()->ranking()->filterEdit();
        if (name == QLatin1String("kernelTable"))
            return m_w->analysisPanels()->ranking()->view();
        if (name == QLatin1String("statsTable"))
            return first("statsDock", static_cast<QTableView*>(nullptr));
        if (name == QLatin1String("launchTable"))
            return first("launchDock", static_cast<QTableView*>(nullptr));
        if (name == QLatin1String("selectionTree"))
            return first("selectionDock", static_cast<QTreeWidget*>(nullptr));
        if (name == QLatin1String("hottestCount"))
            return first("sourceDock", static_cast<QAbstractSpinBox*>(nullptr));
        if (name == QLatin1String("pinButton")) {
            for (auto* b : dock("launchDock")->findChildren<QAbstractButton*>())
                if (b->text() == QLatin1String("Pin"))
                    return b;
            return nullptr;
        }
        return m_w->findChild<QWidget*>(name);
    }

    // The pointer over the middle of the timeline's events, or over the status bar.
    void placePointer(bool over)
    {
        TimelineView* view = m_w->timelineView();
        if (over)
            QTest::mouseMove(view, view->eventArea().center());
        else
            QTest::mouseMove(m_w->statusBar(), m_w->statusBar()->rect().center());
        QTRY_COMPARE(view->pointerOverTimeline(), over);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_timelinekeys"));
        QSettings().clear();
        if (!QFile::exists(MainWindow::demoResourcePath()))
            QSKIP("resources/demo/h200-gemm-relu.wscope is not in this build");
        m_w = std::make_unique<MainWindow>();
        m_w->resize(1366, 768);
        m_w->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_w.get()));
        QSignalSpy ready(m_w->analysisPanels(), &AnalysisPanels::dataReady);
        QVERIFY(m_w->openDemo());
        QVERIFY(ready.wait(30000));
        m_w->activateWindow();
        m_w->timelineView()->fitAll();
        m_full = m_w->selection()->viewRange();
        const auto& lanes = m_w->snapshot()->model->lanes;
        for (size_t li = 0; li < lanes.size(); ++li) {
            for (size_t i = 0; i < lanes[li].size(); ++i) {
                const TimelineLane& l = lanes[li];
                if (l.ref[i].table() != EventTable::Kernel || l.endAt(i) - l.start[i] <= m_kernel.end - m_kernel.start)
                    continue;
                m_kernel = {static_cast<int>(li), static_cast<quint32>(i), l.ref[i], l.start[i], l.endAt(i),
                    m_w->snapshot()->qstr(l.name[i])};
            }
        }
        QVERIFY(m_kernel.isValid());
        QVERIFY(!m_kernel.name.contains(QLatin1String("relu")));
    }

    void cleanupTestCase()
    {
        m_w.reset();
        QSettings().clear();
    }

    void keyReachesTimeline_data()
    {
        QTest::addColumn<QString>("focus");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("dockName");
        QTest::addColumn<int>("key");
        QTest::addColumn<int>("mods");
        QTest::addColumn<bool>("over");
        QTest::addColumn<QString>("expect");
        for (const FocusWidget& f : kWidgets)
            for (const Key& k : kKeys)
                for (bool over : {true, false})
                    QTest::addRow("%s %s %s", f.name, k.name, over ? "over" : "away")
                        << QString::fromLatin1(f.name) << static_cast<int>(f.kind) << QString::fromLatin1(f.dock)
                        << k.key << static_cast<int>(k.mods) << over << expected(f.kind, k.key, over);
    }

    void keyReachesTimeline()
    {
        QFETCH(QString, focus);
        QFETCH(int, kind);
        QFETCH(QString, dockName);
        QFETCH(int, key);
        QFETCH(int, mods);
        QFETCH(bool, over);
        QFETCH(QString, expect);

        SelectionModel* sel = m_w->selection();
        TimelineView* view = m_w->timelineView();
        // A known state: the middle half of the session in view, the longest kernel selected, a
        // search for relu (N goes to a relu launch).
        m_w->searchBox()->setText(QStringLiteral("relu_kernel"));
        const qint64 quarter = (m_full.end - m_full.begin) / 4;
        sel->setViewRange({m_full.begin + quarter, m_full.end - quarter});
        sel->setSelectedEvent(m_kernel);
        if (!dockName.isEmpty())
            dock(qPrintable(dockName))->raise();
        QWidget* target = widget(focus);
        QVERIFY2(target, qPrintable(focus));
        QTRY_VERIFY2(target->isVisible(), qPrintable(focus));
        placePointer(over);
        target->setFocus(Qt::TabFocusReason);
        QTRY_COMPARE(QApplication::focusWidget(), target);
        if (auto* line = qobject_cast<QLineEdit*>(target))
            line->end(false);
        const QString textBefore = qobject_cast<QLineEdit*>(target) ? qobject_cast<QLineEdit*>(target)->text()
            : qobject_cast<QAbstractSpinBox*>(target)               ? qobject_cast<QAbstractSpinBox*>(target)->text()
                                                                    : QString();
        auto* rankingView = m_w->analysisPanels()->ranking()->view();
        const QModelIndex rankingBefore = rankingView->currentIndex();
        const TimeRange before = sel->viewRange();
        QVERIFY(test::settle({{"event search", 2}}));

        QTest::keyClick(QApplication::focusWidget(), static_cast<Qt::Key>(key), Qt::KeyboardModifiers(mods));
        QVERIFY(test::settle({{"event search", 2}}));

        const TimeRange after = sel->viewRange();
        const qint64 w0 = before.end - before.begin;
        const qint64 w1 = after.end - after.begin;
        if (expect == QLatin1String("timeline")) {
            switch (key) {
            case Qt::Key_W:
                QVERIFY2(w1 < w0, "W did not zoom in");
                break;
            case Qt::Key_S:
                QVERIFY2(w1 > w0, "S did not zoom out");
                break;
            case Qt::Key_A:
                QVERIFY2(after.begin < before.begin && w1 == w0, "A did not pan left");
                break;
            case Qt::Key_D:
                QVERIFY2(after.begin > before.begin && w1 == w0, "D did not pan right");
                break;
            case Qt::Key_F:
                QVERIFY2(after.begin <= m_kernel.start && after.end >= m_kernel.end
                        && w1 < 2 * (m_kernel.end - m_kernel.start),
                    "F did not frame the selected kernel");
                break;
            case Qt::Key_N:
                QTRY_VERIFY2(sel->selectedEvent().name.contains(QLatin1String("relu_kernel")),
                    qPrintable(QStringLiteral("N/Shift+N did not go to a relu_kernel: ") + sel->selectedEvent().name));
                break;
            case Qt::Key_Escape:
                QVERIFY2(!sel->selectedEvent().isValid(), "Esc did not clear the selection");
                break;
            case Qt::Key_Home:
                QCOMPARE(after.begin, m_full.begin);
                QCOMPARE(after.end, m_full.end);
                break;
            }
            // The key did not also act in the focused widget (a table's type-ahead search).
            if (focus == QLatin1String("kernelTable"))
                QCOMPARE(rankingView->currentIndex(), rankingBefore);
            return;
        }
        // Not the timeline's: the view and the selection are as they were.
        QCOMPARE(after.begin, before.begin);
        QCOMPARE(after.end, before.end);
        QCOMPARE(sel->selectedEvent().index, m_kernel.index);
        QCOMPARE(sel->selectedEvent().lane, m_kernel.lane);
        if (expect == QLatin1String("leaves field")) {
            QVERIFY2(QApplication::focusWidget() == view,
                qPrintable(QStringLiteral("focus on %1")
                               .arg(QApplication::focusWidget() ? QApplication::focusWidget()->objectName()
                                                                : QStringLiteral("nothing"))));
        } else if (expect == QLatin1String("typed") && static_cast<Kind>(kind) == Kind::Text) {
            QCOMPARE(QApplication::focusWidget(), target);
            if (auto* line = qobject_cast<QLineEdit*>(target)) {
                if (key != Qt::Key_Home)
                    QCOMPARE(line->text(), textBefore + QTest::keyToAscii(static_cast<Qt::Key>(key)));
                else
                    QCOMPARE(line->cursorPosition(), 0);
            }
        }
    }

    // The routing rules alone: a table being edited (its editor is a line edit) keeps Esc, so
    // the edit can be cancelled; a read-only text view is no text entry.
    void textEntries()
    {
        QLineEdit edit;
        QVERIFY(TimelineKeyRouter::isTextEntry(&edit));
        edit.setReadOnly(true);
        QVERIFY(!TimelineKeyRouter::isTextEntry(&edit));
        QKeyEvent s(QEvent::KeyPress, Qt::Key_S, Qt::NoModifier, QStringLiteral("s"));
        QKeyEvent ctrlS(QEvent::KeyPress, Qt::Key_S, Qt::ControlModifier);
        QKeyEvent q(QEvent::KeyPress, Qt::Key_Q, Qt::NoModifier, QStringLiteral("q"));
        QTableView table;
        QVERIFY(TimelineKeyRouter::routesToTimeline(s, &table, false));
        QVERIFY(!TimelineKeyRouter::routesToTimeline(ctrlS, &table, true));
        QVERIFY(!TimelineKeyRouter::routesToTimeline(q, &table, true));
        edit.setReadOnly(false);
        QVERIFY(!TimelineKeyRouter::routesToTimeline(s, &edit, true));
    }

    // The focused dock (or the timeline) is framed in the highlight colour.
    void focusIsVisible_data()
    {
        QTest::addColumn<QString>("focus");
        QTest::addColumn<QString>("dockName");
        for (const FocusWidget& f : kWidgets)
            QTest::addRow("%s", f.name) << QString::fromLatin1(f.name) << QString::fromLatin1(f.dock);
    }

    void focusIsVisible()
    {
        QFETCH(QString, focus);
        QFETCH(QString, dockName);
        if (!dockName.isEmpty())
            dock(qPrintable(dockName))->raise();
        QWidget* target = widget(focus);
        QVERIFY(target);
        QTRY_VERIFY(target->isVisible());
        target->setFocus(Qt::TabFocusReason);
        QTRY_COMPARE(QApplication::focusWidget(), target);
        FocusFrame* frame = m_w->focusFrame();
        QVERIFY(frame);
        QWidget* region = dockName.isEmpty() ? (focus == QLatin1String("timeline") ? m_w->timelineView() : nullptr)
                                             : static_cast<QWidget*>(dock(qPrintable(dockName)));
        QCOMPARE(frame->region(), region);
        if (!region) {
            // The search box draws its own focus; no dock is framed.
            QVERIFY(!frame->isVisible());
            return;
        }
        QVERIFY(frame->isVisible());
        QCOMPARE(frame->geometry(), region->rect());
        // The frame is drawn over the region's content: its left, right, top and bottom edges
        // are in the highlight colour in a grab of the region.
        QCoreApplication::processEvents();
        const QImage img = region->grab().toImage();
        const QRgb want = frame->color().rgb();
        const int y = img.height() / 2;
        const int x = img.width() / 2;
        for (QPoint p : {QPoint(0, y), QPoint(img.width() - 1, y), QPoint(x, 0), QPoint(x, img.height() - 1)})
            QVERIFY2(img.pixel(p) == want,
                qPrintable(QStringLiteral("%1 at (%2,%3): %4, want %5")
                               .arg(focus)
                               .arg(p.x())
                               .arg(p.y())
                               .arg(QColor(img.pixel(p)).name(), QColor(want).name())));
    }
};

QTEST_MAIN(TestTimelineKeys)
#include "tst_timelinekeys.moc"

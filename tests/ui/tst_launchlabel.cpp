// SPDX-License-Identifier: MIT
// The launch → start label of a selected kernel (issue 24 item 7): it is opaque and sits on the
// GPU row, so OverlayPainter draws it only while the pointer is near the call, the work, the
// bracket or the label; the arrow and the bracket are drawn either way. Painted into an image
// with the small session: the kernel gemm_kernel (stream 7) launched by the cudaLaunchKernel
// call 6 µs earlier.
#include "uifixtures.h"

#include "ui/session/eventdetails.h"
#include "ui/style/colorscheme.h"
#include "ui/timeline/overlaypainter.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace ws;

namespace {

struct Scene {
    std::shared_ptr<SessionSnapshot> snapshot = test::smallSession(false);
    ColorScheme colors {QPalette()};
    TimelinePaintContext ctx;
    EventDetails details;
    OverlayPainter::State state;
    // Lane -> row: the API lane on top, stream 7 further down, 24 px rows.
    OverlayPainter::LaneRect laneRect = [](int lane) {
        if (lane == 0)
            return QRect(100, 30, 900, 24);
        if (lane == 3)
            return QRect(100, 130, 900, 24);
        return QRect();
    };

    Scene()
    {
        const TimelineLane& gpu = snapshot->model->lanes[3];
        ctx.snapshot = snapshot.get();
        ctx.colors = &colors;
        ctx.font = QFont();
        ctx.width = 1000;
        ctx.height = 200;
        ctx.labelWidth = 100;
        ctx.eventArea = QRect(100, 0, 900, 200);
        // 1 µs per 10 px from the session start: the call at x 100, the kernel from x 160.
        ctx.coords = TimelineCoordinates::fit(1'000'000, 1'090'000, 900);
        state.selected.lane = 3;
        state.selected.index = 0;
        state.selected.ref = gpu.ref[0];
        state.selected.start = gpu.start[0];
        state.selected.end = gpu.endAt(0);
        details.lane = 3;
        details.index = 0;
        details.linkLane = 0;
        details.linkStart = 1'000'000;
        details.linkEnd = 1'005'000;
        state.selectedDetails = &details;
    }

    QImage paint(QPoint pointer)
    {
        ctx.pointer = pointer;
        QImage image(1000, 200, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter p(&image);
        OverlayPainter().paint(p, ctx, state, laneRect);
        return image;
    }
};

} // namespace

class TestLaunchLabel : public QObject {
    Q_OBJECT
private slots:
    void labelOnlyNearTheLaunch_data()
    {
        QTest::addColumn<QPoint>("pointer");
        QTest::addColumn<bool>("shown");
        QTest::newRow("not over the view") << QPoint(-1, -1) << false;
        QTest::newRow("far from the launch") << QPoint(900, 190) << false;
        QTest::newRow("on the kernel") << QPoint(300, 140) << true;
        QTest::newRow("on the call") << QPoint(120, 40) << true;
    }
    void labelOnlyNearTheLaunch()
    {
        QFETCH(QPoint, pointer);
        QFETCH(bool, shown);
        Scene scene;
        const QImage bare = scene.paint(QPoint(-1, -1));
        const QImage now = scene.paint(pointer);
        // The arrow and the bracket are always there: the overlay drew on the white image.
        QImage white(bare.size(), bare.format());
        white.fill(Qt::white);
        QVERIFY(bare != white);
        // The label is the only thing the pointer adds.
        QCOMPARE(now != bare, shown);
    }
};

QTEST_MAIN(TestLaunchLabel)
#include "tst_launchlabel.moc"

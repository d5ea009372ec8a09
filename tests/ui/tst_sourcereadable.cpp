// SPDX-License-Identifier: MIT
// Issue 24 item 5: the Source panel is readable in its dock. On the H200 PC sampling fixture
// (tests/fixtures/source): syntax runs of CUDA and SASS text, their colours readable on every
// background the panel paints (light, dark, the highlighted row), coloured text actually drawn,
// every counter column visible and the text columns wide enough to read at the dock's size
// (stacked) and at full window (side by side), F11 in and out of full window, and H going to the
// hottest line, then the next, of all reasons or of the chosen one.
#include "panelfixtures.h"

#include "ui/panels/analysispanels.h"
#include "ui/panels/sourcepanel.h"
#include "ui/panels/sourcesyntax.h"
#include "ui/style/colorscheme.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFontDatabase>
#include <QHeaderView>
#include <QMainWindow>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

using namespace ws;
using namespace ws::test;

Q_DECLARE_METATYPE(ws::SourceSyntax::Kind)

namespace {

using Kind = SourceSyntax::Kind;

// The kind of the run covering `token`'s first character in `text`.
Kind kindOf(const QVector<SourceSyntax::Run>& runs, const QString& text, const QString& token)
{
    const qsizetype at = text.indexOf(token);
    for (const auto& r : runs)
        if (at >= r.start && at < r.start + r.length)
            return r.kind;
    return Kind::KindCount;
}

// WCAG contrast ratio of two colours.
double contrast(const QColor& a, const QColor& b)
{
    const auto lum = [](const QColor& c) {
        const auto ch = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
    };
    const double l1 = lum(a), l2 = lum(b);
    return (std::max(l1, l2) + 0.05) / (std::min(l1, l2) + 0.05);
}

int64_t kernelOf(const SessionData& s, const std::string& mangled)
{
    for (const auto& k : s.kernels)
        if (s.str(k.mangledName) == mangled)
            return k.id;
    return -1;
}

// The visible width of a column in its table's viewport (0 when scrolled out).
int visibleWidth(QTableView* t, int column)
{
    if (t->isColumnHidden(column))
        return 0;
    const int x0 = t->horizontalHeader()->sectionViewportPosition(column);
    const int x1 = x0 + t->horizontalHeader()->sectionSize(column);
    return std::max(0, std::min(x1, t->viewport()->width()) - std::max(x0, 0));
}

} // namespace

class TestSourceReadable : public QObject {
    Q_OBJECT

    SessionData m_session;

    // The panels in a main window's dock, as the app has them.
    struct Docked {
        SelectionModel selection;
        QMainWindow window;
        std::unique_ptr<AnalysisPanels> panels;
        QDockWidget* dock = nullptr;
        explicit Docked(QSize size)
        {
            panels = std::make_unique<AnalysisPanels>(&selection, &window);
            const QString path = fixturePath("source/stalls-source.wscope");
            panels->setData(panelDataOf(path), snapshotOf(path));
            dock = new QDockWidget(QStringLiteral("Source"), &window);
            dock->setObjectName(QStringLiteral("sourceDock"));
            dock->setWidget(panels->source());
            window.setCentralWidget(new QWidget(&window));
            window.addDockWidget(Qt::RightDockWidgetArea, dock);
            window.resize(size);
        }
        SourcePanel* source() const { return panels->source(); }
    };

private slots:
    void initTestCase()
    {
        m_session = SessionReader(fixturePath("source/stalls-source.wscope").toStdString()).readAll();
    }

    void cudaRuns_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("startsInComment");
        QTest::addColumn<QString>("token");
        QTest::addColumn<Kind>("kind");
        QTest::addColumn<bool>("endsInComment");
        const QString kernel = QStringLiteral("__global__ void barrier_kernel(float* out, int rounds) { // HOT(x)");
        QTest::newRow("qualifier") << kernel << false << QStringLiteral("__global__") << Kind::Keyword << false;
        QTest::newRow("void") << kernel << false << QStringLiteral("void") << Kind::Type << false;
        QTest::newRow("name") << kernel << false << QStringLiteral("barrier_kernel") << Kind::Plain << false;
        QTest::newRow("float") << kernel << false << QStringLiteral("float") << Kind::Type << false;
        QTest::newRow("line comment") << kernel << false << QStringLiteral("// HOT") << Kind::Comment << false;
        const QString math = QStringLiteral("x = fmaf(x, 0.9999f, 1e-3f) + 0x1Fu; if (s == \"a//b\") return;");
        QTest::newRow("float literal") << math << false << QStringLiteral("0.9999f") << Kind::Number << false;
        QTest::newRow("exponent") << math << false << QStringLiteral("1e-3f") << Kind::Number << false;
        QTest::newRow("hex") << math << false << QStringLiteral("0x1Fu") << Kind::Number << false;
        QTest::newRow("string with //") << math << false << QStringLiteral("\"a//b\"") << Kind::String << false;
        QTest::newRow("keyword after string") << math << false << QStringLiteral("return") << Kind::Keyword << false;
        QTest::newRow("preprocessor") << QStringLiteral("#include <cuda_runtime.h>") << false
                                      << QStringLiteral("#include") << Kind::Preprocessor << false;
        QTest::newRow("block opens") << QStringLiteral("int a; /* starts here") << false << QStringLiteral("/*")
                                     << Kind::Comment << true;
        QTest::newRow("inside block") << QStringLiteral("   for (int i = 0;") << true << QStringLiteral("for")
                                      << Kind::Comment << true;
        QTest::newRow("block closes") << QStringLiteral("ends */ for (;;)") << true << QStringLiteral("for")
                                      << Kind::Keyword << false;
        QTest::newRow("identifier with digits")
            << QStringLiteral("float2 v2 = x2;") << false << QStringLiteral("v2") << Kind::Plain << false;
    }

    void cudaRuns()
    {
        QFETCH(QString, line);
        QFETCH(bool, startsInComment);
        QFETCH(QString, token);
        QFETCH(Kind, kind);
        QFETCH(bool, endsInComment);
        bool in = startsInComment;
        const auto runs = SourceSyntax::cudaLine(line, in);
        QCOMPARE(kindOf(runs, line, token), kind);
        QCOMPARE(in, endsInComment);
        // The runs tile the line.
        int at = 0;
        for (const auto& r : runs) {
            QCOMPARE(r.start, at);
            at += r.length;
        }
        QCOMPARE(at, line.size());
    }

    void sassRuns_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("token");
        QTest::addColumn<Kind>("kind");
        QTest::newRow("guard") << QStringLiteral("@!P0 BRA `(.L_x_7)") << QStringLiteral("@!P0") << Kind::Predicate;
        QTest::newRow("branch") << QStringLiteral("@!P0 BRA `(.L_x_7)") << QStringLiteral("BRA") << Kind::Opcode;
        QTest::newRow("label") << QStringLiteral("@!P0 BRA `(.L_x_7)") << QStringLiteral("`(.L_x_7)") << Kind::Label;
        const QString imad = QStringLiteral("IMAD.WIDE.U32 R2, R7, 0x4, R2");
        QTest::newRow("opcode") << imad << QStringLiteral("IMAD.WIDE.U32") << Kind::Opcode;
        QTest::newRow("register") << imad << QStringLiteral("R7") << Kind::Register;
        QTest::newRow("immediate") << imad << QStringLiteral("0x4") << Kind::Number;
        QTest::newRow("constant bank") << QStringLiteral("LDC.64 R2, c[0x0][0x210]") << QStringLiteral("c[0x0]")
                                       << Kind::Constant;
        QTest::newRow("descriptor") << QStringLiteral("STG.E desc[UR6][R2.64], R5") << QStringLiteral("desc[")
                                    << Kind::Constant;
        QTest::newRow("uniform register")
            << QStringLiteral("S2UR UR5, SR_CTAID.X") << QStringLiteral("UR5") << Kind::Register;
        QTest::newRow("special register")
            << QStringLiteral("S2UR UR5, SR_CTAID.X") << QStringLiteral("SR_CTAID.X") << Kind::Register;
        QTest::newRow("zero register") << QStringLiteral("ISETP.NE.AND P0, PT, R2, RZ, PT") << QStringLiteral("RZ")
                                       << Kind::Register;
        QTest::newRow("predicate operand")
            << QStringLiteral("ISETP.NE.AND P0, PT, R2, RZ, PT") << QStringLiteral("P0") << Kind::Predicate;
        QTest::newRow("float immediate") << QStringLiteral("FFMA R5, R5, R6, 0.5") << QStringLiteral("0.5")
                                         << Kind::Number;
    }

    void sassRuns()
    {
        QFETCH(QString, text);
        QFETCH(QString, token);
        QFETCH(Kind, kind);
        QCOMPARE(kindOf(SourceSyntax::sassInstruction(text), text, token), kind);
    }

    // Every colour reads (WCAG AA, 4.5:1) on each background the tables paint: the light and the
    // dark palette's base, and the (light) highlighted row on either.
    void coloursReadOnEveryBackground_data()
    {
        QTest::addColumn<QColor>("background");
        QTest::addColumn<QColor>("text");
        const QPalette light(QColor(0xef, 0xef, 0xef));
        QTest::newRow("light base") << QColor(Qt::white) << QColor(Qt::black);
        QTest::newRow("dark base") << ColorScheme::darkPalette().color(QPalette::Base)
                                   << ColorScheme::darkPalette().color(QPalette::Text);
        QTest::newRow("highlighted row") << QColor(0xff, 0xf2, 0xa8) << QColor(0x1e, 0x1e, 0x1e);
    }

    void coloursReadOnEveryBackground()
    {
        QFETCH(QColor, background);
        QFETCH(QColor, text);
        for (int k = 0; k < Kind::KindCount; ++k) {
            const QColor c = SourceSyntax::color(static_cast<Kind>(k), background, text);
            QVERIFY2(contrast(c, background) >= 4.5,
                qPrintable(QStringLiteral("kind %1: %2 on %3 = %4")
                               .arg(k)
                               .arg(c.name(), background.name())
                               .arg(contrast(c, background))));
        }
    }

    // Every cell the models colour (heat, highlighted line) names its text colour, readable on
    // that background on any palette (a dark palette's light text on the light highlight was not).
    void colouredCellsNameTheirText()
    {
        Docked d({1500, 800});
        SourcePanel* p = d.source();
        d.panels->focus()->selectKernel(kernelOf(m_session, "_Z14barrier_kernelPfii"));
        QCoreApplication::processEvents();
        int cells = 0;
        for (QAbstractItemModel* m :
            {static_cast<QAbstractItemModel*>(p->lineModel()), static_cast<QAbstractItemModel*>(p->sassModel())}) {
            for (int r = 0; r < m->rowCount(); ++r)
                for (int c = 0; c < m->columnCount(); ++c) {
                    const QModelIndex i = m->index(r, c);
                    const QVariant bg = i.data(Qt::BackgroundRole);
                    if (!bg.isValid())
                        continue;
                    ++cells;
                    const QVariant fg = i.data(Qt::ForegroundRole);
                    QVERIFY2(fg.isValid(), qPrintable(QStringLiteral("row %1 column %2").arg(r).arg(c)));
                    const double ratio = contrast(fg.value<QBrush>().color(), bg.value<QBrush>().color());
                    QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("row %1 column %2: %3").arg(r).arg(c).arg(ratio)));
                }
        }
        QVERIFY(cells > 10);
    }

    // In the dock at 1366x768 (about a third of the width): source above SASS, each text column
    // wide enough for a line of code, every counter column whole. At full window (F11): side by
    // side, both text columns still readable; F11 again docks it back.
    void readableInTheDockAndFullWindow()
    {
        Docked d({1366, 768});
        d.dock->setMinimumWidth(10);
        d.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d.window));
        // The Source dock's share of the window at 1366x768 (one of three panels side by side).
        d.window.resizeDocks({d.dock}, {520}, Qt::Horizontal);
        SourcePanel* p = d.source();
        d.panels->focus()->selectKernel(kernelOf(m_session, "_Z14barrier_kernelPfii"));
        QCoreApplication::processEvents();
        QTRY_VERIFY(p->width() < SourcePanel::kSideBySideWidth);
        QCOMPARE(p->splitter()->orientation(), Qt::Vertical);

        const int ch
            = QFontMetrics(QFontDatabase::systemFont(QFontDatabase::FixedFont)).horizontalAdvance(QLatin1Char('x'));
        const auto check = [&](int minChars) {
            QCoreApplication::processEvents();
            for (QTableView* t : {p->sourceTable(), p->sassTable()}) {
                const int text = t->model()->columnCount() - 1;
                for (int c = 0; c < text; ++c) {
                    if (t->isColumnHidden(c))
                        continue;
                    QVERIFY2(visibleWidth(t, c) == t->horizontalHeader()->sectionSize(c),
                        qPrintable(QStringLiteral("%1 column %2 cut: %3 of %4 px")
                                       .arg(t->objectName())
                                       .arg(t->model()->headerData(c, Qt::Horizontal).toString())
                                       .arg(visibleWidth(t, c))
                                       .arg(t->horizontalHeader()->sectionSize(c))));
                }
                QVERIFY2(visibleWidth(t, text) >= minChars * ch,
                    qPrintable(QStringLiteral("%1 text column %2 px, %3 characters")
                                   .arg(t->objectName())
                                   .arg(visibleWidth(t, text))
                                   .arg(visibleWidth(t, text) / ch)));
            }
        };
        check(40);
        QVERIFY(p->sourceTable()->height() >= 6 * p->sourceTable()->verticalHeader()->defaultSectionSize());

        // One key: F11 with the focus in the panel.
        p->sourceTable()->setFocus();
        QTest::keyClick(p->sourceTable(), Qt::Key_F11);
        QVERIFY(p->isFullWindow());
        QTRY_VERIFY(d.dock->isFloating());
        QTRY_COMPARE(d.dock->size(), d.window.size());
        QTRY_COMPARE(p->splitter()->orientation(), Qt::Horizontal);
        check(60);
        QTest::keyClick(p->sourceTable(), Qt::Key_F11);
        QVERIFY(!p->isFullWindow());
        QTRY_VERIFY(!d.dock->isFloating());
        QTRY_COMPARE(p->splitter()->orientation(), Qt::Vertical);
    }

    // The coloured text is drawn: in a grab of the hottest line's row, the keyword colour is
    // there (barrier_kernel's hot line is "__syncthreads(); } while (++r < rounds);").
    void keywordsAreColoured()
    {
        Docked d({1500, 800});
        d.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d.window));
        SourcePanel* p = d.source();
        d.panels->focus()->selectKernel(kernelOf(m_session, "_Z14barrier_kernelPfii"));
        QCoreApplication::processEvents();
        QTableView* t = p->sourceTable();
        // A row whose text has a keyword and which is not highlighted (the plain background).
        int row = -1;
        for (int r = 0; r < t->model()->rowCount() && row < 0; ++r) {
            const QModelIndex i = t->model()->index(r, SourceLineModel::Source);
            if (i.data().toString().contains(QLatin1String("while (")) && !i.data(sourceroles::kHighlighted).toBool())
                row = r;
        }
        if (row < 0) // the hot line is the only one: un-highlight it
            row = p->goToHottestLine() - 1;
        QVERIFY(row >= 0);
        p->selectSourceLine(0);
        t->clearSelection();
        t->setCurrentIndex({});
        t->scrollTo(t->model()->index(row, 0), QAbstractItemView::PositionAtCenter);
        QCoreApplication::processEvents();
        const QRect cell = t->visualRect(t->model()->index(row, SourceLineModel::Source));
        const QImage img = t->viewport()->grab(cell).toImage();
        const QColor want = SourceSyntax::color(
            Kind::Keyword, t->palette().color(QPalette::Base), t->palette().color(QPalette::Text));
        int near = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const QColor c = img.pixelColor(x, y);
                near += std::abs(c.red() - want.red()) + std::abs(c.green() - want.green())
                        + std::abs(c.blue() - want.blue())
                    < 40;
            }
        QVERIFY2(near >= 5,
            qPrintable(QStringLiteral("%1 pixels in the keyword colour %2 in row %3: %4")
                           .arg(near)
                           .arg(want.name())
                           .arg(row + 1)
                           .arg(t->model()->index(row, SourceLineModel::Source).data().toString())));
    }

    // H: the hottest line, then the next hottest; with a reason chosen, that reason's lines.
    void hottestLineKey()
    {
        Docked d({1500, 800});
        d.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d.window));
        SourcePanel* p = d.source();
        for (const char* mangled :
            {"_Z14barrier_kernelPfii", "_Z12chase_kernelPKjPji", "_Z20bank_conflict_kernelPji"}) {
            d.panels->focus()->selectKernel(kernelOf(m_session, mangled));
            QCoreApplication::processEvents();
            const SourceView& v = *p->view();
            const auto hot = v.hottestLine();
            QVERIFY(hot.first >= 0);
            // Lines by samples, to know the expected order.
            std::vector<std::pair<int64_t, int>> byHeat;
            for (const auto& l : v.files()[static_cast<size_t>(hot.first)].lines)
                if (l.total > 0)
                    byHeat.emplace_back(l.total, l.line);
            std::stable_sort(byHeat.begin(), byHeat.end(), [](auto a, auto b) { return a.first > b.first; });
            QVERIFY(byHeat.size() >= 2);

            // Somewhere else first: the view scrolled away and another line selected.
            p->selectSourceLine(1);
            p->sourceTable()->setFocus();
            QTest::keyClick(p->sourceTable(), Qt::Key_H);
            QCOMPARE(p->sourceTable()->currentIndex().row() + 1, hot.second);
            QVERIFY(p->lineModel()->index(hot.second - 1, 0).data(sourceroles::kHighlighted).toBool());
            QVERIFY(p->sourceTable()->viewport()->rect().contains(
                p->sourceTable()->visualRect(p->lineModel()->index(hot.second - 1, 0)).center()));
            QTest::keyClick(p->sourceTable(), Qt::Key_H);
            QCOMPARE(p->sourceTable()->currentIndex().row() + 1, byHeat[1].second);
            QVERIFY(p->hottestButton()->isVisible());

            // A stall reason chosen: its hottest line.
            const int reason = static_cast<int>(v.reasons().size()) > 1 ? 1 : 0;
            p->reasonBox()->setCurrentIndex(reason + 1);
            emit p->reasonBox()->activated(reason + 1);
            QTest::keyClick(p->sourceTable(), Qt::Key_H);
            QCOMPARE(p->sourceTable()->currentIndex().row() + 1, v.hottestLineFor(reason).second);
            QCOMPARE(p->reasonBox()->currentIndex(), reason + 1); // the reason stays chosen
        }
    }
};

QTEST_MAIN(TestSourceReadable)
#include "tst_sourcereadable.moc"

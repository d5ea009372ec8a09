// SPDX-License-Identifier: MIT
// The nvdisasm line-table comment and instruction lines in the forms nvdisasm prints them
// (-g, and -gi with inlining), plus what the parser must skip: PTX-level pseudo files,
// directives, labels and the encoding comments of cuobjdump. The listings of real kernels are
// covered by tst_source_fixture (golden files recorded on the H200).
#include "core/source/sassdisassembly.h"

#include <QtTest>

using namespace ws;

class TestSassDisassembly : public QObject {
    Q_OBJECT

private slots:
    void lineComment_data()
    {
        QTest::addColumn<QString>("comment");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("frames");
        QTest::newRow("-g") << "\t//## File \"/src/a.cu\", line 35" << true << "/src/a.cu" << 35 << 0;
        QTest::newRow("-gi inlined")
            << "\t//## File \"/x/IndexKernel.cu\", line 203 inlined at \"/x/IndexKernel.cu\", line 118" << true
            << "/x/IndexKernel.cu" << 203 << 1;
        QTest::newRow("spaces in path") << "//## File \"/a b/c.cu\", line 7" << true << "/a b/c.cu" << 7 << 0;
        QTest::newRow("not a line comment") << "// a comment" << false << "" << 0 << 0;
        QTest::newRow("no line number") << "//## File \"/a.cu\"" << false << "/a.cu" << 0 << 0;
    }

    void lineComment()
    {
        QFETCH(QString, comment);
        QFETCH(bool, ok);
        QFETCH(QString, file);
        QFETCH(int, line);
        QFETCH(int, frames);
        std::string f;
        int32_t l = 0;
        std::vector<std::pair<std::string, int32_t>> at;
        QCOMPARE(SassDisassembly::parseLineComment(comment.toStdString(), f, l, at), ok);
        if (!ok)
            return;
        QCOMPARE(QString::fromStdString(f), file);
        QCOMPARE(l, line);
        QCOMPARE(static_cast<int>(at.size()), frames);
        if (frames)
            QCOMPARE(at.front().second, 118);
    }

    // With -gi one block has a comment per inlining level, innermost first; the PTX pseudo file
    // is no CUDA source; a position holds until the next block, across labels.
    void blocksAndPseudoFiles()
    {
        const std::string text = "//--------------------- .text._Z1kv --------------------------\n"
                                 "\t.section\t.text._Z1kv,\"ax\",@progbits\n"
                                 ".text._Z1kv:\n"
                                 "\t//## File \"/s/lib.h\", line 43 inlined at \"/s/k.cu\", line 288\n"
                                 "\t//## File \"/s/k.cu\", line 288\n"
                                 "\t//## File \".nv_debug_ptx_txt\", line 19\n"
                                 "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
                                 ".L_x_1:\n"
                                 "        /*0010*/              @!P0 BRA `(.L_x_1) ;\n"
                                 "\t//## File \"/s/k.cu\", line 290\n"
                                 "        /*0020*/                   EXIT ;\n";
        const auto fs = SassDisassembly::parse(text);
        QCOMPARE(fs.size(), size_t(1));
        QCOMPARE(fs[0].name, std::string("_Z1kv"));
        QCOMPARE(fs[0].instructions.size(), size_t(3));
        QCOMPARE(fs[0].instructions[0].file, std::string("/s/lib.h"));
        QCOMPARE(fs[0].instructions[0].line, 43);
        QCOMPARE(fs[0].instructions[0].inlinedAt.size(), size_t(1));
        QCOMPARE(fs[0].instructions[1].line, 43);
        QCOMPARE(fs[0].instructions[1].text, std::string("@!P0 BRA `(.L_x_1)"));
        QCOMPARE(fs[0].instructions[1].pcOffset, uint64_t(0x10));
        QCOMPARE(fs[0].instructions[2].line, 290);
        QVERIFY(fs[0].instructions[2].inlinedAt.empty());
    }

    void cuobjdumpEncodingsAreSkipped()
    {
        const std::string text
            = "\tcode for sm_90a\n"
              "\t\tFunction : _Z2k2Pi\n"
              "\t.headerflags\t@\"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
              "        /*0000*/                   LDC R1, c[0x0][0x28] ;         /* 0x00000a00ff017b82 */\n"
              "                                                                  /* 0x000fe20000000800 */\n"
              "        /*0010*/                   EXIT ;                         /* 0x000000000000794d */\n";
        const auto fs = SassDisassembly::parse(text);
        QCOMPARE(fs.size(), size_t(1));
        QCOMPARE(fs[0].name, std::string("_Z2k2Pi"));
        QCOMPARE(fs[0].instructions.size(), size_t(2));
        QCOMPARE(fs[0].instructions[0].text, std::string("LDC R1, c[0x0][0x28]"));
        QCOMPARE(fs[0].instructions[1].text, std::string("EXIT"));
        QCOMPARE(fs[0].instructions[1].line, 0);
    }

    void nothingRecognisableIsEmpty()
    {
        QVERIFY(SassDisassembly::parse("").empty());
        QVERIFY(SassDisassembly::parse("nvdisasm fatal   : Input file 'x' is not a cubin\n").empty());
        // Instructions before any function header belong to none.
        QVERIFY(SassDisassembly::parse("        /*0000*/   EXIT ;\n").empty());
    }
};

QTEST_GUILESS_MAIN(TestSassDisassembly)
#include "tst_sassdisassembly.moc"

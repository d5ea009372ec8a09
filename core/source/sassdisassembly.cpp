// SPDX-License-Identifier: MIT
#include "core/source/sassdisassembly.h"

#include "core/util/textlines.h"

#include <cctype>
#include <charconv>

namespace ws {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// `"path", line N` at the start of `s`; advances `s` past it.
bool quotedPosition(std::string_view& s, std::string& file, int32_t& line)
{
    if (s.empty() || s.front() != '"')
        return false;
    const size_t close = s.find('"', 1);
    if (close == std::string_view::npos)
        return false;
    file = std::string(s.substr(1, close - 1));
    s.remove_prefix(close + 1);
    constexpr std::string_view kLine = ", line ";
    if (s.substr(0, kLine.size()) != kLine)
        return false;
    s.remove_prefix(kLine.size());
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), line);
    if (ec != std::errc())
        return false;
    s.remove_prefix(static_cast<size_t>(p - s.data()));
    return true;
}

// nvdisasm writes PTX-level positions as a pseudo file when the cubin carries PTX debug info;
// they are not CUDA source.
bool isPseudoFile(const std::string& file)
{
    return file == ".nv_debug_ptx_txt";
}

// "/*0a70*/  @P0 BRA `(.L_x_22) ;  /* 0x... */" -> offset and "@P0 BRA `(.L_x_22)".
bool instruction(std::string_view s, uint64_t& pc, std::string& text)
{
    if (s.substr(0, 2) != "/*")
        return false;
    const size_t close = s.find("*/", 2);
    if (close == std::string_view::npos || close == 2)
        return false;
    const std::string_view hex = s.substr(2, close - 2);
    const auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), pc, 16);
    if (ec != std::errc() || p != hex.data() + hex.size())
        return false;
    std::string_view rest = trim(s.substr(close + 2));
    // The encoding comment after the instruction (cuobjdump, nvdisasm -hex).
    if (const size_t enc = rest.find("/*"); enc != std::string_view::npos)
        rest = trim(rest.substr(0, enc));
    if (!rest.empty() && rest.back() == ';')
        rest = trim(rest.substr(0, rest.size() - 1));
    if (rest.empty())
        return false;
    text.clear();
    // Column alignment inside the instruction is the disassembler's; keep single spaces.
    bool space = false;
    for (char c : rest) {
        if (c == ' ' || c == '\t') {
            space = true;
            continue;
        }
        if (space && !text.empty())
            text += ' ';
        space = false;
        text += c;
    }
    return true;
}

} // namespace

bool SassDisassembly::parseLineComment(
    std::string_view comment, std::string& file, int32_t& line, std::vector<std::pair<std::string, int32_t>>& inlinedAt)
{
    std::string_view s = trim(comment);
    constexpr std::string_view kPrefix = "//## File ";
    if (s.substr(0, kPrefix.size()) != kPrefix)
        return false;
    s.remove_prefix(kPrefix.size());
    if (!quotedPosition(s, file, line))
        return false;
    inlinedAt.clear();
    constexpr std::string_view kInlined = " inlined at ";
    while (s.substr(0, kInlined.size()) == kInlined) {
        s.remove_prefix(kInlined.size());
        std::string f;
        int32_t l = 0;
        if (!quotedPosition(s, f, l))
            break;
        inlinedAt.emplace_back(std::move(f), l);
    }
    return true;
}

std::vector<SassFunctionListing> SassDisassembly::parse(std::string_view text)
{
    std::vector<SassFunctionListing> out;
    SassFunctionListing* current = nullptr;
    // Position for the following instructions. nvdisasm prints a "//## File" block only where
    // the position changes; with -gi a block has one comment per inlining level, innermost first.
    std::string file;
    int32_t line = 0;
    std::vector<std::pair<std::string, int32_t>> inlinedAt;
    bool inBlock = false; // the previous line was a "//## File" comment

    auto begin = [&](std::string name) {
        out.push_back({std::move(name), {}});
        current = &out.back();
        file.clear();
        line = 0;
        inlinedAt.clear();
        inBlock = false;
    };

    TextLines lines(text);
    std::string_view raw;
    while (lines.next(raw)) {
        const std::string_view s = trim(raw);
        if (s.empty())
            continue;

        // nvdisasm: ".text.<name>:" opens the function's code.
        if (s.substr(0, 6) == ".text." && s.back() == ':') {
            begin(std::string(s.substr(6, s.size() - 7)));
            continue;
        }
        // cuobjdump -sass: "Function : <name>".
        if (s.substr(0, 8) == "Function") {
            std::string_view rest = trim(s.substr(8));
            if (!rest.empty() && rest.front() == ':') {
                begin(std::string(trim(rest.substr(1))));
                continue;
            }
        }
        if (s.substr(0, 4) == "//##") {
            std::string f;
            int32_t l = 0;
            std::vector<std::pair<std::string, int32_t>> at;
            if (parseLineComment(s, f, l, at)) {
                if (isPseudoFile(f)) {
                    continue;
                }
                if (!inBlock) {
                    // Innermost frame: the position of the code that follows.
                    file = std::move(f);
                    line = l;
                    inlinedAt = std::move(at);
                }
                inBlock = true;
            }
            continue;
        }
        uint64_t pc = 0;
        std::string instr;
        if (current && instruction(s, pc, instr)) {
            inBlock = false;
            SassListingLine li;
            li.pcOffset = pc;
            li.text = std::move(instr);
            li.file = file;
            li.line = line;
            li.inlinedAt = inlinedAt;
            current->instructions.push_back(std::move(li));
            continue;
        }
        // Directives, labels, section headers: they end nothing, and a position block they
        // interrupt still applies to the next instruction.
    }
    return out;
}

} // namespace ws

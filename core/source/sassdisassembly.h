// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

// One SASS instruction of a disassembly listing, with the source position the line table gives
// it (the innermost frame when code was inlined).
struct SassListingLine {
    uint64_t pcOffset = 0;
    std::string text; // "LDG.E R5, desc[UR4][R2.64]": predicate included, no ';' or encoding
    std::string file; // empty: no line information for this instruction
    int32_t line = 0;
    // Call sites when inlined, innermost first: (file, line) of each enclosing call.
    std::vector<std::pair<std::string, int32_t>> inlinedAt;
    bool operator==(const SassListingLine&) const = default;
};

struct SassFunctionListing {
    std::string name; // mangled
    std::vector<SassListingLine> instructions;
};

// Reads the text of `nvdisasm -c [-g|-gi]` (functions as ".text.<name>:" sections, line table
// as "//## File "...", line N [inlined at ...]" comments) and of `cuobjdump -sass`
// ("Function : <name>", no line table). Lines it does not recognise (directives, labels,
// encodings) are skipped, so newer disassembler output degrades to fewer fields, not errors.
class SassDisassembly {
public:
    static std::vector<SassFunctionListing> parse(std::string_view text);
    // The "//## File" comment of nvdisasm: file and line, then the "inlined at" call sites.
    // False when `comment` is not one.
    static bool parseLineComment(std::string_view comment, std::string& file, int32_t& line,
        std::vector<std::pair<std::string, int32_t>>& inlinedAt);
};

} // namespace ws

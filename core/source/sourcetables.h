// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <vector>

namespace ws {

class SessionReader;

// The source-counter tables of a session (PC sampling per SASS instruction, SASS listing, line
// table, source text). Read on their own, not by SessionReader::readAll: sessions without
// SourceCounters (and files written before these tables existed) have none, and the panels load
// them only when a kernel's source is shown.
struct SourceTables {
    std::vector<SassFunction> functions;
    std::vector<SassInstruction> instructions;
    std::vector<SourceCounter> counters;
    std::vector<SourceFile> files;

    bool empty() const { return functions.empty(); }

    // Verifies row counts and checksums against table_check like SessionReader does; throws
    // SessionError(Corrupted) naming the file. Missing tables read as empty.
    static SourceTables read(const SessionReader& reader);
};

} // namespace ws

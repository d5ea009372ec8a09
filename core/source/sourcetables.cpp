// SPDX-License-Identifier: MIT
#include "core/source/sourcetables.h"

#include "core/store/sessionreader.h"

namespace ws {

SourceTables SourceTables::read(const SessionReader& reader)
{
    // Optional tables: a file without them (older, or not a PC-sampling session) reads as empty.
    SourceTables t;
    t.functions = reader.readSassFunctions();
    t.instructions = reader.readSassInstructions();
    t.counters = reader.readSourceCounters();
    t.files = reader.readSourceFiles();
    return t;
}

} // namespace ws

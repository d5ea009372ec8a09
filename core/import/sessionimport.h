// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/importer.h"
#include "core/model/sessiondata.h"

#include <cstddef>
#include <string>

namespace ws {

struct SessionImport {
    ImportFormat format = ImportFormat::Auto; // as detected
    // What the import returned, without the NVTX ranges that were written while it ran.
    SessionData data;
    size_t nvtxRanges = 0; // all of them
    // Of those, the ones handed to the row writer's thread by the import itself (numbered during the
    // parse, the last at its end); 0 when all were written after the import, as before.
    size_t nvtxRangesStreamed = 0;
};

// What `warpscope-cli import FILE -o OUT` runs: imports `path` and writes it, with its lane
// cache, as the session `output` (renamed into place at the end; nothing is left on failure or
// Cancel). The rows and ids are exactly those of SessionWriter::write(importSession(...)).
// The difference is time: NVTX ranges whose ids are final during the parse (the importer's
// nvtxSink) are inserted on a second thread meanwhile, so the two longest phases of a large
// Chrome trace overlap. If the file breaks the order that needs, the rows written so far are
// thrown away with their temporary file and everything is written after the parse, as before.
SessionImport importIntoSession(
    const std::string& path, ImportFormat format, const ImportOptions& options, const std::string& output);

} // namespace ws

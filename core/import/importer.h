// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/nvtxrangeorder.h"
#include "core/model/sessiondata.h"
#include "core/util/cancellation.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ws {

class NvtxRangeSink;

// Trace formats other tools write that Warpscope opens as ordinary sessions
// (formats: shared/reference/nsight-formats.md).
enum class ImportFormat {
    Auto,       // decided from the file's content (detectImportFormat)
    NsysSqlite, // `nsys export --type sqlite`, schema 3.x
    Kineto,     // PyTorch profiler / Kineto trace JSON, and plain Chrome trace JSON
    NcuCsv,     // `ncu --csv --page raw --print-units base` (or a .ncu-rep read through ncu)
    Proton,     // Triton Proton hatchet JSON
};

struct ImportOptions {
    ProgressCallback progress;
    CancellationToken cancel;
    // Kineto cpu_op / python_function events become NVTX-like ranges (they are most of a
    // PyTorch trace; leave them out for a GPU-only view).
    bool cpuOps = true;
    // Used to read a binary .ncu-rep through `ncu --import ... --csv --page raw`.
    std::string ncuExecutable = "ncu";
    // Where the importer can, it hands NVTX ranges to this sink as soon as their id is final
    // (core/import/nvtxrangesink.h); ranges given to it and not discarded are left out of the
    // SessionData the import returns. Importers that cannot never call it.
    NvtxRangeSink* nvtxSink = nullptr;
    // How the ranges are numbered while streaming; tests make these small to reach the edge
    // cases with small files.
    NvtxRangeOrder::Limits nvtxStreaming;
};

// One importer per format. Every failure is a SessionError naming the file (BadInput for
// content, NotFound for an unreadable file, Cancelled when options.cancel fires); the source
// file is only ever read.
class Importer {
public:
    virtual ~Importer() = default;
    virtual ImportFormat format() const = 0;
    virtual SessionData importFile(const std::string& path, const ImportOptions& options) const = 0;
    // The same from bytes already in memory; `displayName` stands in for the path in messages.
    // (Fuzzers and tests feed mutated content through here.)
    virtual SessionData importBytes(
        std::string_view bytes, const std::string& displayName, const ImportOptions& options) const = 0;
};

std::unique_ptr<Importer> createImporter(ImportFormat format);

// "auto", "nsys-sqlite", "kineto", "ncu-csv", "proton" (as the CLI spells them).
const char* importFormatName(ImportFormat format);
std::optional<ImportFormat> parseImportFormat(std::string_view name);

// Sniffs the first bytes (and the file name for .ncu-rep). Throws SessionError(NotFound) for
// an unreadable file and SessionError(BadInput) when no format matches.
ImportFormat detectImportFormat(const std::string& path);
// Detection on content alone; nullopt when nothing matches.
std::optional<ImportFormat> detectImportFormat(std::string_view head, std::string_view fileName);

// detect (when format is Auto) + createImporter + importFile; a gzip file is inflated first.
// `resolved`, when given, receives the format that was read (detected inside the gzip data).
SessionData importSession(
    const std::string& path, ImportFormat format, const ImportOptions& options, ImportFormat* resolved = nullptr);

} // namespace ws

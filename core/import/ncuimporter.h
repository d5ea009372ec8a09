// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/importer.h"
#include "core/import/ncucsvtable.h"

namespace ws {

// Nsight Compute results as per-kernel metrics: `ncu --csv --page raw --print-units base`
// output (clean from --log-file, or stdout mixed with the program's output), or a binary
// .ncu-rep, which is read through `ncu --import <file> --csv --page raw --print-units base`.
//
// ncu serializes and replays kernels and reports no start times, so the kernels are laid out
// back to back in profiling order with their measured gpu__time_duration.sum; the session's
// meta says so (import.timestamps = synthetic).
class NcuImporter final : public Importer {
public:
    ImportFormat format() const override { return ImportFormat::NcuCsv; }
    SessionData importFile(const std::string& path, const ImportOptions& options) const override;
    SessionData importBytes(
        std::string_view bytes, const std::string& displayName, const ImportOptions& options) const override;

    // The session for an already parsed table.
    static SessionData fromTable(const NcuCsvTable& table, const std::string& displayName);
    // True for a file that looks like an Nsight Compute binary report (name or magic bytes).
    static bool isReportFile(const std::string& path);
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/importer.h"

namespace ws {

// Nsight Systems SQLite export (`nsys export --type sqlite`, schema 3.x): kernels, copies,
// memsets, runtime and driver API calls, synchronization, NVTX ranges and marks, devices,
// processes and thread names. Tables are created lazily by nsys and columns differ between
// versions, so every table and column is optional: what is missing reads as NULL / 0.
// The file is opened read-only and immutable (no lock, no journal).
class NsysImporter final : public Importer {
public:
    ImportFormat format() const override { return ImportFormat::NsysSqlite; }
    SessionData importFile(const std::string& path, const ImportOptions& options) const override;
    // `bytes` is a whole SQLite database image (deserialized into memory, read-only).
    SessionData importBytes(
        std::string_view bytes, const std::string& displayName, const ImportOptions& options) const override;
};

// globalTid / globalPid decoding (nsight-formats.md 1.2): PID in bits 24..47, TID in bits 0..23.
inline int64_t nsysPid(int64_t globalId)
{
    return (globalId >> 24) & 0xFFFFFF;
}
inline int64_t nsysTid(int64_t globalId)
{
    return globalId & 0xFFFFFF;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/importer.h"

namespace ws {

// Nsight Systems SQLite export (`nsys export --type sqlite`, schema 3.x): kernels, copies,
// memsets, runtime and driver API calls, synchronization, NVTX ranges and marks, devices,
// processes and thread names. Tables are created lazily by nsys and columns differ between
// versions, so every table and column is optional: what is missing reads as NULL / 0.
// The file is opened read-only and immutable (no lock, no journal).
//
// Tested versions (tests/cli/tst_nsys_real.cpp, tests/core/tst_import_golden.cpp):
// - real exports written by Nsight Systems 2022.4.2.1 (Debian 12 non-free), export schema 3.0.0:
//   NVTX (push/pop, start/end, marks, domains) and OS runtime traces, CPU only; `warpscope-cli
//   stats` equals what that nsys's `nsys stats` printed for them (tests/fixtures/nsys);
// - a hand-written export of the documented schema 3.16.1 (tests/fixtures/import), also run
//   through nsys 2022.4.2's own report scripts: kernels, copies, memsets, API calls, syncs.
// No real export with CUDA data has been tested (no GPU could be recorded with nsys); newer
// schemas rename and add columns, which the optional-column reads above are meant to absorb.
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

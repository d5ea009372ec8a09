// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/importer.h"

namespace ws {

// Triton Proton hatchet JSON ([tree, device_info], nsight-formats.md 4.2) for the kernel
// ranking. The tree holds per-node totals (time (ns), count), not launches, so each kernel
// node becomes `count` kernel records whose durations add up exactly to the node's time, laid
// out back to back; the scopes above a kernel (proton.scope, Python frames) become NVTX-like
// ranges enclosing it, so the frame path stays visible. The session's meta says the timestamps
// are synthetic.
class ProtonImporter final : public Importer {
public:
    ImportFormat format() const override { return ImportFormat::Proton; }
    SessionData importFile(const std::string& path, const ImportOptions& options) const override;
    SessionData importBytes(
        std::string_view bytes, const std::string& displayName, const ImportOptions& options) const override;

    // Upper bound on the launches one file may expand to (a corrupt count must not exhaust memory).
    static constexpr int64_t kMaxLaunches = 20'000'000;
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/importer.h"

namespace ws {

// PyTorch profiler (Kineto) trace JSON, and any Chrome Trace Event JSON (object with
// traceEvents, or a bare array of events). The file is streamed through RapidJSON's SAX reader
// in fixed-size chunks: memory grows with the number of imported records, never with the size
// of the text, so multi-gigabyte traces open with progress and can be cancelled.
class KinetoImporter final : public Importer {
public:
    ImportFormat format() const override { return ImportFormat::Kineto; }
    SessionData importFile(const std::string& path, const ImportOptions& options) const override;
    SessionData importBytes(
        std::string_view bytes, const std::string& displayName, const ImportOptions& options) const override;
};

} // namespace ws

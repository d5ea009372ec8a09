// SPDX-License-Identifier: MIT
#pragma once

#include "core/util/cancellation.h"

#include <string>
#include <string_view>

namespace ws {

// Traces often arrive gzip-compressed (PyTorch's tensorboard handler writes *.pt.trace.json.gz,
// export_chrome_trace accepts a .gz name). The importers parse plain text, so a compressed file
// is inflated into memory first; the file itself is only read.

// True when the file starts with the gzip magic (1f 8b). Throws SessionError(NotFound) when it
// cannot be opened.
bool isGzipFile(const std::string& path);

// The whole decompressed content (every member of a multi-member file). Progress follows the
// compressed bytes read. Throws SessionError naming the file: BadInput for damaged or truncated
// data, NotFound when unreadable, Cancelled when `cancel` fires.
std::string readGzipFile(
    const std::string& path, const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

// "trace.json.gz" -> "trace.json" (what format detection should look at); other names unchanged.
std::string_view withoutGzipSuffix(std::string_view fileName);

} // namespace ws

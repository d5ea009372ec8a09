// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// CSV export of session tables, one table per CSV (RFC 4180, header row first). Columns are
// those of the session file (docs/session-format.md) in the same order — they come from the
// store's field lists (Codec<R>::fields), run_id included — except that columns
// holding a string id hold the text instead (kernel names, API names, NVTX names). Enum columns
// (copy_kind, domain, style, kind) keep their numeric codes, as in the file.
//
// Exported tables: meta, environment, process, thread, device, stream, kernel, memcpy, memset,
// api_call, nvtx_range, nvtx_mark, sync. Event rows are streamed.
const std::vector<std::string_view>& csvTableNames();

// Writes one table; returns the number of data rows. Throws std::invalid_argument for a
// table name not in csvTableNames() and std::runtime_error when the stream fails.
int64_t writeCsvTable(const RecordSource& source, std::string_view table, std::ostream& out);

} // namespace ws

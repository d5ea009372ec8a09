// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace ws {

// Appends `s` as a JSON string literal (quotes included). Control characters are escaped and
// invalid UTF-8 bytes become U+FFFD: kernel and NVTX names come from user binaries, and one bad
// byte must not make a whole trace unreadable (Perfetto rejects such files).
void appendJsonString(std::string& out, std::string_view s);

// Appends `s` as one CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF,
// with inner quotes doubled. Kernel names such as "f<int, float>(int)" need this.
void appendCsvField(std::string& out, std::string_view s);

} // namespace ws

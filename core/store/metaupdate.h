// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace ws::store {

// Sets one meta key of a committed session (e.g. the user's hypotheses), atomically: the file is
// validated as a complete session, copied, changed and renamed over the original, so a crash
// leaves either the old or the new file. Meta has no content checksum, so table_check stays valid.
// Throws SessionError (the reader's kinds for a bad file, WriteFailed for the update) naming the
// file; `what` says what was being saved ("saving hypotheses").
void updateSessionMeta(
    const std::string& sessionPath, std::string_view key, std::string_view value, std::string_view what);

} // namespace ws::store

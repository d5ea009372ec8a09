// SPDX-License-Identifier: MIT
#include "core/store/storeerror.h"

#include <sqlite3.h>

namespace ws::store {

SessionError readError(const std::string& path, const sqlite::Error& error, std::string_view context)
{
    std::string reason(context);
    reason += ": ";
    reason += error.what();
    if (error.isCorruption())
        return SessionError(SessionError::Kind::Corrupted, path, "the file is damaged (" + reason + ")");
    // A read past the end of the file: the size check at open passed, so the file shrank or
    // its header lies about the page count.
    if (error.code() == SQLITE_IOERR_SHORT_READ)
        return SessionError(SessionError::Kind::Truncated, path, "the file is truncated (" + reason + ")");
    if (error.primaryCode() == SQLITE_ERROR)
        return SessionError(
            SessionError::Kind::Corrupted, path, "the file does not have the expected tables (" + reason + ")");
    return SessionError(SessionError::Kind::BadInput, path, reason);
}

} // namespace ws::store

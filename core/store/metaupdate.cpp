// SPDX-License-Identifier: MIT
#include "core/store/metaupdate.h"

#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sqlite.h"

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

namespace ws::store {

namespace fs = std::filesystem;

void updateSessionMeta(
    const std::string& sessionPath, std::string_view key, std::string_view value, std::string_view what)
{
    // Validates the target as a complete session before anything is written.
    {
        const SessionReader check(sessionPath);
    }
    const fs::path target(sessionPath);
    const fs::path temp = target.string() + ".hyp-" + std::to_string(::getpid());
    std::error_code ec;
    fs::copy_file(target, temp, fs::copy_options::overwrite_existing, ec);
    if (ec)
        throw SessionError(SessionError::Kind::WriteFailed, sessionPath, "cannot copy for saving: " + ec.message());
    try {
        {
            sqlite::Database db(temp.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_EXRESCODE);
            // A rollback journal beside the copy only, never beside the session.
            db.exec("PRAGMA journal_mode=MEMORY");
            auto st = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
            st.bind(1, key);
            st.bind(2, value);
            st.run();
        }
        fs::rename(temp, target, ec);
        if (ec)
            throw SessionError(
                SessionError::Kind::WriteFailed, sessionPath, "cannot replace the session: " + ec.message());
    } catch (const sqlite::Error& e) {
        fs::remove(temp, ec);
        throw SessionError(SessionError::Kind::WriteFailed, sessionPath, std::string(what) + ": " + e.what());
    } catch (...) {
        fs::remove(temp, ec);
        throw;
    }
}

} // namespace ws::store

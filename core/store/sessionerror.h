// SPDX-License-Identifier: MIT
#pragma once

#include <stdexcept>
#include <string>

namespace ws {

// Why a session could not be opened or written. The message always names the file.
class SessionError : public std::runtime_error {
public:
    enum class Kind {
        NotFound,    // no such file / not readable
        NotSqlite,   // the file is not a SQLite database
        NotSession,  // a SQLite database, but not a Warpscope session
        NewerSchema, // written by a newer Warpscope
        Corrupted,   // SQLite reports corruption, or a table is missing
        Truncated,   // the file is shorter than its header says
        Incomplete,  // the recorder never finished it (meta.complete != 1)
        WriteFailed, // could not create, write or rename the output
        Cancelled,   // the caller's cancellation token fired
        BadInput,    // anything else wrong with the content
    };

    SessionError(Kind kind, std::string path, std::string reason)
        : std::runtime_error(path + ": " + reason)
        , m_kind(kind)
        , m_path(std::move(path))
        , m_reason(std::move(reason))
    {
    }

    Kind kind() const { return m_kind; }
    const std::string& path() const { return m_path; }
    const std::string& reason() const { return m_reason; }

private:
    Kind m_kind;
    std::string m_path;
    std::string m_reason;
};

} // namespace ws

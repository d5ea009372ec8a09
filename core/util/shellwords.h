// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// One argument as a POSIX shell reads it back as exactly that argument: unchanged when it holds
// only characters no shell treats specially (letters, digits and @%+=:,./-_), else in single
// quotes with each ' written as '\'' (the same rule as Python's shlex.quote).
std::string shellQuote(std::string_view argument);

// The command line stored in a session (process.command_line, environment command_line): the
// arguments quoted with shellQuote() and joined by spaces, so the line can be pasted into a
// shell. record and profile both store it, and runs of one program are matched by it.
std::string joinCommand(const std::vector<std::string>& argv);

// The arguments a POSIX shell reads from `line` (words split at unquoted blanks; '...', "..."
// with \" \\ \$ \` escapes, and backslash outside quotes), the inverse of joinCommand(). No
// expansion of any kind ($VAR, globs, ~) happens: a stored command line is data. nullopt for an
// unterminated quote or a trailing backslash.
std::optional<std::vector<std::string>> splitCommand(std::string_view line);

} // namespace ws

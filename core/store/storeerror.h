// SPDX-License-Identifier: MIT
#pragma once

// Maps SQLite failures while reading a session onto the SessionError kinds users see.

#include "core/store/sessionerror.h"
#include "core/store/sqlite.h"

#include <string>
#include <string_view>

namespace ws::store {

// `context` says what was being read ("reading table kernel").
SessionError readError(const std::string& path, const sqlite::Error& error, std::string_view context);

} // namespace ws::store

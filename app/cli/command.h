// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace ws::cli {

// Each subcommand lives in its own cmd_*.cpp and registers itself here at static-init time,
// so adding a command never touches main.cpp. The callback runs after parsing and returns the
// process exit status; errors throw and main() prints "warpscope-cli <cmd>: <reason>".
struct Command {
    const char* order; // sort key for --help
    std::function<void(CLI::App& app, int& exitCode)> install;
};

std::vector<Command>& commands();

struct CommandRegistrar {
    explicit CommandRegistrar(Command c) { commands().push_back(std::move(c)); }
};

} // namespace ws::cli

// SPDX-License-Identifier: MIT
// warpscope-cli: headless entry point (record, profile, bench, stats, export, compare, synth).
#include "command.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace ws::cli {
std::vector<Command>& commands()
{
    static std::vector<Command> all;
    return all;
}
} // namespace ws::cli

int main(int argc, char** argv)
{
    CLI::App app {"Warpscope command line: record CUDA programs and analyse sessions", "warpscope-cli"};
    app.set_version_flag("--version", std::string(WS_VERSION));
    app.require_subcommand(1);
    int exitCode = 0;
    auto& cmds = ws::cli::commands();
    std::sort(
        cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return std::string_view(a.order) < b.order; });
    for (auto& c : cmds)
        c.install(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        const auto* sub = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
        std::fprintf(stderr, "warpscope-cli%s%s: %s\n", sub ? " " : "", sub ? sub->get_name().c_str() : "", e.what());
        return exitCode > 1 ? exitCode : 2;
    }
    return exitCode;
}

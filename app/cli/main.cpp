// SPDX-License-Identifier: MIT
// warpscope-cli: headless entry point (record, profile, bench, stats, export, compare, synth).
#include <CLI/CLI.hpp>

#include <cstdio>

int main(int argc, char** argv)
{
    CLI::App app {"Warpscope command line: record CUDA programs and analyse sessions", "warpscope-cli"};
    app.set_version_flag("--version", std::string(WS_VERSION));
    app.require_subcommand(1);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    return 0;
}

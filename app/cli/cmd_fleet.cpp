// SPDX-License-Identifier: MIT
// warpscope-cli fleet DIR|GLOB --recipe NAME [-o result] [--scheduler ADDR]: fleet recipes over
// many sessions. The work is Python's (python/warpscope/fleet on dask.distributed, docs/fleet.md);
// this command runs `python3 -m warpscope.fleet` with every argument as given, so the two front
// ends cannot drift apart, and finds the package in the source or install tree.
#include "command.h"

#include "launcher/targetlauncher.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The directory that holds warpscope/fleet/__main__.py: $WARPSCOPE_PYTHONPATH, the source tree
// of a build (build/<preset>/bin/warpscope-cli -> python/), an install (bin/ -> share/warpscope/python).
// Empty when none has it: an installed package (pip install ./python) is then found by Python.
std::string findPackageDir()
{
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("WARPSCOPE_PYTHONPATH"); env && *env)
        candidates.emplace_back(env);
    const std::string exe = ws::executablePath();
    if (!exe.empty()) {
        const fs::path bin = fs::path(exe).parent_path();
        candidates.push_back(bin / ".." / ".." / ".." / "python");
        candidates.push_back(bin / ".." / "share" / "warpscope" / "python");
    }
    for (const fs::path& c : candidates) {
        std::error_code ec;
        if (fs::exists(c / "warpscope" / "fleet" / "__main__.py", ec))
            return fs::weakly_canonical(c, ec).string();
    }
    return {};
}

int runFleet(const std::vector<std::string>& args)
{
    const char* python = std::getenv("WARPSCOPE_PYTHON");
    std::vector<std::string> command {python && *python ? python : "python3", "-m", "warpscope.fleet"};
    command.insert(command.end(), args.begin(), args.end());
    std::optional<ws::TargetLauncher> launcher;
    try {
        launcher.emplace(command);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(command[0] + ": " + e.what()
            + " (fleet analysis runs on Python 3 with python3-dask, python3-distributed and python3-pandas; "
              "set WARPSCOPE_PYTHON to the interpreter that has them)");
    }
    if (const std::string dir = findPackageDir(); !dir.empty()) {
        const char* old = std::getenv("PYTHONPATH");
        launcher->setVariable("PYTHONPATH", old && *old ? dir + ":" + old : dir);
    }
    launcher->start();
    const ws::ExitStatus status = launcher->wait();
    return status.exitSignal != 0 ? 128 + status.exitSignal : status.exitCode;
}

ws::cli::CommandRegistrar registrar(
    {"85-fleet", [](CLI::App& app, int& exitCode) {
         auto* cmd = app.add_subcommand(
             "fleet", "Run a fleet recipe over many sessions (ranks) on Dask: python3 -m warpscope.fleet");
         cmd->footer("Every argument goes to `python3 -m warpscope.fleet` (see `warpscope-cli fleet --help` and "
                     "docs/fleet.md): DIR|GLOB|FILE... --recipe step_time|kernel_time|comm_overlap|gpu_idle|"
                     "top_kernels [-o result.wsfleet] [--scheduler tcp://HOST:8786]. WARPSCOPE_PYTHON picks the "
                     "interpreter (default python3 on PATH). Writes the result (SQLite, every table) and a CSV of "
                     "its primary table; Parquet as well (--parquet) only where pandas has pyarrow or fastparquet, "
                     "which Debian 12 does not package, so there only SQLite and CSV are written.");
         auto args = std::make_shared<std::vector<std::string>>();
         // --help included: the Python side documents its own options.
         cmd->set_help_flag();
         cmd->add_option("args", *args, "Arguments of warpscope.fleet")->expected(-1);
         cmd->positionals_at_end();
         cmd->prefix_command();
         cmd->callback([cmd, args, &exitCode] {
             std::vector<std::string> all = *args;
             for (const auto& r : cmd->remaining())
                 all.push_back(r);
             const bool help = all.size() == 1 && (all[0] == "--help" || all[0] == "-h");
             if (help) {
                 // What the command is, even where Python lacks the packages (man pages are made
                 // from this at build time); then the recipes' own options from Python.
                 std::printf("%s", cmd->help().c_str());
                 std::fflush(stdout);
             }
             try {
                 exitCode = runFleet(all);
             } catch (const std::runtime_error& e) {
                 if (!help)
                     throw;
                 std::printf("\n(recipe options not shown: %s)\n", e.what());
                 exitCode = 0;
             }
             if (help && exitCode != 0) {
                 std::printf("\n(recipe options not shown: `python3 -m warpscope.fleet --help` failed; fleet "
                             "analysis needs Python 3 with python3-pandas, python3-dask and python3-distributed, "
                             "or WARPSCOPE_PYTHON naming an interpreter that has them)\n");
                 exitCode = 0;
             }
         });
     }});

} // namespace

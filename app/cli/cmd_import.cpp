// SPDX-License-Identifier: MIT
// warpscope-cli import FILE [--format ...] -o OUT.wscope: traces of other tools (nsys SQLite
// export, PyTorch profiler / Chrome trace JSON, ncu raw CSV or .ncu-rep, Proton hatchet) as an
// ordinary session. Progress goes to stderr; Ctrl-C cancels cleanly (no partial output).
#include "command.h"

#include "core/import/importer.h"
#include "core/import/sessionimport.h"

#include <cmath>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

struct ImportArgs {
    std::string file;
    std::string format = "auto";
    std::string output;
    bool noCpuOps = false;
    std::string ncu = "ncu";
};

ws::CancellationToken& interruptToken()
{
    static ws::CancellationToken token;
    return token;
}

extern "C" void onInterrupt(int)
{
    // Only an atomic store: safe in a signal handler.
    interruptToken().cancel();
}

// One stderr line per phase and per 10 % (or a refreshed line on a terminal).
class ProgressPrinter {
public:
    ProgressPrinter()
        : m_tty(::isatty(STDERR_FILENO) != 0)
    {
    }
    ~ProgressPrinter()
    {
        if (m_tty && m_printed)
            std::fputc('\n', stderr);
    }

    void operator()(double fraction, const char* phase)
    {
        const int percent = static_cast<int>(std::lround(fraction * 100.0));
        const bool newPhase = m_phase != phase;
        if (!newPhase && (m_tty ? percent == m_percent : percent / 10 == m_percent / 10))
            return;
        m_phase = phase;
        m_percent = percent;
        m_printed = true;
        if (m_tty)
            std::fprintf(stderr, "\rimport: %-40s %3d%%", phase, percent);
        else
            std::fprintf(stderr, "import: %s %d%%\n", phase, percent);
        std::fflush(stderr);
    }

private:
    bool m_tty;
    bool m_printed = false;
    std::string m_phase;
    int m_percent = -1;
};

std::string count(size_t n, const char* what)
{
    return std::to_string(n) + " " + what;
}

void runImport(const ImportArgs& a)
{
    const auto format = ws::parseImportFormat(a.format);
    if (!format)
        throw std::runtime_error("unknown --format '" + a.format + "' (auto, nsys-sqlite, kineto, ncu-csv, proton)");
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(a.output, ec) && fs::equivalent(a.file, a.output, ec))
        throw std::runtime_error(a.output + ": the output would replace the file being imported");

    std::signal(SIGINT, onInterrupt);
    ws::ImportOptions options;
    options.cancel = interruptToken();
    options.cpuOps = !a.noCpuOps;
    options.ncuExecutable = a.ncu;
    auto printer = std::make_shared<ProgressPrinter>();
    options.progress = [printer](double f, const char* phase) { (*printer)(f, phase); };

    const auto started = std::chrono::steady_clock::now();
    const ws::SessionImport imported = ws::importIntoSession(a.file, *format, options, a.output);
    const ws::SessionData& data = imported.data;
    const ws::ImportFormat resolved = imported.format;
    printer.reset();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "import: wrote %s from %s (%s) in %.2f s: %s, %s, %s, %s, %s, %s, %s\n", a.output.c_str(),
        a.file.c_str(), ws::importFormatName(resolved), seconds, count(data.kernels.size(), "kernels").c_str(),
        count(data.memcpys.size() + data.memsets.size(), "copies/memsets").c_str(),
        count(data.apiCalls.size(), "API calls").c_str(), count(imported.nvtxRanges, "ranges").c_str(),
        count(data.syncs.size(), "syncs").c_str(), count(data.kernelMetrics.size(), "kernel metrics").c_str(),
        count(data.devices.size(), "devices").c_str());
}

ws::cli::CommandRegistrar registrar(
    {"25-import", [](CLI::App& app, int&) {
         auto* cmd = app.add_subcommand("import",
             "Convert another tool's trace into a session: nsys SQLite export, PyTorch "
             "profiler / Chrome trace JSON, ncu --csv --page raw output or .ncu-rep, "
             "Triton Proton hatchet");
         auto args = std::make_shared<ImportArgs>();
         cmd->add_option("FILE", args->file, "Trace to import (read only, never modified)")->required();
         cmd->add_option("--format", args->format, "auto (from the content), nsys-sqlite, kineto, ncu-csv or proton")
             ->capture_default_str();
         cmd->add_option("-o,--output", args->output, "Session file to write (.wscope)")->required();
         cmd->add_flag("--no-cpu-ops", args->noCpuOps, "Kineto: leave out cpu_op / python_function ranges");
         cmd->add_option("--ncu", args->ncu, "ncu executable used to read .ncu-rep reports")->capture_default_str();
         cmd->callback([args] { runImport(*args); });
     }});

} // namespace

// SPDX-License-Identifier: MIT
// warpscope-cli export FILE --format chrome-json|csv -o OUT: sessions for other tools.
#include "command.h"

#include "core/analysis/sessionfilesource.h"
#include "core/export/chrometrace.h"
#include "core/export/csvexport.h"
#include "core/export/outputfile.h"
#include "core/report/reportformat.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

namespace {

struct ExportOptions {
    std::string file;
    std::string format;
    std::string output;
    std::string table;
};

std::string grouped(int64_t value)
{
    return ws::formatCell(ws::ReportCell(value), true);
}

// Progress lines go to stderr so that "-o -" output stays clean.
void note(const std::string& text)
{
    std::fprintf(stderr, "%s\n", text.c_str());
}

void exportChrome(const ExportOptions& o, const ws::RecordSource& source)
{
    ws::OutputFile out(o.output);
    ws::ChromeTraceSummary summary;
    try {
        summary = ws::writeChromeTrace(source, out.stream());
    } catch (const std::runtime_error& e) {
        // Session errors already name the session; stream errors are about the output.
        if (dynamic_cast<const ws::SessionError*>(&e))
            throw;
        throw std::runtime_error(o.output + ": " + e.what() + ": " + std::strerror(errno));
    }
    out.commit();
    if (o.output != "-") {
        note("wrote " + o.output + ": " + grouped(summary.events) + " trace events (" + grouped(summary.slices)
            + " slices, " + grouped(summary.flows) + " launch flows)");
    }
}

void exportCsvTable(
    const std::string& path, const std::string& table, const std::string& session, const ws::RecordSource& source)
{
    ws::OutputFile out(path);
    ws::OutputFile::ensureNotSameFile(path, session);
    int64_t rows = 0;
    try {
        rows = ws::writeCsvTable(source, table, out.stream());
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(session + ": " + e.what());
    } catch (const std::runtime_error& e) {
        if (dynamic_cast<const ws::SessionError*>(&e))
            throw;
        throw std::runtime_error(path + ": " + e.what() + ": " + std::strerror(errno));
    }
    out.commit();
    if (path != "-")
        note("wrote " + path + ": " + grouped(rows) + " rows");
}

void runExport(const ExportOptions& o)
{
    const bool chrome = o.format == "chrome-json";
    if (!chrome && o.format != "csv")
        throw std::runtime_error(o.file + ": unknown export format '" + o.format + "' (expected chrome-json or csv)");
    if (chrome && !o.table.empty())
        throw std::runtime_error(o.file + ": --table applies to --format csv only");
    if (!o.table.empty()) {
        bool known = false;
        for (const auto name : ws::csvTableNames())
            known = known || name == o.table;
        if (!known) {
            std::string names;
            for (const auto name : ws::csvTableNames())
                names += (names.empty() ? "" : ", ") + std::string(name);
            throw std::runtime_error(o.file + ": unknown table '" + o.table + "' (expected one of " + names + ")");
        }
    }

    const ws::SessionReader reader(o.file);
    ws::OutputFile::ensureNotSameFile(o.output, o.file);
    const ws::SessionFileSource source(reader);

    if (chrome) {
        exportChrome(o, source);
        return;
    }
    if (!o.table.empty()) {
        exportCsvTable(o.output, o.table, o.file, source);
        return;
    }
    // One CSV per table into a directory, created when missing.
    namespace fs = std::filesystem;
    if (o.output == "-")
        throw std::runtime_error(o.output + ": csv without --table writes a directory, not standard output");
    std::error_code ec;
    if (fs::exists(o.output, ec) && !fs::is_directory(o.output, ec))
        throw std::runtime_error(o.output + ": exists and is not a directory");
    fs::create_directories(o.output, ec);
    if (ec)
        throw std::runtime_error(o.output + ": cannot create directory: " + ec.message());
    for (const auto table : ws::csvTableNames())
        exportCsvTable(
            (fs::path(o.output) / (std::string(table) + ".csv")).string(), std::string(table), o.file, source);
}

std::string tableList()
{
    std::string names;
    for (const auto name : ws::csvTableNames())
        names += (names.empty() ? "" : ", ") + std::string(name);
    return names;
}

ws::cli::CommandRegistrar registrar(
    {"60-export", [](CLI::App& app, int&) {
         auto* cmd = app.add_subcommand("export", "Export a session as Chrome trace JSON (Perfetto) or CSV");
         cmd->footer("Formats:\n"
                     "  chrome-json  Chrome Trace Event JSON for ui.perfetto.dev / chrome://tracing. OUT is a file\n"
                     "               (- for standard output). Per process: CUDA API calls on their thread, NVTX\n"
                     "               ranges and marks on an \"NVTX <thread>\" track, kernels/memcpy/memset on one\n"
                     "               \"GPU <dev> stream <id>\" track each, and a flow arrow from every launch call to\n"
                     "               its GPU work. Times in us (3 decimals = exact ns) from the first event.\n"
                     "  csv          One CSV per table: OUT is a directory (created if missing) that receives\n"
                     "               <table>.csv for each of: "
             + tableList()
             + ".\n"
               "               With --table NAME only that table is written, and OUT is a file (- for\n"
               "               standard output). Columns are those of the session file; name ids are\n"
               "               written as text.\n"
               "Outputs are written to a temporary file and renamed into place when complete.");
         auto o = std::make_shared<ExportOptions>();
         cmd->add_option("FILE", o->file, "Session file (.wscope)")->required();
         cmd->add_option("-f,--format", o->format, "chrome-json or csv")->required();
         cmd->add_option("-o,--output", o->output, "Output file (chrome-json, csv --table) or directory (csv)")
             ->required();
         cmd->add_option("-t,--table", o->table, "csv: export only this table, to the file OUT");
         cmd->callback([o] { runExport(*o); });
     }});

} // namespace

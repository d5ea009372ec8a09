// SPDX-License-Identifier: MIT
// warpscope-cli stats FILE --report NAME...: the nsys stats reports over a session.
#include "command.h"

#include "core/analysis/nsysreports.h"
#include "core/analysis/nvtxtimingreport.h"
#include "core/analysis/sessionfilesource.h"
#include "core/export/outputfile.h"
#include "core/ranking/windowedsource.h"
#include "core/report/reportformat.h"
#include "core/store/sessionreader.h"
#include "core/util/durationtext.h"

#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct StatsOptions {
    std::string file;
    std::vector<std::string> reports;
    std::string format = "table";
    std::string outputPrefix;
    std::string range; // FROM:TO from the session start; empty: the whole session
};

std::vector<std::string> splitReports(const std::vector<std::string>& given)
{
    // Like nsys, "--report a,b" and "--report a --report b" are the same.
    std::vector<std::string> specs;
    for (const auto& item : given) {
        size_t begin = 0;
        while (begin <= item.size()) {
            const size_t comma = item.find(',', begin);
            const std::string spec = item.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
            if (!spec.empty())
                specs.push_back(spec);
            if (comma == std::string::npos)
                break;
            begin = comma + 1;
        }
    }
    if (specs.empty())
        specs = {"cuda_api_sum", "cuda_gpu_kern_sum", "nvtx_sum"};
    return specs;
}

const char* extension(ws::ReportFormat format)
{
    switch (format) {
    case ws::ReportFormat::Csv:
        return ".csv";
    case ws::ReportFormat::Json:
        return ".json";
    case ws::ReportFormat::Table:
        break;
    }
    return ".txt";
}

void runStats(const StatsOptions& o)
{
    const std::optional<ws::ReportFormat> format = ws::parseReportFormat(o.format);
    if (!format)
        throw std::runtime_error(o.file + ": unknown format '" + o.format + "' (expected table, csv or json)");
    const std::vector<std::string> specs = splitReports(o.reports);

    const ws::SessionReader reader(o.file);
    // Reports count the trace (timing) runs of a multi-run session; --range is measured from the
    // start of the whole session, as the app's ruler is.
    const ws::SessionFileSource all(reader);
    const ws::SessionFileSource file(all, ws::SessionFileSource::Runs::Timing);
    // --range: the events overlapping the window, whole (as the app's range selection does).
    ws::TimeWindow window;
    if (!o.range.empty()) {
        const auto span = ws::parseDurationSpan(o.range);
        if (!span)
            throw std::runtime_error(o.file + ": --range '" + o.range
                + "' is not FROM:TO with FROM before TO (durations from the session start, e.g. 1.5ms:2ms)");
        const ws::TimeNs origin = all.timeSpan().begin;
        window = {origin + span->first, origin + span->second};
        std::cerr << "warpscope-cli stats: events overlapping " << o.range << " from the session start\n";
    }
    const ws::WindowedSource source(file, window);
    std::vector<ws::ReportTable> tables;
    for (const auto& spec : specs) {
        try {
            if (spec == ws::kNvtxTimingReport) { // bench tables, not a record stream: read here
                if (!window.isEmpty())
                    throw std::invalid_argument("--range does not apply to " + spec + " (benchmark tables)");
                tables.push_back(ws::nvtxTimingSum(reader));
                continue;
            }
            tables.push_back(ws::computeReport(spec, source));
        } catch (const std::invalid_argument& e) {
            throw std::runtime_error(o.file + ": " + e.what());
        }
    }

    if (!o.outputPrefix.empty()) {
        // nsys's convention: one file per report, <prefix>_<report>.<ext>.
        for (size_t i = 0; i < tables.size(); ++i) {
            std::string name = specs[i];
            for (char& c : name)
                c = c == ':' ? '_' : c;
            ws::OutputFile out(o.outputPrefix + "_" + name + extension(*format));
            ws::OutputFile::ensureNotSameFile(out.path(), o.file);
            ws::writeReport(out.stream(), tables[i], *format);
            out.commit();
            std::cerr << "wrote " << out.path() << '\n';
        }
        return;
    }

    std::ostream& out = std::cout;
    const bool several = tables.size() > 1;
    if (*format == ws::ReportFormat::Json && several)
        out << "{\n";
    for (size_t i = 0; i < tables.size(); ++i) {
        const ws::ReportTable& t = tables[i];
        switch (*format) {
        case ws::ReportFormat::Table:
            out << (i ? "\n" : "") << "** " << t.title << " (" << specs[i] << "):\n\n";
            ws::writeReportTable(out, t);
            if (t.rows.empty())
                out << " (no rows: the session holds no data for this report)\n";
            break;
        case ws::ReportFormat::Csv:
            out << (i ? "\n" : "");
            ws::writeReportCsv(out, t);
            break;
        case ws::ReportFormat::Json:
            if (several)
                out << (i ? ",\n" : "") << '"' << specs[i] << "\": ";
            ws::writeReportJson(out, t);
            break;
        }
    }
    if (*format == ws::ReportFormat::Json && several)
        out << "}\n";
    out.flush();
    if (!out)
        throw std::runtime_error(o.file + ": cannot write the report to standard output");
}

std::string reportList()
{
    std::string text;
    for (const auto& r : ws::availableReports()) {
        text += "\n  " + std::string(r.id) + (r.takesKernelNaming ? "[:base|:mangled]" : "") + "  "
            + std::string(r.title);
    }
    text += "\n  " + std::string(ws::kNvtxTimingReport)
        + "  NVTX Range GPU Timing Summary (ranges timed with record --nvtx-timing NAME)";
    return text;
}

ws::cli::CommandRegistrar registrar(
    {"50-stats", [](CLI::App& app, int&) {
         auto* cmd = app.add_subcommand("stats", "Print nsys-compatible statistics reports of a session");
         cmd->footer("Reports (computed as `nsys stats` defines them; times in ns; StdDev is the sample standard "
                     "deviation; Avg/Med/StdDev/Time (%) rounded half away from zero to 0.1):"
             + reportList()
             + "\n\nWithout --report: cuda_api_sum, cuda_gpu_kern_sum, nvtx_sum."
               "\nTo standard output, several reports print one after another (table, csv: separated by a blank "
               "line); json prints an array of objects for one report, or an object keyed by report name for "
               "several."
               "\nWith -o PREFIX each report goes to PREFIX_<report>.txt|.csv|.json instead.");
         auto o = std::make_shared<StatsOptions>();
         cmd->add_option("FILE", o->file, "Session file (.wscope)")->required();
         cmd->add_option("-r,--report", o->reports, "Report name; repeat or separate with commas");
         cmd->add_option("-f,--format", o->format, "table (default), csv or json");
         cmd->add_option("-o,--output", o->outputPrefix, "Write each report to PREFIX_<report>.<ext>");
         cmd->add_option("--range", o->range,
             "Only events overlapping FROM:TO, durations from the session start (e.g. 1.5ms:2ms), each kept "
             "whole, as the app's range selection");
         cmd->callback([o] { runStats(*o); });
     }});

} // namespace

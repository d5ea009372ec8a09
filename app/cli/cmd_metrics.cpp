// SPDX-License-Identifier: MIT
// warpscope-cli metrics FILE: the profiled launches' metric values, section by section, as ncu's
// details page prints them, so a profile taken on a headless GPU server is read where it was taken.
#include "command.h"
#include "core/metrics/knowndifferences.h"
#include "core/metrics/metricsreport.h"
#include "core/metrics/sectioncatalog.h"
#include "core/report/reportformat.h"
#include "core/store/sessionreader.h"
#include "launcher/targetlauncher.h"

#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct MetricsOptions {
    std::string file;
    std::string kernelName;
    std::vector<int64_t> kernelIds;
    std::vector<std::string> sections;
    std::string format = "details";
};

void runMetrics(const MetricsOptions& o)
{
    std::optional<ws::ReportFormat> format;
    if (o.format != "details") {
        format = ws::parseReportFormat(o.format);
        if (!format || *format == ws::ReportFormat::Table)
            throw std::runtime_error(o.file + ": unknown format '" + o.format + "' (expected details, csv or json)");
    }
    // The known differences beside the installed section files; without them the values print
    // unmarked, and stderr says so.
    std::string why;
    const std::optional<ws::KnownDifferences> differences
        = ws::KnownDifferences::readBeside(ws::SectionCatalog::defaultDirectory(ws::executablePath()), why);
    if (!differences)
        std::cerr << "warpscope-cli metrics: " << why << "; values are printed without known differences\n";
    const ws::SessionReader reader(o.file);
    ws::MetricsReport report;
    try {
        report = ws::MetricsReport::read(
            reader, {o.kernelName, o.kernelIds, o.sections, 0}, differences ? &*differences : nullptr);
    } catch (const std::regex_error& e) {
        throw std::runtime_error("--kernel-name " + o.kernelName + ": not a regular expression (" + e.what() + ")");
    }
    if (report.launches.empty())
        throw std::runtime_error(o.file
            + ": no profiled launch matched (the session has no metrics, or the --kernel-name/--kernel-id/--section "
              "selection left none; warpscope-cli info lists the runs)");
    if (format)
        ws::writeReport(std::cout, report.table(), *format);
    else
        report.writeDetails(std::cout);
}

ws::cli::CommandRegistrar registrar(
    {"52-metrics", [](CLI::App& app, int&) {
         auto* cmd = app.add_subcommand("metrics",
             "Print the metric values of a session's profiled launches, section by section (as ncu's details page)");
         cmd->footer(
             "Values are printed as stored: the unit CUPTI reports and the shortest text that reads back as the "
             "stored number. Each launch names the run that measured it, its passes and cache control. "
             "\xE2\x89\x88 marks a metric that differed from ncu on the fidelity suite under that cache control, "
             "explained under its table. csv and json give one row per launch and metric.");
         auto o = std::make_shared<MetricsOptions>();
         cmd->add_option("FILE", o->file, "Session file (.wscope)")->required();
         cmd->add_option("-k,--kernel-name", o->kernelName,
             "Only launches of this kernel: NAME (mangled, demangled or short name) or regex:R");
         cmd->add_option("--kernel-id", o->kernelIds, "Only this launch (kernel.id; repeatable)");
         cmd->add_option("--section", o->sections, "Only this section (e.g. SpeedOfLight; repeatable)");
         cmd->add_option("-f,--format", o->format, "details (default), csv or json");
         cmd->callback([o] { runMetrics(*o); });
     }});

} // namespace

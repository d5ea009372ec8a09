// SPDX-License-Identifier: MIT
// warpscope-cli compare A B: B against the baseline A (and more baselines for z-scores), with a
// verdict CI pipelines can gate on: exit 0 when B is not significantly slower, 1 on a
// significant regression, 2 on any error (every usage error included, not just CLI11's).
#include "command.h"

#include "core/compare/comparereport.h"
#include "core/compare/comparison.h"
#include "core/compare/hypothesis.h"
#include "core/store/sessionerror.h"

#include <charconv>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct CompareArgs {
    std::vector<std::string> files;
    std::vector<std::string> baselines;
    std::string threshold = "2";
    std::string alpha = "0.05";
    std::string format = "text";
    std::string range;
    std::vector<std::string> pairs;
    std::vector<std::string> predictions;
    bool savePredictions = false;
    bool ignoreStored = false;
};

double parseNumber(const std::string& text, const char* option, double low, double high)
{
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !(v >= low && v <= high))
        throw std::runtime_error(std::string(option) + " '" + text + "' is not a number in [" + std::to_string(low)
            + ", " + std::to_string(high) + "]");
    return v;
}

int runCompare(const CompareArgs& o, const std::vector<std::string>& extras)
{
    if (!extras.empty())
        throw std::runtime_error("unexpected argument '" + extras.front() + "' (see --help)");
    if (o.files.size() != 2)
        throw std::runtime_error(
            "expected two session files, A (baseline) and B, got " + std::to_string(o.files.size()));
    ws::compare::CompareOptions options;
    options.rule.thresholdPct = parseNumber(o.threshold, "--threshold", 0, 1000);
    options.rule.alpha = parseNumber(o.alpha, "--alpha", 1e-12, 0.5);
    options.rangeName = o.range;
    ws::compare::CompareFormat format;
    if (o.format == "text" || o.format == "table")
        format = ws::compare::CompareFormat::Text;
    else if (o.format == "csv")
        format = ws::compare::CompareFormat::Csv;
    else if (o.format == "json")
        format = ws::compare::CompareFormat::Json;
    else
        throw std::runtime_error("unknown format '" + o.format + "' (expected text, csv or json)");

    std::vector<ws::compare::Hypothesis> fresh;
    try {
        for (const auto& p : o.pairs)
            options.pairs.push_back(ws::compare::parseUserPair(p));
        for (const auto& p : o.predictions)
            fresh.push_back(ws::compare::parseHypothesis(p));
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(e.what());
    }
    if (o.savePredictions && fresh.empty())
        throw std::runtime_error("--save-predictions needs at least one --predict");

    auto a = ws::compare::loadCompareSession(o.files[0]);
    auto b = ws::compare::loadCompareSession(o.files[1]);
    const std::string keyNote = ws::compare::alignKeys(a, b);
    std::vector<ws::compare::CompareSession> extra;
    extra.reserve(o.baselines.size());
    for (const auto& path : o.baselines) {
        extra.push_back(ws::compare::loadCompareSession(path));
        // Keyed like B: a B without NVTX paths is matched by name alone.
        if (!ws::compare::hasPaths(b))
            ws::compare::dropPaths(extra.back());
    }
    std::vector<const ws::compare::CompareSession*> extraPtrs;
    extraPtrs.reserve(extra.size());
    for (const auto& e : extra)
        extraPtrs.push_back(&e);

    std::vector<ws::compare::Hypothesis> hypotheses;
    try {
        if (!o.ignoreStored)
            hypotheses = ws::compare::storedHypotheses(b);
        hypotheses.insert(hypotheses.end(), fresh.begin(), fresh.end());
        auto c = ws::compare::compareSessions(a, b, options, extraPtrs, hypotheses);
        if (!keyNote.empty())
            c.notes.insert(c.notes.begin(), keyNote);
        ws::compare::writeComparison(std::cout, c, format);
        std::cout.flush();
        if (!std::cout)
            throw std::runtime_error("cannot write to standard output");
        if (o.savePredictions) {
            ws::compare::saveHypotheses(o.files[1], hypotheses);
            std::cerr << "saved " << hypotheses.size() << " prediction(s) in " << o.files[1] << '\n';
        }
        if (c.regression()) {
            std::cerr << "warpscope-cli compare: regression: " << c.overallText << '\n';
            return 1;
        }
        return 0;
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(e.what());
    }
}

const ws::cli::CommandRegistrar registrar({"55-compare",
    [](CLI::App& app, int& exitCode) {
        auto* cmd = app.add_subcommand("compare", "Compare session B against baseline A (before/after)");
        cmd->footer(
            "Latency: the benchmark runs' samples when both files are `bench` sessions, else the GPU time per "
            "iteration (instances of --range, or the span between launches of the most frequent kernel).\n"
            "Verdict: slower/faster only when the Mann-Whitney p < --alpha, the 95% bootstrap CI of the median ratio "
            "B/A excludes 1 and the change exceeds --threshold; otherwise no significant change.\n"
            "Kernels are matched by demangled name within their NVTX path (launch order pairs the launches); "
            "--pair re-pairs, unmatched kernels are listed.\n"
            "Predictions: SUBJECT[@KERNEL]:up|down|same[:SIZE%], SUBJECT = latency, time (with @KERNEL) or an ncu "
            "metric name; the ones stored in B are checked too.\n"
            "Exit status: 0 B is not significantly slower, 1 significant regression, 2 error.");
        auto o = std::make_shared<CompareArgs>();
        cmd->add_option("files", o->files, "A (baseline) and B session files");
        cmd->add_option("--baseline", o->baselines, "Another baseline session for z-scores (repeatable)");
        cmd->add_option("--threshold", o->threshold, "Smallest change in percent that counts (default 2)");
        cmd->add_option("--alpha", o->alpha, "Significance level of the Mann-Whitney test (default 0.05)");
        cmd->add_option("-f,--format", o->format, "text (default), csv or json");
        cmd->add_option("--range", o->range, "NVTX range whose instances are the iterations (and the origin)");
        cmd->add_option("--pair", o->pairs, "Re-pair kernels: A_NAME=B_NAME (substrings; repeatable)");
        cmd->add_option("--predict", o->predictions, "A prediction to check, e.g. latency:down:10% (repeatable)");
        cmd->add_flag("--save-predictions", o->savePredictions, "Store the predictions in B (meta compare.hypotheses)");
        cmd->add_flag("--ignore-stored", o->ignoreStored, "Do not check the predictions stored in B");
        cmd->allow_extras();
        cmd->callback([o, cmd, &exitCode] { exitCode = runCompare(*o, cmd->remaining()); });
    }});

} // namespace

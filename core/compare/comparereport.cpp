// SPDX-License-Identifier: MIT
#include "core/compare/comparereport.h"

#include "core/ranking/compactname.h"
#include "core/report/reportformat.h"

#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/prettywriter.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ws::compare {

namespace {

ReportCell number(double v)
{
    if (!std::isfinite(v))
        return std::monostate {};
    return std::round(v * 10) / 10;
}

ReportCell formatted(double v, const char* fmt)
{
    if (!std::isfinite(v))
        return std::monostate {};
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
}

ReportCell pCell(double p)
{
    if (!std::isfinite(p))
        return std::monostate {};
    return formatted(p, p < 1e-4 ? "%.1e" : "%.4f");
}

// Rows in the order the text report lists kernels: matched by |difference| (largest first),
// then the unmatched ones by their total time.
std::vector<const KernelRow*> sortedRows(const Comparison& c)
{
    std::vector<const KernelRow*> rows;
    for (const auto& r : c.kernels)
        rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(), [](const KernelRow* x, const KernelRow* y) {
        if (x->matched() != y->matched())
            return x->matched();
        if (x->matched())
            return std::fabs(x->diffNs) > std::fabs(y->diffNs);
        return x->totalA + x->totalB > y->totalA + y->totalB;
    });
    return rows;
}

} // namespace

ReportTable verdictTable(const Comparison& c)
{
    ReportTable t;
    t.id = "compare_verdict";
    t.title = "Verdict";
    t.columns = {{"Verdict", "", ColumnKind::Text}, {"Source", "", ColumnKind::Text},
        {"Change", "%", ColumnKind::Percent}, {"Median A", "", ColumnKind::Text}, {"Median B", "", ColumnKind::Text},
        {"Ratio B/A", "", ColumnKind::Text}, {"CI Low", "", ColumnKind::Text}, {"CI High", "", ColumnKind::Text},
        {"p", "", ColumnKind::Text}, {"n A", "", ColumnKind::Count}, {"n B", "", ColumnKind::Count},
        {"Threshold", "%", ColumnKind::Percent}, {"Alpha", "", ColumnKind::Text}, {"z", "", ColumnKind::Text}};
    const Verdict& v = c.verdict;
    t.rows.push_back({std::string(verdictName(c.overall)), c.verdictSource, number(v.changePct),
        formatted(v.medianA, "%.6g"), formatted(v.medianB, "%.6g"), formatted(v.ratio.ratio, "%.5f"),
        formatted(v.ratio.low, "%.5f"), formatted(v.ratio.high, "%.5f"), pCell(v.test.pValue),
        static_cast<int64_t>(v.countA), static_cast<int64_t>(v.countB), number(v.rule.thresholdPct),
        formatted(v.rule.alpha, "%.3g"), formatted(c.latencyZ, "%.2f")});
    return t;
}

ReportTable kernelTable(const Comparison& c)
{
    ReportTable t;
    t.id = "compare_kernels";
    t.title = "Kernels";
    t.columns = {{"Kernel", "", ColumnKind::Text}, {"NVTX Path", "", ColumnKind::Text}, {"Match", "", ColumnKind::Text},
        {"Calls A", "", ColumnKind::Count}, {"Calls B", "", ColumnKind::Count}, {"Med A", "ns", ColumnKind::Duration},
        {"Med B", "ns", ColumnKind::Duration}, {"Diff", "ns", ColumnKind::Duration}, {"Diff", "%", ColumnKind::Percent},
        {"p", "", ColumnKind::Text}, {"z", "", ColumnKind::Text}, {"Kernel A", "", ColumnKind::Text}};
    for (const KernelRow* r : sortedRows(c)) {
        const char* match = r->matched() ? matchKindName(r->kind) : (r->keyA >= 0 ? "only A" : "only B");
        t.rows.push_back({r->name, r->path, std::string(match), static_cast<int64_t>(r->countA),
            static_cast<int64_t>(r->countB), number(r->medianA), number(r->medianB), number(r->diffNs),
            number(r->diffPct), pCell(r->pValue), formatted(r->zScore, "%.2f"), r->nameA});
    }
    return t;
}

ReportTable benchTable(const Comparison& c)
{
    ReportTable t;
    t.id = "compare_bench";
    t.title = "Benchmark runs";
    t.columns = {{"Run B", "", ColumnKind::Text}, {"Run A", "", ColumnKind::Text}, {"Verdict", "", ColumnKind::Text},
        {"Med A", "us", ColumnKind::Text}, {"Med B", "us", ColumnKind::Text}, {"Change", "%", ColumnKind::Percent},
        {"CI Low", "", ColumnKind::Text}, {"CI High", "", ColumnKind::Text}, {"p", "", ColumnKind::Text},
        {"n A", "", ColumnKind::Count}, {"n B", "", ColumnKind::Count}, {"z", "", ColumnKind::Text}};
    for (const auto& b : c.bench) {
        const Verdict& v = b.verdict;
        t.rows.push_back({b.titleB, b.titleA, std::string(verdictName(v.kind)), formatted(v.medianA, "%.3f"),
            formatted(v.medianB, "%.3f"), number(v.changePct), formatted(v.ratio.low, "%.5f"),
            formatted(v.ratio.high, "%.5f"), pCell(v.test.pValue), static_cast<int64_t>(v.countA),
            static_cast<int64_t>(v.countB), formatted(b.zScore, "%.2f")});
    }
    return t;
}

ReportTable hypothesisTable(const Comparison& c)
{
    ReportTable t;
    t.id = "compare_hypotheses";
    t.title = "Hypotheses";
    t.columns = {{"Prediction", "", ColumnKind::Text}, {"Outcome", "", ColumnKind::Text},
        {"Observed", "%", ColumnKind::Percent}, {"Detail", "", ColumnKind::Text}};
    for (const auto& h : c.hypotheses) {
        t.rows.push_back({formatHypothesis(h.hypothesis),
            std::string(!h.evaluated ? "not checked" : (h.held ? "held" : "did not hold")), number(h.observedPct),
            h.text});
    }
    return t;
}

namespace {

using Json = rapidjson::PrettyWriter<rapidjson::OStreamWrapper>;

void jnum(Json& w, const char* k, double v)
{
    w.Key(k);
    if (std::isfinite(v))
        w.Double(v);
    else
        w.Null();
}

void jstr(Json& w, const char* k, const std::string& v)
{
    w.Key(k);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

void jverdict(Json& w, const Verdict& v)
{
    w.StartObject();
    jstr(w, "kind", verdictName(v.kind));
    jstr(w, "text", v.text);
    jnum(w, "change_pct", v.changePct);
    jnum(w, "median_a", v.medianA);
    jnum(w, "median_b", v.medianB);
    jnum(w, "ratio", v.ratio.ratio);
    jnum(w, "ci_low", v.ratio.low);
    jnum(w, "ci_high", v.ratio.high);
    jnum(w, "p_value", v.test.pValue);
    jnum(w, "u_statistic", v.test.u1);
    w.Key("exact");
    w.Bool(v.test.exact);
    w.Key("n_a");
    w.Uint64(v.countA);
    w.Key("n_b");
    w.Uint64(v.countB);
    jnum(w, "threshold_pct", v.rule.thresholdPct);
    jnum(w, "alpha", v.rule.alpha);
    jnum(w, "confidence", v.rule.confidence);
    w.Key("resamples");
    w.Int(v.rule.resamples);
    w.EndObject();
}

void writeJson(std::ostream& out, const Comparison& c)
{
    rapidjson::OStreamWrapper os(out);
    Json w(os);
    w.SetIndent(' ', 2);
    w.StartObject();
    jstr(w, "a", c.pathA);
    jstr(w, "b", c.pathB);
    w.Key("extra_baselines");
    w.StartArray();
    for (const auto& e : c.extraBaselines)
        w.String(e.c_str(), static_cast<rapidjson::SizeType>(e.size()));
    w.EndArray();
    jstr(w, "verdict", verdictName(c.overall));
    w.Key("regression");
    w.Bool(c.regression());
    jstr(w, "summary", c.overallText);
    jstr(w, "source", c.verdictSource);
    w.Key("latency");
    jverdict(w, c.verdict);
    jnum(w, "latency_z", c.latencyZ);
    w.Key("iterations");
    w.StartObject();
    for (const auto& [key, it] : {std::pair {"a", &c.iterationsA}, std::pair {"b", &c.iterationsB}}) {
        w.Key(key);
        w.StartObject();
        jstr(w, "basis", it->basis);
        w.Key("count");
        w.Uint64(it->values.size());
        w.EndObject();
    }
    w.EndObject();
    w.Key("bench");
    w.StartArray();
    for (const auto& b : c.bench) {
        w.StartObject();
        jstr(w, "run_a", b.titleA);
        jstr(w, "run_b", b.titleB);
        jstr(w, "unit", b.unit);
        w.Key("verdict");
        jverdict(w, b.verdict);
        jnum(w, "z", b.zScore);
        w.EndObject();
    }
    w.EndArray();
    w.Key("kernels");
    w.StartArray();
    for (const auto& r : c.kernels) {
        w.StartObject();
        jstr(w, "name", r.name);
        if (!r.nameA.empty())
            jstr(w, "name_a", r.nameA);
        jstr(w, "path", r.path);
        jstr(w, "match", r.matched() ? matchKindName(r.kind) : (r.keyA >= 0 ? "only_a" : "only_b"));
        w.Key("calls_a");
        w.Uint64(r.countA);
        w.Key("calls_b");
        w.Uint64(r.countB);
        jnum(w, "median_a_ns", r.medianA);
        jnum(w, "median_b_ns", r.medianB);
        jnum(w, "total_a_ns", r.totalA);
        jnum(w, "total_b_ns", r.totalB);
        jnum(w, "diff_ns", r.diffNs);
        jnum(w, "diff_pct", r.diffPct);
        jnum(w, "p_value", r.pValue);
        jnum(w, "z", r.zScore);
        w.EndObject();
    }
    w.EndArray();
    w.Key("hypotheses");
    w.StartArray();
    for (const auto& h : c.hypotheses) {
        w.StartObject();
        jstr(w, "prediction", formatHypothesis(h.hypothesis));
        w.Key("checked");
        w.Bool(h.evaluated);
        w.Key("held");
        w.Bool(h.held);
        jnum(w, "observed_pct", h.observedPct);
        jstr(w, "text", h.text);
        w.EndObject();
    }
    w.EndArray();
    w.Key("notes");
    w.StartArray();
    for (const auto& n : c.notes)
        w.String(n.c_str(), static_cast<rapidjson::SizeType>(n.size()));
    w.EndArray();
    w.EndObject();
    os.Flush();
    out << '\n';
}

void writeText(std::ostream& out, const Comparison& c)
{
    out << "A: " << c.pathA << "\nB: " << c.pathB << '\n';
    for (const auto& e : c.extraBaselines)
        out << "baseline: " << e << '\n';
    out << "\nVerdict: " << c.overallText << '\n';
    if (std::isfinite(c.latencyZ))
        out << "z-score of B against " << c.latencyBaselineMedians.size()
            << " baselines: " << std::get<std::string>(formatted(c.latencyZ, "%.2f")) << '\n';
    if (c.bench.empty()) {
        out << "Latency = " << c.verdictSource << ".\n  A: " << c.iterationsA.basis << " ("
            << c.iterationsA.values.size() << ")\n  B: " << c.iterationsB.basis << " (" << c.iterationsB.values.size()
            << ")\n";
    } else {
        out << "\n** Benchmark runs:\n\n";
        writeReportTable(out, benchTable(c));
    }
    // The text table shows compact names; the full ones are in csv and json.
    ReportTable k = kernelTable(c);
    for (auto& row : k.rows) {
        row[0] = compactKernelName(std::get<std::string>(row[0]));
        row[11] = compactKernelName(std::get<std::string>(row[11]), 40);
    }
    if (!k.rows.empty()) {
        out << "\n** Kernels (median duration per launch; p: Mann-Whitney over the launches):\n\n";
        writeReportTable(out, k);
    }
    if (!c.hypotheses.empty()) {
        out << "\n** Hypotheses:\n";
        for (const auto& h : c.hypotheses)
            out << "  " << h.text << '\n';
    }
    if (!c.notes.empty()) {
        out << '\n';
        for (const auto& n : c.notes)
            out << "note: " << n << '\n';
    }
}

} // namespace

void writeComparison(std::ostream& out, const Comparison& c, CompareFormat format)
{
    switch (format) {
    case CompareFormat::Text:
        writeText(out, c);
        return;
    case CompareFormat::Csv: {
        writeReportCsv(out, verdictTable(c));
        if (!c.bench.empty()) {
            out << '\n';
            writeReportCsv(out, benchTable(c));
        }
        out << '\n';
        writeReportCsv(out, kernelTable(c));
        if (!c.hypotheses.empty()) {
            out << '\n';
            writeReportCsv(out, hypothesisTable(c));
        }
        return;
    }
    case CompareFormat::Json:
        writeJson(out, c);
        return;
    }
}

} // namespace ws::compare

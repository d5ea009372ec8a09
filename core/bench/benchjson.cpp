// SPDX-License-Identifier: MIT
#include "core/bench/benchjson.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <functional>

namespace ws::bench {

namespace {

constexpr const char* kFormat = "warpscope-bench";
constexpr const char* kRequestFormat = "warpscope-bench-request";
constexpr const char* kFailureFormat = "warpscope-bench-failure";
constexpr int kFormatVersion = 1;

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using Value = rapidjson::Value;

void key(Writer& w, const char* k)
{
    w.Key(k);
}

void str(Writer& w, const char* k, const std::string& v)
{
    w.Key(k);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

void num(Writer& w, const char* k, double v)
{
    w.Key(k);
    // JSON has no NaN or infinity; a non-finite sample would be a bug upstream, keep it visible.
    if (std::isfinite(v))
        w.Double(v);
    else
        w.Null();
}

void i64(Writer& w, const char* k, int64_t v)
{
    w.Key(k);
    w.Int64(v);
}

void numbers(Writer& w, const std::vector<double>& v)
{
    w.StartArray();
    for (double x : v) {
        if (std::isfinite(x))
            w.Double(x);
        else
            w.Null();
    }
    w.EndArray();
}

void writeOptions(Writer& w, const BenchOptions& o)
{
    w.StartObject();
    if (o.warmupMs)
        num(w, "warmup_ms", *o.warmupMs);
    if (o.warmupCalls)
        i64(w, "warmup_calls", *o.warmupCalls);
    i64(w, "repeat", o.repeat);
    i64(w, "rounds", o.rounds);
    num(w, "cooldown_ms", o.cooldownMs);
    str(w, "cache", std::string(cachePolicyKey(o.cache)));
    str(w, "timer", std::string(timerKey(o.timer)));
    i64(w, "flush_bytes", o.flushBytes);
    key(w, "alternate");
    w.Bool(o.alternate);
    num(w, "rtol", o.rtol);
    num(w, "atol", o.atol);
    num(w, "drift_tolerance", o.driftTolerance);
    w.EndObject();
}

void writeCheck(Writer& w, const CheckReport& c)
{
    w.StartObject();
    key(w, "performed");
    w.Bool(c.performed);
    key(w, "passed");
    w.Bool(c.passed);
    i64(w, "checked", c.checked);
    i64(w, "total", c.total);
    num(w, "max_abs_error", c.maxAbsError);
    num(w, "max_rel_error", c.maxRelError);
    num(w, "rtol", c.rtol);
    num(w, "atol", c.atol);
    str(w, "reference", c.reference);
    w.EndObject();
}

// The run object. `columns`: also the fields bench_run has columns for; `samples`: also the
// rounds and calls (the session keeps them in bench_sample).
void writeRun(Writer& w, const BenchRunResult& r, bool columns, bool samples)
{
    w.StartObject();
    if (columns) {
        str(w, "workload", r.workload);
        str(w, "implementation", r.implementation);
        str(w, "boundary", r.boundary);
        str(w, "unit", r.unit);
        num(w, "work_flops", r.workFlops);
        num(w, "work_bytes", r.workBytes);
    }
    i64(w, "size", r.size);
    str(w, "dtype", r.dtype);
    key(w, "options");
    writeOptions(w, r.options);
    i64(w, "resolved_flush_bytes", r.flushBytes);
    key(w, "throughput");
    w.StartObject();
    str(w, "kind", std::string(throughputKindKey(r.throughputKind)));
    str(w, "work", r.workText);
    w.EndObject();
    key(w, "warmup");
    w.StartObject();
    i64(w, "calls", r.warmupCalls);
    num(w, "elapsed_ms", r.warmupElapsedMs);
    key(w, "chunks");
    numbers(w, r.warmupChunks);
    w.EndObject();
    key(w, "check");
    writeCheck(w, r.check);
    key(w, "round_positions");
    w.StartArray();
    for (int p : r.roundPositions)
        w.Int(p);
    w.EndArray();
    key(w, "warnings");
    w.StartArray();
    for (const auto& s : r.warnings)
        w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
    w.EndArray();
    if (samples) {
        key(w, "rounds");
        numbers(w, r.rounds);
        key(w, "calls");
        w.StartArray();
        for (const auto& c : r.calls)
            numbers(w, c);
        w.EndArray();
    }
    w.EndObject();
}

// DeviceInfo fields by name, so writing and reading cannot disagree.
template <typename Fn> void forEachDeviceField(DeviceInfo& d, Fn&& fn)
{
    fn("id", d.id);
    fn("pid", d.pid);
    fn("name", d.name);
    fn("uuid", d.uuid);
    fn("cc_major", d.ccMajor);
    fn("cc_minor", d.ccMinor);
    fn("sm_count", d.smCount);
    fn("sm_clock_khz", d.smClockKhz);
    fn("sm_clock_max_khz", d.smClockMaxKhz);
    fn("mem_clock_khz", d.memClockKhz);
    fn("mem_bus_width_bits", d.memBusWidthBits);
    fn("l2_bytes", d.l2Bytes);
    fn("global_mem_bytes", d.globalMemBytes);
    fn("regs_per_sm", d.regsPerSm);
    fn("regs_per_block", d.regsPerBlock);
    fn("smem_per_sm", d.smemPerSm);
    fn("smem_per_block", d.smemPerBlock);
    fn("smem_per_block_optin", d.smemPerBlockOptin);
    fn("smem_reserved_per_block", d.smemReservedPerBlock);
    fn("max_warps_per_sm", d.maxWarpsPerSm);
    fn("max_blocks_per_sm", d.maxBlocksPerSm);
    fn("max_threads_per_block", d.maxThreadsPerBlock);
    fn("warp_size", d.warpSize);
    fn("dram_bandwidth_bytes_per_s", d.dramBandwidthBytesPerS);
    fn("peak_fp32_flops_per_s", d.peakFp32FlopsPerS);
    fn("peak_fp64_flops_per_s", d.peakFp64FlopsPerS);
    fn("peak_fp16_tensor_flops_per_s", d.peakFp16TensorFlopsPerS);
    fn("peak_bf16_tensor_flops_per_s", d.peakBf16TensorFlopsPerS);
    fn("peak_fp8_tensor_flops_per_s", d.peakFp8TensorFlopsPerS);
    fn("peak_tf32_tensor_flops_per_s", d.peakTf32TensorFlopsPerS);
    fn("l2_bandwidth_bytes_per_s", d.l2BandwidthBytesPerS);
    fn("l1_bandwidth_bytes_per_s", d.l1BandwidthBytesPerS);
}

void writeDevice(Writer& w, DeviceInfo d)
{
    w.StartObject();
    forEachDeviceField(d, [&w](const char* k, auto& v) {
        using T = std::decay_t<decltype(v)>;
        w.Key(k);
        if constexpr (std::is_same_v<T, std::string>)
            w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
        else if constexpr (std::is_floating_point_v<T>)
            w.Double(v);
        else
            w.Int64(static_cast<int64_t>(v));
    });
    w.EndObject();
}

// ---- reading ----

class Reader {
public:
    explicit Reader(std::string source)
        : m_source(std::move(source))
    {
    }

    [[noreturn]] void fail(const std::string& path, const std::string& what) const
    {
        throw BenchFormatError(m_source + ": " + path + ": " + what);
    }

    const Value& member(const Value& obj, const char* k, const std::string& path) const
    {
        auto it = obj.FindMember(k);
        if (it == obj.MemberEnd())
            fail(path, std::string("missing field '") + k + "'");
        return it->value;
    }
    const Value& object(const Value& obj, const char* k, const std::string& path) const
    {
        const auto& v = member(obj, k, path);
        if (!v.IsObject())
            fail(path + "." + k, "expected an object");
        return v;
    }
    std::string string(const Value& obj, const char* k, const std::string& path) const
    {
        const auto& v = member(obj, k, path);
        if (!v.IsString())
            fail(path + "." + k, "expected a string");
        return {v.GetString(), v.GetStringLength()};
    }
    double number(const Value& obj, const char* k, const std::string& path) const
    {
        const auto& v = member(obj, k, path);
        if (v.IsNull())
            return std::nan("");
        if (!v.IsNumber())
            fail(path + "." + k, "expected a number");
        return v.GetDouble();
    }
    int64_t integer(const Value& obj, const char* k, const std::string& path) const
    {
        const auto& v = member(obj, k, path);
        if (!v.IsInt64())
            fail(path + "." + k, "expected an integer");
        return v.GetInt64();
    }
    bool boolean(const Value& obj, const char* k, const std::string& path) const
    {
        const auto& v = member(obj, k, path);
        if (!v.IsBool())
            fail(path + "." + k, "expected true or false");
        return v.GetBool();
    }
    std::vector<double> numbers(const Value& v, const std::string& path) const
    {
        if (!v.IsArray())
            fail(path, "expected an array of numbers");
        std::vector<double> out;
        out.reserve(v.Size());
        for (const auto& x : v.GetArray()) {
            if (x.IsNull())
                out.push_back(std::nan(""));
            else if (x.IsNumber())
                out.push_back(x.GetDouble());
            else
                fail(path, "expected an array of numbers");
        }
        return out;
    }
    const Value& array(const Value& obj, const char* k, const std::string& path) const
    {
        const auto& v = member(obj, k, path);
        if (!v.IsArray())
            fail(path + "." + k, "expected an array");
        return v;
    }

private:
    std::string m_source;
};

BenchOptions readOptions(const Reader& rd, const Value& o, const std::string& path)
{
    BenchOptions opt;
    if (o.HasMember("warmup_ms"))
        opt.warmupMs = rd.number(o, "warmup_ms", path);
    if (o.HasMember("warmup_calls"))
        opt.warmupCalls = rd.integer(o, "warmup_calls", path);
    opt.repeat = rd.integer(o, "repeat", path);
    opt.rounds = static_cast<int>(rd.integer(o, "rounds", path));
    opt.cooldownMs = rd.number(o, "cooldown_ms", path);
    const auto cache = rd.string(o, "cache", path);
    const auto c = cachePolicyFromKey(cache);
    if (!c)
        rd.fail(path + ".cache", "unknown cache policy '" + cache + "'");
    opt.cache = *c;
    const auto timer = rd.string(o, "timer", path);
    const auto t = timerFromKey(timer);
    if (!t)
        rd.fail(path + ".timer", "unknown timer '" + timer + "'");
    opt.timer = *t;
    opt.flushBytes = rd.integer(o, "flush_bytes", path);
    opt.alternate = rd.boolean(o, "alternate", path);
    opt.rtol = rd.number(o, "rtol", path);
    opt.atol = rd.number(o, "atol", path);
    opt.driftTolerance = rd.number(o, "drift_tolerance", path);
    return opt;
}

void readExtras(const Reader& rd, const Value& r, BenchRunResult& run, const std::string& path)
{
    run.size = rd.integer(r, "size", path);
    run.dtype = rd.string(r, "dtype", path);
    run.options = readOptions(rd, rd.object(r, "options", path), path + ".options");
    run.flushBytes = rd.integer(r, "resolved_flush_bytes", path);
    const auto& tp = rd.object(r, "throughput", path);
    const auto kind = rd.string(tp, "kind", path + ".throughput");
    const auto k = throughputKindFromKey(kind);
    if (!k)
        rd.fail(path + ".throughput.kind", "expected 'kernel' or 'effective', got '" + kind + "'");
    run.throughputKind = *k;
    run.workText = rd.string(tp, "work", path + ".throughput");
    const auto& wu = rd.object(r, "warmup", path);
    run.warmupCalls = rd.integer(wu, "calls", path + ".warmup");
    run.warmupElapsedMs = rd.number(wu, "elapsed_ms", path + ".warmup");
    run.warmupChunks = rd.numbers(rd.member(wu, "chunks", path + ".warmup"), path + ".warmup.chunks");
    const auto& ck = rd.object(r, "check", path);
    const auto cp = path + ".check";
    run.check.performed = rd.boolean(ck, "performed", cp);
    run.check.passed = rd.boolean(ck, "passed", cp);
    run.check.checked = rd.integer(ck, "checked", cp);
    run.check.total = rd.integer(ck, "total", cp);
    run.check.maxAbsError = rd.number(ck, "max_abs_error", cp);
    run.check.maxRelError = rd.number(ck, "max_rel_error", cp);
    run.check.rtol = rd.number(ck, "rtol", cp);
    run.check.atol = rd.number(ck, "atol", cp);
    run.check.reference = rd.string(ck, "reference", cp);
    run.roundPositions.clear();
    for (const auto& p : rd.array(r, "round_positions", path).GetArray()) {
        if (!p.IsInt())
            rd.fail(path + ".round_positions", "expected integers");
        run.roundPositions.push_back(p.GetInt());
    }
    run.warnings.clear();
    for (const auto& s : rd.array(r, "warnings", path).GetArray()) {
        if (!s.IsString())
            rd.fail(path + ".warnings", "expected strings");
        run.warnings.emplace_back(s.GetString(), s.GetStringLength());
    }
}

rapidjson::Document parse(std::string_view text, const std::string& source)
{
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
    if (doc.HasParseError())
        throw BenchFormatError(source + ": not valid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": "
            + rapidjson::GetParseError_En(doc.GetParseError()));
    if (!doc.IsObject())
        throw BenchFormatError(source + ": expected a JSON object");
    return doc;
}

} // namespace

std::string toJson(const BenchResult& result)
{
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    str(w, "format", kFormat);
    i64(w, "version", kFormatVersion);
    key(w, "environment");
    w.StartObject();
    for (const auto& [k, v] : result.environment)
        str(w, k.c_str(), v);
    w.EndObject();
    key(w, "devices");
    w.StartArray();
    for (const auto& d : result.devices)
        writeDevice(w, d);
    w.EndArray();
    key(w, "runs");
    w.StartArray();
    for (const auto& r : result.runs)
        writeRun(w, r, true, true);
    w.EndArray();
    w.EndObject();
    return {buf.GetString(), buf.GetSize()};
}

BenchResult benchResultFromJson(std::string_view text, const std::string& source)
{
    const auto doc = parse(text, source);
    Reader rd(source);
    if (rd.string(doc, "format", "$") != kFormat)
        rd.fail("$.format", std::string("expected '") + kFormat + "'");
    const auto version = rd.integer(doc, "version", "$");
    if (version != kFormatVersion)
        rd.fail("$.version", "unsupported version " + std::to_string(version));
    BenchResult result;
    const auto& env = rd.object(doc, "environment", "$");
    for (const auto& m : env.GetObject()) {
        if (!m.value.IsString())
            rd.fail(std::string("$.environment.") + m.name.GetString(), "expected a string");
        result.environment[m.name.GetString()] = std::string(m.value.GetString(), m.value.GetStringLength());
    }
    int index = 0;
    for (const auto& dv : rd.array(doc, "devices", "$").GetArray()) {
        const auto path = "$.devices[" + std::to_string(index++) + "]";
        if (!dv.IsObject())
            rd.fail(path, "expected an object");
        DeviceInfo d;
        forEachDeviceField(d, [&](const char* k, auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>)
                v = rd.string(dv, k, path);
            else if constexpr (std::is_floating_point_v<T>)
                v = rd.number(dv, k, path);
            else
                v = static_cast<T>(rd.integer(dv, k, path));
        });
        result.devices.push_back(std::move(d));
    }
    index = 0;
    for (const auto& rv : rd.array(doc, "runs", "$").GetArray()) {
        const auto path = "$.runs[" + std::to_string(index++) + "]";
        if (!rv.IsObject())
            rd.fail(path, "expected an object");
        BenchRunResult run;
        run.workload = rd.string(rv, "workload", path);
        run.implementation = rd.string(rv, "implementation", path);
        run.boundary = rd.string(rv, "boundary", path);
        run.unit = rd.string(rv, "unit", path);
        run.workFlops = rd.number(rv, "work_flops", path);
        run.workBytes = rd.number(rv, "work_bytes", path);
        readExtras(rd, rv, run, path);
        run.rounds = rd.numbers(rd.member(rv, "rounds", path), path + ".rounds");
        const auto& calls = rd.array(rv, "calls", path);
        int r = 0;
        for (const auto& c : calls.GetArray())
            run.calls.push_back(rd.numbers(c, path + ".calls[" + std::to_string(r++) + "]"));
        if (!run.calls.empty() && run.calls.size() != run.rounds.size())
            rd.fail(path + ".calls",
                "has " + std::to_string(run.calls.size()) + " rounds but rounds has "
                    + std::to_string(run.rounds.size()));
        result.runs.push_back(std::move(run));
    }
    return result;
}

std::string requestToJson(const BenchRequest& request)
{
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    str(w, "format", kRequestFormat);
    i64(w, "version", kFormatVersion);
    str(w, "workload", request.workload.workload);
    i64(w, "size", request.workload.size);
    str(w, "dtype", request.workload.dtype);
    key(w, "implementations");
    w.StartArray();
    for (const auto& i : request.workload.implementations)
        w.String(i.c_str(), static_cast<rapidjson::SizeType>(i.size()));
    w.EndArray();
    i64(w, "device", request.device);
    key(w, "options");
    writeOptions(w, request.options);
    w.EndObject();
    return {buf.GetString(), buf.GetSize()};
}

BenchRequest requestFromJson(std::string_view text, const std::string& source)
{
    const auto doc = parse(text, source);
    Reader rd(source);
    if (rd.string(doc, "format", "$") != kRequestFormat)
        rd.fail("$.format", std::string("expected '") + kRequestFormat + "'");
    if (rd.integer(doc, "version", "$") != kFormatVersion)
        rd.fail("$.version", "unsupported version");
    BenchRequest r;
    r.workload.workload = rd.string(doc, "workload", "$");
    r.workload.size = rd.integer(doc, "size", "$");
    r.workload.dtype = rd.string(doc, "dtype", "$");
    for (const auto& i : rd.array(doc, "implementations", "$").GetArray()) {
        if (!i.IsString())
            rd.fail("$.implementations", "expected strings");
        r.workload.implementations.emplace_back(i.GetString(), i.GetStringLength());
    }
    r.device = static_cast<int>(rd.integer(doc, "device", "$"));
    r.options = readOptions(rd, rd.object(doc, "options", "$"), "$.options");
    return r;
}

std::string failureToJson(const BenchFailure& failure)
{
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    str(w, "format", kFailureFormat);
    str(w, "kind", failure.kind);
    str(w, "message", failure.message);
    w.EndObject();
    return {buf.GetString(), buf.GetSize()};
}

std::optional<BenchFailure> failureFromJson(std::string_view text)
{
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    if (doc.HasParseError() || !doc.IsObject())
        return std::nullopt;
    auto f = doc.FindMember("format");
    auto k = doc.FindMember("kind");
    auto m = doc.FindMember("message");
    if (f == doc.MemberEnd() || !f->value.IsString() || std::string_view(f->value.GetString()) != kFailureFormat
        || k == doc.MemberEnd() || !k->value.IsString() || m == doc.MemberEnd() || !m->value.IsString())
        return std::nullopt;
    return BenchFailure {k->value.GetString(), m->value.GetString()};
}

std::string runExtrasToJson(const BenchRunResult& run)
{
    rapidjson::StringBuffer buf;
    Writer w(buf);
    writeRun(w, run, false, false);
    return {buf.GetString(), buf.GetSize()};
}

void runExtrasFromJson(std::string_view text, BenchRunResult& run, const std::string& source)
{
    const auto doc = parse(text, source);
    Reader rd(source);
    readExtras(rd, doc, run, "options_json");
}

} // namespace ws::bench

// SPDX-License-Identifier: MIT
#include "core/source/pcsamplingresult.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace ws {

// One record per line, fields separated by single spaces, free text only as the last field:
//   warpscope-pcsamp 1
//   process <pid>
//   reason <index> <name>
//   cubin <crc> <bytes> <module id> <file>
//   range <launch> corr=<n> total=<n> dropped=<n> nonuser=<n> hwfull=<0|1> pcs=<n> period=<n> [error=<text>]
//   pc <launch> <crc> <offset> <function index> <corr> <reason>:<samples>,... <function name>
//   line <crc> <offset> <line> <function name> <path>
//   info <key> <value>
//   error <text>
//   end
static constexpr std::string_view kMagic = "warpscope-pcsamp 1";

namespace {

std::string oneLine(std::string s)
{
    for (char& c : s) {
        if (c == '\n' || c == '\r')
            c = ' ';
    }
    return s;
}

// Names go in a space-separated field: CUPTI's mangled names have no spaces, but a C++ name
// from cuFuncGetName could; '?' keeps the line parseable.
std::string oneField(std::string s)
{
    for (char& c : s) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            c = '?';
    }
    return s.empty() ? std::string("-") : s;
}

class Fields {
public:
    Fields(std::string_view line, const std::string& source, int lineNo)
        : m_rest(line)
        , m_source(source)
        , m_lineNo(lineNo)
    {
    }

    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::runtime_error(m_source + ":" + std::to_string(m_lineNo) + ": " + what);
    }

    std::string_view next()
    {
        if (m_rest.empty())
            fail("the line ends too early");
        const size_t sp = m_rest.find(' ');
        const std::string_view f = m_rest.substr(0, sp);
        m_rest = sp == std::string_view::npos ? std::string_view() : m_rest.substr(sp + 1);
        return f;
    }
    std::string_view rest() const { return m_rest; }

    template <typename T> T number(std::string_view s) const
    {
        T v {};
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || p != s.data() + s.size())
            fail("expected a number, found '" + std::string(s) + "'");
        return v;
    }
    template <typename T> T nextNumber() { return number<T>(next()); }

private:
    std::string_view m_rest;
    const std::string& m_source;
    int m_lineNo;
};

} // namespace

const CapturedCubin* PcSamplingResult::cubin(uint64_t crc) const
{
    for (const auto& c : cubins) {
        if (c.crc == crc)
            return &c;
    }
    return nullptr;
}

PcSamplingResultWriter::~PcSamplingResultWriter()
{
    if (m_file)
        std::fclose(m_file);
}

bool PcSamplingResultWriter::open(const std::string& path, int64_t pid)
{
    m_file = std::fopen(path.c_str(), "w");
    if (!m_file)
        return false;
    std::fprintf(m_file, "%s\nprocess %lld\n", kMagic.data(), static_cast<long long>(pid));
    std::fflush(m_file);
    return true;
}

void PcSamplingResultWriter::stallReason(uint32_t index, const std::string& name)
{
    if (m_file)
        std::fprintf(m_file, "reason %u %s\n", index, oneField(name).c_str());
}

void PcSamplingResultWriter::cubin(const CapturedCubin& c)
{
    if (m_file)
        std::fprintf(m_file, "cubin %llu %llu %u %s\n", static_cast<unsigned long long>(c.crc),
            static_cast<unsigned long long>(c.bytes), c.moduleId, oneField(c.file).c_str());
}

void PcSamplingResultWriter::range(const PcSamplingRange& r)
{
    if (!m_file)
        return;
    std::fprintf(m_file, "range %lld corr=%u total=%llu dropped=%llu nonuser=%llu hwfull=%d pcs=%llu period=%u",
        static_cast<long long>(r.launchIndex), r.correlationId, static_cast<unsigned long long>(r.totalSamples),
        static_cast<unsigned long long>(r.droppedSamples), static_cast<unsigned long long>(r.nonUserSamples),
        r.hardwareBufferFull ? 1 : 0, static_cast<unsigned long long>(r.pcs), r.period);
    if (!r.error.empty())
        std::fprintf(m_file, " error=%s", oneLine(r.error).c_str());
    std::fputc('\n', m_file);
}

void PcSamplingResultWriter::sample(const PcSampleRecord& s)
{
    if (!m_file)
        return;
    std::fprintf(m_file, "pc %lld %llu %llu %u %u ", static_cast<long long>(s.launchIndex),
        static_cast<unsigned long long>(s.cubinCrc), static_cast<unsigned long long>(s.pcOffset), s.functionIndex,
        s.correlationId);
    if (s.reasons.empty())
        std::fputc('-', m_file);
    for (size_t i = 0; i < s.reasons.size(); ++i)
        std::fprintf(m_file, "%s%u:%u", i ? "," : "", s.reasons[i].first, s.reasons[i].second);
    std::fprintf(m_file, " %s\n", oneField(s.functionName).c_str());
}

void PcSamplingResultWriter::line(const CorrelatedLine& l)
{
    if (m_file)
        std::fprintf(m_file, "line %llu %llu %u %s %s\n", static_cast<unsigned long long>(l.cubinCrc),
            static_cast<unsigned long long>(l.pcOffset), l.line, oneField(l.functionName).c_str(),
            oneLine(l.path).c_str());
}

void PcSamplingResultWriter::info(const std::string& key, const std::string& value)
{
    if (m_file)
        std::fprintf(m_file, "info %s %s\n", oneField(key).c_str(), oneLine(value).c_str());
}

void PcSamplingResultWriter::error(const std::string& text)
{
    if (m_file)
        std::fprintf(m_file, "error %s\n", oneLine(text).c_str());
}

void PcSamplingResultWriter::end()
{
    if (m_file) {
        std::fprintf(m_file, "end\n");
        std::fflush(m_file);
    }
}

void PcSamplingResultWriter::flush()
{
    if (m_file)
        std::fflush(m_file);
}

PcSamplingResult PcSamplingResultReader::read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open the PC sampling result");
    std::stringstream buf;
    buf << in.rdbuf();
    return parse(buf.str(), path);
}

PcSamplingResult PcSamplingResultReader::parse(const std::string& text, const std::string& source)
{
    PcSamplingResult r;
    size_t pos = 0;
    int lineNo = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) {
            r.truncated = true; // every record ends with '\n': the last one was cut off
            break;
        }
        const std::string_view line(text.data() + pos, nl - pos);
        pos = nl + 1;
        ++lineNo;
        if (lineNo == 1) {
            if (line != kMagic)
                throw std::runtime_error(
                    source + ": not a Warpscope PC sampling result (expected '" + std::string(kMagic) + "')");
            continue;
        }
        if (line.empty())
            continue;
        Fields f(line, source, lineNo);
        const std::string_view key = f.next();
        if (key == "process") {
            r.pid = f.nextNumber<int64_t>();
        } else if (key == "reason") {
            const auto index = f.nextNumber<uint32_t>();
            r.stallReasons[index] = std::string(f.next());
        } else if (key == "cubin") {
            CapturedCubin c;
            c.crc = f.nextNumber<uint64_t>();
            c.bytes = f.nextNumber<uint64_t>();
            c.moduleId = f.nextNumber<uint32_t>();
            c.file = std::string(f.next());
            r.cubins.push_back(std::move(c));
        } else if (key == "range") {
            PcSamplingRange g;
            g.launchIndex = f.nextNumber<int64_t>();
            std::string_view rest = f.rest();
            while (!rest.empty()) {
                const size_t eq = rest.find('=');
                if (eq == std::string_view::npos)
                    f.fail("expected key=value, found '" + std::string(rest) + "'");
                const std::string_view k = rest.substr(0, eq);
                if (k == "error") {
                    g.error = std::string(rest.substr(eq + 1));
                    break;
                }
                const size_t sp = rest.find(' ', eq);
                const std::string_view v = rest.substr(eq + 1, sp == std::string_view::npos ? rest.npos : sp - eq - 1);
                if (k == "corr")
                    g.correlationId = f.number<uint32_t>(v);
                else if (k == "total")
                    g.totalSamples = f.number<uint64_t>(v);
                else if (k == "dropped")
                    g.droppedSamples = f.number<uint64_t>(v);
                else if (k == "nonuser")
                    g.nonUserSamples = f.number<uint64_t>(v);
                else if (k == "hwfull")
                    g.hardwareBufferFull = f.number<int>(v) != 0;
                else if (k == "pcs")
                    g.pcs = f.number<uint64_t>(v);
                else if (k == "period")
                    g.period = f.number<uint32_t>(v);
                rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
            }
            r.ranges.push_back(std::move(g));
        } else if (key == "pc") {
            PcSampleRecord s;
            s.launchIndex = f.nextNumber<int64_t>();
            s.cubinCrc = f.nextNumber<uint64_t>();
            s.pcOffset = f.nextNumber<uint64_t>();
            s.functionIndex = f.nextNumber<uint32_t>();
            s.correlationId = f.nextNumber<uint32_t>();
            std::string_view list = f.next();
            if (list != "-") {
                while (!list.empty()) {
                    const size_t comma = list.find(',');
                    const std::string_view item = list.substr(0, comma);
                    const size_t colon = item.find(':');
                    if (colon == std::string_view::npos)
                        f.fail("expected reason:samples, found '" + std::string(item) + "'");
                    s.reasons.emplace_back(
                        f.number<uint32_t>(item.substr(0, colon)), f.number<uint32_t>(item.substr(colon + 1)));
                    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
                }
            }
            s.functionName = std::string(f.next());
            r.samples.push_back(std::move(s));
        } else if (key == "line") {
            CorrelatedLine l;
            l.cubinCrc = f.nextNumber<uint64_t>();
            l.pcOffset = f.nextNumber<uint64_t>();
            l.line = f.nextNumber<uint32_t>();
            l.functionName = std::string(f.next());
            l.path = std::string(f.rest());
            r.lines.push_back(std::move(l));
        } else if (key == "info") {
            const std::string k(f.next());
            r.info[k] = std::string(f.rest());
        } else if (key == "error") {
            r.errors.emplace_back(f.rest());
        } else if (key == "end") {
            r.complete = true;
        } else {
            f.fail("unknown record '" + std::string(key) + "'");
        }
    }
    if (lineNo == 0)
        throw std::runtime_error(source + ": empty PC sampling result");
    return r;
}

} // namespace ws

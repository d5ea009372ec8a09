// SPDX-License-Identifier: MIT
#include "core/metrics/profileresult.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ws {

// Format: one record per line, fields separated by single spaces; free text (names,
// descriptions) only as the last field.
//   warpscope-profile 1
//   process <pid> <name...>
//   device <id> <key=value>... name=<name...>
//   metric <index> <name> <unit|-> <breakdown-of|-> <description...>
//   info <key> <value...>
//   note <text...>
//   launch <index> <key=value>... name=<mangled name>
//   values <launch index> <metric index>=<value>...
//   end
static constexpr const char* kMagic = "warpscope-profile 1";

namespace {

std::string oneLine(std::string s)
{
    for (char& c : s) {
        if (c == '\n' || c == '\r')
            c = ' ';
    }
    return s;
}

std::string orDash(const std::string& s)
{
    return s.empty() ? "-" : s;
}

std::string fromDash(const std::string& s)
{
    return s == "-" ? std::string() : s;
}

} // namespace

const ProfiledLaunch* ProfileResult::launch(int64_t index) const
{
    for (const auto& l : launches) {
        if (l.index == index)
            return &l;
    }
    return nullptr;
}

ProfileResultWriter::~ProfileResultWriter()
{
    if (m_file)
        std::fclose(m_file);
}

bool ProfileResultWriter::open(const std::string& path)
{
    m_file = std::fopen(path.c_str(), "w");
    if (!m_file)
        return false;
    std::fprintf(m_file, "%s\n", kMagic);
    std::fflush(m_file);
    return true;
}

void ProfileResultWriter::process(int64_t pid, const std::string& name)
{
    if (m_file)
        std::fprintf(m_file, "process %lld %s\n", static_cast<long long>(pid), oneLine(name).c_str());
}

void ProfileResultWriter::device(const DeviceInfo& d)
{
    if (!m_file)
        return;
    std::fprintf(m_file,
        "device %u cc=%d.%d sms=%d sm_clock_khz=%lld sm_clock_max_khz=%lld mem_clock_khz=%lld bus_width=%d "
        "l2=%lld mem=%lld regs_per_sm=%d regs_per_block=%d smem_per_sm=%lld smem_per_block=%lld smem_optin=%lld "
        "smem_reserved=%lld max_warps_per_sm=%d max_blocks_per_sm=%d max_threads_per_block=%d warp_size=%d "
        "dram_bw=%.17g uuid=%s name=%s\n",
        d.id, d.ccMajor, d.ccMinor, d.smCount, static_cast<long long>(d.smClockKhz),
        static_cast<long long>(d.smClockMaxKhz), static_cast<long long>(d.memClockKhz), d.memBusWidthBits,
        static_cast<long long>(d.l2Bytes), static_cast<long long>(d.globalMemBytes), d.regsPerSm, d.regsPerBlock,
        static_cast<long long>(d.smemPerSm), static_cast<long long>(d.smemPerBlock),
        static_cast<long long>(d.smemPerBlockOptin), static_cast<long long>(d.smemReservedPerBlock), d.maxWarpsPerSm,
        d.maxBlocksPerSm, d.maxThreadsPerBlock, d.warpSize, d.dramBandwidthBytesPerS, orDash(d.uuid).c_str(),
        oneLine(d.name).c_str());
}

void ProfileResultWriter::metric(uint32_t index, const ProfiledMetric& m)
{
    if (m_file)
        std::fprintf(m_file, "metric %u %s %s %s %s\n", index, m.name.c_str(), orDash(m.unit).c_str(),
            orDash(m.breakdownOf).c_str(), oneLine(m.description).c_str());
}

void ProfileResultWriter::info(const std::string& key, const std::string& value)
{
    if (m_file)
        std::fprintf(m_file, "info %s %s\n", key.c_str(), oneLine(value).c_str());
}

void ProfileResultWriter::note(const std::string& text)
{
    if (m_file)
        std::fprintf(m_file, "note %s\n", oneLine(text).c_str());
}

void ProfileResultWriter::launch(const ProfiledLaunch& l)
{
    if (!m_file)
        return;
    std::fprintf(m_file,
        "launch %lld dev=%u ctx=%u stream=%u t=%lld grid=%d,%d,%d block=%d,%d,%d cluster=%d,%d,%d regs=%d "
        "ssmem=%d dsmem=%d lmem=%d maxdsmem=%d carveout=%d name=%s\n",
        static_cast<long long>(l.index), l.deviceId, l.contextId, l.streamId, static_cast<long long>(l.hostStartNs),
        l.gridX, l.gridY, l.gridZ, l.blockX, l.blockY, l.blockZ, l.clusterX, l.clusterY, l.clusterZ,
        l.registersPerThread, l.staticSmemBytes, l.dynamicSmemBytes, l.localMemPerThread, l.maxDynamicSmemBytes,
        l.carveoutPercent, oneLine(l.mangledName).c_str());
}

void ProfileResultWriter::values(int64_t launchIndex, const std::map<uint32_t, double>& values)
{
    if (!m_file)
        return;
    std::fprintf(m_file, "values %lld", static_cast<long long>(launchIndex));
    for (const auto& [idx, v] : values) {
        if (std::isfinite(v))
            std::fprintf(m_file, " %u=%.17g", idx, v);
    }
    std::fputc('\n', m_file);
}

void ProfileResultWriter::end()
{
    if (!m_file)
        return;
    std::fprintf(m_file, "end\n");
    std::fflush(m_file);
}

void ProfileResultWriter::flush()
{
    if (m_file)
        std::fflush(m_file);
}

namespace {

class LineParser {
public:
    LineParser(const std::string& source, int lineNo)
        : m_source(source)
        , m_line(lineNo)
    {
    }

    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::runtime_error(m_source + ":" + std::to_string(m_line) + ": " + what);
    }

    template <typename T> T number(std::string_view s) const
    {
        T v {};
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size())
            fail("expected a number, found '" + std::string(s) + "'");
        return v;
    }

    void triple(std::string_view s, int32_t& x, int32_t& y, int32_t& z) const
    {
        const size_t a = s.find(',');
        const size_t b = a == std::string_view::npos ? a : s.find(',', a + 1);
        if (b == std::string_view::npos)
            fail("expected x,y,z, found '" + std::string(s) + "'");
        x = number<int32_t>(s.substr(0, a));
        y = number<int32_t>(s.substr(a + 1, b - a - 1));
        z = number<int32_t>(s.substr(b + 1));
    }

private:
    const std::string& m_source;
    int m_line;
};

// Splits "k=v k=v ... name=rest of line" into pairs; `name` swallows the remainder.
std::vector<std::pair<std::string_view, std::string_view>> keyValues(std::string_view s)
{
    std::vector<std::pair<std::string_view, std::string_view>> out;
    while (!s.empty()) {
        const size_t eq = s.find('=');
        if (eq == std::string_view::npos)
            break;
        const std::string_view key = s.substr(0, eq);
        if (key == "name") {
            out.emplace_back(key, s.substr(eq + 1));
            break;
        }
        const size_t sp = s.find(' ', eq);
        out.emplace_back(key, s.substr(eq + 1, sp == std::string_view::npos ? s.npos : sp - eq - 1));
        if (sp == std::string_view::npos)
            break;
        s.remove_prefix(sp + 1);
    }
    return out;
}

} // namespace

ProfileResult ProfileResultReader::parse(const std::string& text, const std::string& source)
{
    ProfileResult r;
    size_t pos = 0;
    int lineNo = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) {
            // The writer ends every record with '\n': a last line without one was cut off.
            r.truncated = true;
            break;
        }
        const std::string_view line(text.data() + pos, nl - pos);
        pos = nl + 1;
        ++lineNo;
        LineParser p(source, lineNo);
        if (lineNo == 1) {
            if (line != kMagic)
                throw std::runtime_error(source + ": not a Warpscope profile result (expected '" + kMagic + "')");
            continue;
        }
        if (line.empty())
            continue;
        const size_t sp = line.find(' ');
        const std::string_view key = line.substr(0, sp);
        const std::string_view rest = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
        const size_t sp2 = rest.find(' ');
        const std::string_view first = rest.substr(0, sp2);
        const std::string_view tail = sp2 == std::string_view::npos ? std::string_view() : rest.substr(sp2 + 1);

        if (key == "process") {
            r.pid = p.number<int64_t>(first);
            r.processName = std::string(tail);
        } else if (key == "device") {
            DeviceInfo d;
            d.id = p.number<uint32_t>(first);
            for (const auto& [k, v] : keyValues(tail)) {
                if (k == "cc") {
                    const size_t dot = v.find('.');
                    if (dot == std::string_view::npos)
                        p.fail("bad cc '" + std::string(v) + "'");
                    d.ccMajor = p.number<int>(v.substr(0, dot));
                    d.ccMinor = p.number<int>(v.substr(dot + 1));
                } else if (k == "sms")
                    d.smCount = p.number<int>(v);
                else if (k == "sm_clock_khz")
                    d.smClockKhz = p.number<int64_t>(v);
                else if (k == "sm_clock_max_khz")
                    d.smClockMaxKhz = p.number<int64_t>(v);
                else if (k == "mem_clock_khz")
                    d.memClockKhz = p.number<int64_t>(v);
                else if (k == "bus_width")
                    d.memBusWidthBits = p.number<int>(v);
                else if (k == "l2")
                    d.l2Bytes = p.number<int64_t>(v);
                else if (k == "mem")
                    d.globalMemBytes = p.number<int64_t>(v);
                else if (k == "regs_per_sm")
                    d.regsPerSm = p.number<int>(v);
                else if (k == "regs_per_block")
                    d.regsPerBlock = p.number<int>(v);
                else if (k == "smem_per_sm")
                    d.smemPerSm = p.number<int64_t>(v);
                else if (k == "smem_per_block")
                    d.smemPerBlock = p.number<int64_t>(v);
                else if (k == "smem_optin")
                    d.smemPerBlockOptin = p.number<int64_t>(v);
                else if (k == "smem_reserved")
                    d.smemReservedPerBlock = p.number<int64_t>(v);
                else if (k == "max_warps_per_sm")
                    d.maxWarpsPerSm = p.number<int>(v);
                else if (k == "max_blocks_per_sm")
                    d.maxBlocksPerSm = p.number<int>(v);
                else if (k == "max_threads_per_block")
                    d.maxThreadsPerBlock = p.number<int>(v);
                else if (k == "warp_size")
                    d.warpSize = p.number<int>(v);
                else if (k == "dram_bw")
                    d.dramBandwidthBytesPerS = p.number<double>(v);
                else if (k == "uuid")
                    d.uuid = fromDash(std::string(v));
                else if (k == "name")
                    d.name = std::string(v);
            }
            r.devices.push_back(std::move(d));
        } else if (key == "metric") {
            const auto idx = p.number<uint32_t>(first);
            if (idx != r.metrics.size())
                p.fail("metric index " + std::to_string(idx) + " out of sequence");
            std::istringstream in {std::string(tail)};
            ProfiledMetric m;
            std::string unit, from;
            if (!(in >> m.name >> unit >> from))
                p.fail("expected 'metric <index> <name> <unit> <breakdown-of> <description>'");
            m.unit = fromDash(unit);
            m.breakdownOf = fromDash(from);
            std::getline(in >> std::ws, m.description);
            r.metrics.push_back(std::move(m));
        } else if (key == "info") {
            r.info[std::string(first)] = std::string(tail);
        } else if (key == "note") {
            r.notes.emplace_back(rest);
        } else if (key == "launch") {
            ProfiledLaunch l;
            l.index = p.number<int64_t>(first);
            for (const auto& [k, v] : keyValues(tail)) {
                if (k == "dev")
                    l.deviceId = p.number<uint32_t>(v);
                else if (k == "ctx")
                    l.contextId = p.number<uint32_t>(v);
                else if (k == "stream")
                    l.streamId = p.number<uint32_t>(v);
                else if (k == "t")
                    l.hostStartNs = p.number<int64_t>(v);
                else if (k == "grid")
                    p.triple(v, l.gridX, l.gridY, l.gridZ);
                else if (k == "block")
                    p.triple(v, l.blockX, l.blockY, l.blockZ);
                else if (k == "cluster")
                    p.triple(v, l.clusterX, l.clusterY, l.clusterZ);
                else if (k == "regs")
                    l.registersPerThread = p.number<int32_t>(v);
                else if (k == "ssmem")
                    l.staticSmemBytes = p.number<int32_t>(v);
                else if (k == "dsmem")
                    l.dynamicSmemBytes = p.number<int32_t>(v);
                else if (k == "lmem")
                    l.localMemPerThread = p.number<int32_t>(v);
                else if (k == "maxdsmem")
                    l.maxDynamicSmemBytes = p.number<int32_t>(v);
                else if (k == "carveout")
                    l.carveoutPercent = p.number<int32_t>(v);
                else if (k == "name")
                    l.mangledName = std::string(v);
            }
            r.launches.push_back(std::move(l));
        } else if (key == "values") {
            const auto idx = p.number<int64_t>(first);
            // The latest declaration of that index (indices restart with each result file part).
            const auto found = std::find_if(
                r.launches.rbegin(), r.launches.rend(), [idx](const ProfiledLaunch& l) { return l.index == idx; });
            ProfiledLaunch* target = found == r.launches.rend() ? nullptr : &*found;
            if (!target)
                p.fail("values for launch " + std::to_string(idx) + " that was never declared");
            std::string_view s = tail;
            while (!s.empty()) {
                const size_t space = s.find(' ');
                const std::string_view pair = s.substr(0, space);
                const size_t eq = pair.find('=');
                if (eq == std::string_view::npos)
                    p.fail("expected <metric>=<value>, found '" + std::string(pair) + "'");
                const auto m = p.number<uint32_t>(pair.substr(0, eq));
                if (m >= r.metrics.size())
                    p.fail("value for undeclared metric " + std::to_string(m));
                target->values[m] = p.number<double>(pair.substr(eq + 1));
                if (space == std::string_view::npos)
                    break;
                s.remove_prefix(space + 1);
            }
        } else if (key == "end") {
            r.complete = true;
        } else {
            p.fail("unknown record '" + std::string(key) + "'");
        }
    }
    if (lineNo == 0)
        throw std::runtime_error(source + ": empty profile result (the target wrote nothing)");
    return r;
}

ProfileResult ProfileResultReader::read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open profile result");
    std::ostringstream buf;
    buf << in.rdbuf();
    return parse(buf.str(), path);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/metrics/profileconfig.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace ws {

// Format:
//   warpscope-profile-config 1
//   output <dir>
//   kernel-regex <regex to end of line>
//   launch-skip <n>
//   launch-count <n>
//   capture-range cudaProfilerApi        (only launches between cudaProfilerStart and Stop)
//   verbose <0|1>
//   cache-control <all|none>
//   pc-sampling <period> <start-stop 0|1>
//   metric <arch filter> <name>
//   breakdown <arch filter> <name>
static constexpr const char* kMagic = "warpscope-profile-config 1";

std::string ProfileConfig::serialize() const
{
    std::ostringstream out;
    out << kMagic << '\n';
    out << "output " << outputDir << '\n';
    if (!kernelRegex.empty())
        out << "kernel-regex " << kernelRegex << '\n';
    out << "launch-skip " << launchSkip << '\n';
    out << "launch-count " << launchCount << '\n';
    if (captureProfilerApi)
        out << "capture-range cudaProfilerApi\n";
    out << "verbose " << (verbose ? 1 : 0) << '\n';
    out << "cache-control " << (cacheControl == CacheControl::All ? "all" : "none") << '\n';
    if (pcSampling)
        out << "pc-sampling " << pcSamplingPeriod << ' ' << (pcSamplingStartStop ? 1 : 0) << '\n';
    for (const auto& c : counters)
        out << (c.breakdown ? "breakdown " : "metric ") << c.arch.toString() << ' ' << c.name << '\n';
    return out.str();
}

ProfileConfig ProfileConfig::parse(const std::string& text, const std::string& source)
{
    ProfileConfig cfg;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    auto fail = [&](const std::string& what) {
        throw std::runtime_error(source + ":" + std::to_string(lineNo) + ": " + what);
    };
    auto toInt = [&](const std::string& s) {
        int64_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size())
            fail("expected an integer, found '" + s + "'");
        return v;
    };
    bool sawMagic = false;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty())
            continue;
        if (!sawMagic) {
            if (line != kMagic)
                fail("not a Warpscope profile configuration (expected '" + std::string(kMagic) + "')");
            sawMagic = true;
            continue;
        }
        const size_t sp = line.find(' ');
        const std::string key = line.substr(0, sp);
        const std::string rest = sp == std::string::npos ? std::string() : line.substr(sp + 1);
        if (key == "output") {
            cfg.outputDir = rest;
        } else if (key == "kernel-regex") {
            cfg.kernelRegex = rest;
        } else if (key == "launch-skip") {
            cfg.launchSkip = toInt(rest);
        } else if (key == "launch-count") {
            cfg.launchCount = toInt(rest);
        } else if (key == "capture-range") {
            if (rest != "cudaProfilerApi")
                fail("expected 'capture-range cudaProfilerApi'");
            cfg.captureProfilerApi = true;
        } else if (key == "verbose") {
            cfg.verbose = rest == "1";
        } else if (key == "cache-control") {
            if (rest != "all" && rest != "none")
                fail("expected 'cache-control all' or 'cache-control none'");
            cfg.cacheControl = rest == "all" ? CacheControl::All : CacheControl::None;
        } else if (key == "pc-sampling") {
            const size_t sp2 = rest.find(' ');
            if (sp2 == std::string::npos)
                fail("expected 'pc-sampling <period> <start-stop 0|1>'");
            cfg.pcSampling = true;
            cfg.pcSamplingPeriod = static_cast<int>(toInt(rest.substr(0, sp2)));
            cfg.pcSamplingStartStop = rest.substr(sp2 + 1) != "0";
        } else if (key == "metric" || key == "breakdown") {
            const size_t sp2 = rest.find(' ');
            if (sp2 == std::string::npos || sp2 + 1 >= rest.size())
                fail("expected '" + key + " <arch filter> <name>'");
            MetricRequest::Counter c;
            try {
                c.arch = ArchFilter::parse(rest.substr(0, sp2));
            } catch (const std::invalid_argument& e) {
                fail(e.what());
            }
            c.name = rest.substr(sp2 + 1);
            c.breakdown = key == "breakdown";
            cfg.counters.push_back(std::move(c));
        } else {
            fail("unknown statement '" + key + "'");
        }
    }
    if (!sawMagic)
        throw std::runtime_error(source + ": empty profile configuration");
    if (cfg.outputDir.empty())
        throw std::runtime_error(source + ": no 'output' directory");
    return cfg;
}

ProfileConfig ProfileConfig::readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open profile configuration");
    std::ostringstream buf;
    buf << in.rdbuf();
    return parse(buf.str(), path);
}

void ProfileConfig::writeFile(const std::string& path) const
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << serialize();
    out.flush();
    if (!out)
        throw std::runtime_error(path + ": cannot write profile configuration");
}

std::string kernelNameRegex(const std::string& spec)
{
    if (spec.empty())
        return {};
    if (spec.rfind("regex:", 0) == 0)
        return spec.substr(6);
    std::string escaped = "^";
    for (char c : spec) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            escaped += '\\';
        escaped += c;
    }
    return escaped + "$";
}

} // namespace ws

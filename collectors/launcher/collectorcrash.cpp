// SPDX-License-Identifier: MIT
#include "collectorcrash.h"

#include "core/import/importfinish.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace ws {

namespace {

// The handler's wording (collectors/crash/crashreport.cpp).
constexpr const char* kReceived = ": the program received signal ";
constexpr const char* kWhile = ": while the collector was ";
constexpr const char* kOwnCode = "not in one of its callbacks (the program's own code)";
constexpr const char* kNotTracked = "not noting its activity";

} // namespace

CollectorCrash parseCollectorCrash(const std::string& text)
{
    CollectorCrash c;
    c.report = text;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (auto at = line.find(kReceived); at != std::string::npos && c.signal == 0) {
            const char* p = line.c_str() + at + std::char_traits<char>::length(kReceived);
            char* end = nullptr;
            c.signal = static_cast<int>(std::strtol(p, &end, 10));
            if (end && *end == ' ' && end[1] == '(') {
                const std::string rest(end + 2);
                c.signalName = rest.substr(0, rest.find(')'));
            }
        } else if (auto w = line.find(kWhile); w != std::string::npos && c.activity.empty()) {
            const std::string what = line.substr(w + std::char_traits<char>::length(kWhile));
            if (what != kOwnCode && what.rfind(kNotTracked, 0) != 0)
                c.activity = what;
        }
    }
    return c;
}

std::vector<CollectorCrash> readCollectorCrashes(const std::filesystem::path& dir)
{
    std::vector<CollectorCrash> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("crash-", 0) != 0 || e.path().extension() != ".txt")
            continue;
        std::string text;
        try {
            text = readWholeFile(e.path().string(), size_t(1) << 20); // a report is a few KB
        } catch (const std::exception&) {
            continue; // unreadable: the program's exit status still says it crashed
        }
        CollectorCrash c = parseCollectorCrash(text);
        if (c.signal == 0)
            continue;
        c.pid = std::atoi(name.c_str() + 6);
        out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(), [](const CollectorCrash& a, const CollectorCrash& b) { return a.pid < b.pid; });
    return out;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "activityreplay.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ws::inject::cupti {

namespace {

std::vector<std::string> split(const std::string& line, char sep)
{
    std::vector<std::string> out;
    size_t from = 0;
    while (true) {
        const size_t at = line.find(sep, from);
        out.push_back(line.substr(from, at == std::string::npos ? std::string::npos : at - from));
        if (at == std::string::npos)
            return out;
        from = at + 1;
    }
}

// Undoes activitycapture.cpp's escaping of tabs, line ends and backslashes.
std::string unescaped(const std::string& s)
{
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        out += c == 't' ? '\t' : c == 'n' ? '\n' : c;
    }
    return out;
}

size_t structSizeOf(uint32_t kind)
{
    for (const auto& r : kRecordVersions) {
        if (static_cast<uint32_t>(r.kind) == kind)
            return r.structSize;
    }
    return 0;
}

} // namespace

CapturedActivity CapturedActivity::read(const std::string& dir)
{
    const std::string manifestPath = dir + "/manifest.tsv";
    std::ifstream in(manifestPath);
    if (!in)
        throw std::runtime_error(manifestPath + ": cannot open");
    CapturedActivity c;
    auto fail = [&](size_t lineNo, const std::string& why) {
        throw std::runtime_error(manifestPath + ":" + std::to_string(lineNo) + ": " + why);
    };
    std::string line;
    size_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line[0] == '#')
            continue;
        const auto f = split(line, '\t');
        const std::string& key = f[0];
        if (key == "format" && f.size() == 2 && f[1] != "1") {
            fail(lineNo, "capture format " + f[1] + " (this build reads format 1)");
        } else if (key == "pid" && f.size() == 2) {
            c.m_pid = std::stoll(f[1]);
        } else if (key == "cupti_version" && f.size() == 2) {
            c.m_cuptiVersion = static_cast<uint32_t>(std::stoul(f[1]));
        } else if (key == "struct" && f.size() == 5) {
            // The converter reads each kind as one struct version; a capture made by a build that
            // read another version (or a differently sized one) cannot be replayed by this one.
            const uint32_t kind = static_cast<uint32_t>(std::stoul(f[2]));
            bool known = false;
            for (const auto& r : kRecordVersions) {
                if (static_cast<uint32_t>(r.kind) != kind)
                    continue;
                known = true;
                if (f[3] != r.structName || std::stoul(f[4]) != r.structSize)
                    fail(lineNo,
                        "kind " + f[1] + " captured as " + f[3] + " (" + f[4] + " bytes), this build reads "
                            + r.structName + " (" + std::to_string(r.structSize) + " bytes)");
            }
            if (!known)
                fail(lineNo, "kind " + f[1] + " is not one this build converts");
        } else if (key == "buffer" && f.size() == 5) {
            if (std::stoul(f[1]) != c.m_buffers.size())
                fail(lineNo, "buffer " + f[1] + " out of order");
            Buffer b;
            b.validSize = std::stoul(f[2]);
            b.storage.assign((b.validSize + 7) / 8, 0);
            const std::string path = dir + "/" + f[3];
            std::ifstream bin(path, std::ios::binary);
            if (!bin.read(reinterpret_cast<char*>(b.storage.data()), static_cast<std::streamsize>(b.validSize)))
                throw std::runtime_error(path + ": missing or shorter than its valid size " + f[2]);
            c.m_buffers.push_back(std::move(b));
        } else if (key == "records" && f.size() == 3) {
            if (c.m_buffers.empty() || std::stoul(f[1]) != c.m_buffers.size() - 1)
                fail(lineNo, "records of a buffer not read just before");
            Buffer& b = c.m_buffers.back();
            std::istringstream items(f[2]);
            std::string item;
            while (items >> item) {
                const size_t colon = item.find(':');
                if (colon == std::string::npos)
                    fail(lineNo, "bad record '" + item + "'");
                const auto offset = static_cast<uint32_t>(std::stoul(item.substr(0, colon)));
                const auto kind = static_cast<uint32_t>(std::stoul(item.substr(colon + 1)));
                const size_t size = std::max(structSizeOf(kind), sizeof(CUpti_Activity));
                if (offset % 8 != 0 || offset + size > b.validSize)
                    fail(lineNo,
                        "record at " + std::to_string(offset) + " (kind " + std::to_string(kind)
                            + ") lies outside the buffer's " + std::to_string(b.validSize) + " valid bytes");
                const auto* rec = reinterpret_cast<const CUpti_Activity*>(b.bytes() + offset);
                if (static_cast<uint32_t>(rec->kind) != kind)
                    fail(lineNo,
                        "record at " + std::to_string(offset) + " has kind "
                            + std::to_string(static_cast<uint32_t>(rec->kind)) + " in the buffer, "
                            + std::to_string(kind) + " in the manifest");
                b.records.emplace_back(offset, kind);
            }
        } else if (key == "string" && f.size() == 3) {
            c.m_strings[static_cast<uintptr_t>(std::stoull(f[1], nullptr, 16))] = unescaped(f[2]);
        } else if (key == "api" && f.size() == 4) {
            c.m_apiNames[{f[1] == "driver", static_cast<uint32_t>(std::stoul(f[2]))}] = unescaped(f[3]);
        } else if (key == "thread" && f.size() == 3) {
            c.m_threadNames[std::stoll(f[1])] = unescaped(f[2]);
        }
    }
    return c;
}

std::map<uint32_t, size_t> CapturedActivity::recordCounts() const
{
    std::map<uint32_t, size_t> n;
    for (const auto& b : m_buffers) {
        for (const auto& r : b.records)
            ++n[r.second];
    }
    return n;
}

uint64_t CapturedActivity::replay(RawWriter& writer) const
{
    ConverterCache cache;
    // The converter asks for names through a non-const interface; the answers come from tables
    // read once, so a copy answers the same.
    CapturedActivity names = *this;
    uint64_t frames = 0;
    for (const auto& b : m_buffers) {
        ActivityConverter converter(writer, cache, names);
        for (const auto& [offset, kind] : b.records)
            converter.add(reinterpret_cast<const CUpti_Activity*>(b.bytes() + offset));
        frames += converter.frames();
        converter.finish();
    }
    return frames;
}

std::string CapturedActivity::text(const char* cuptiString)
{
    if (!cuptiString)
        return {};
    const auto it = m_strings.find(reinterpret_cast<uintptr_t>(cuptiString));
    if (it == m_strings.end())
        throw std::runtime_error("the capture has no text for the string CUPTI put at "
            + std::to_string(reinterpret_cast<uintptr_t>(cuptiString)));
    return it->second;
}

std::string CapturedActivity::apiName(bool driver, uint32_t cbid)
{
    const auto it = m_apiNames.find({driver, cbid});
    return it == m_apiNames.end() ? std::string() : it->second;
}

std::string CapturedActivity::threadName(int64_t tid)
{
    const auto it = m_threadNames.find(tid);
    return it == m_threadNames.end() ? std::string() : it->second;
}

} // namespace ws::inject::cupti

// SPDX-License-Identifier: MIT
#include "activitycapture.h"

#include <cupti.h>

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ws::inject::cupti {

namespace {

// Tabs and line ends would break the manifest's lines; activityreplay.cpp undoes this.
std::string escaped(const std::string& s)
{
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

} // namespace

std::string LiveActivityNames::text(const char* cuptiString)
{
    return cuptiString ? std::string(cuptiString) : std::string();
}

std::string LiveActivityNames::apiName(bool driver, uint32_t cbid)
{
    const char* name = nullptr;
    cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name);
    return name ? std::string(name) : std::string();
}

std::string LiveActivityNames::threadName(int64_t tid)
{
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

ActivityCapture* ActivityCapture::fromEnvironment(const std::string& rawDir, uint32_t cuptiVersion)
{
    const char* v = std::getenv("WS_CUPTI_CAPTURE");
    if (!v || !*v || std::string(v) == "0")
        return nullptr;
    const std::string base = std::string(v) == "1" ? rawDir : std::string(v);
    if (base.empty())
        return nullptr;
    mkdir(base.c_str(), 0755);
    const std::string dir = base + "/ws-" + std::to_string(getpid()) + ".cupti";
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        return nullptr;
    std::FILE* f = std::fopen((dir + "/manifest.tsv").c_str(), "w");
    if (!f)
        return nullptr;
    auto* c = new ActivityCapture(dir, f); // leaked like the Recorder: CUPTI may call in late
    c->line("# warpscope CUPTI activity capture (WS_CUPTI_CAPTURE, docs/recorder.md)");
    c->line("format\t1");
    c->line("pid\t" + std::to_string(c->m_pid));
    c->line("cupti_version\t" + std::to_string(cuptiVersion));
    c->line("cupti_api_version\t" + std::to_string(CUPTI_API_VERSION));
    for (const auto& r : kRecordVersions)
        c->line("struct\t" + std::string(r.kindName) + "\t" + std::to_string(static_cast<int>(r.kind)) + "\t"
            + r.structName + "\t" + std::to_string(r.structSize));
    std::fflush(f);
    return c;
}

ActivityCapture::ActivityCapture(std::string dir, std::FILE* manifest)
    : m_dir(std::move(dir))
    , m_manifest(manifest)
    , m_pid(getpid())
{
}

void ActivityCapture::line(const std::string& text)
{
    std::fputs(text.c_str(), m_manifest);
    std::fputc('\n', m_manifest);
}

void ActivityCapture::addBuffer(
    const uint8_t* buffer, size_t validSize, const std::vector<std::pair<uint32_t, uint32_t>>& records)
{
    std::lock_guard lock(m_mutex);
    if (getpid() != m_pid)
        return; // a forked child: its buffers are not this capture's
    char name[32];
    std::snprintf(name, sizeof(name), "buffer-%04u.bin", m_buffers);
    if (std::FILE* b = std::fopen((m_dir + "/" + name).c_str(), "wb")) {
        std::fwrite(buffer, 1, validSize, b);
        std::fclose(b);
    }
    std::string r = "records\t" + std::to_string(m_buffers) + "\t";
    for (size_t i = 0; i < records.size(); ++i)
        r += (i ? " " : "") + std::to_string(records[i].first) + ":" + std::to_string(records[i].second);
    line("buffer\t" + std::to_string(m_buffers) + "\t" + std::to_string(validSize) + "\t" + name + "\t"
        + std::to_string(records.size()));
    line(r);
    std::fflush(m_manifest);
    ++m_buffers;
}

std::string ActivityCapture::text(const char* cuptiString)
{
    std::string t = m_live.text(cuptiString);
    std::lock_guard lock(m_mutex);
    if (cuptiString && m_strings.insert(cuptiString).second) {
        char ptr[32];
        std::snprintf(ptr, sizeof(ptr), "%" PRIxPTR, reinterpret_cast<uintptr_t>(cuptiString));
        line(std::string("string\t") + ptr + "\t" + escaped(t));
    }
    return t;
}

std::string ActivityCapture::apiName(bool driver, uint32_t cbid)
{
    std::string n = m_live.apiName(driver, cbid);
    std::lock_guard lock(m_mutex);
    line(std::string("api\t") + (driver ? "driver" : "runtime") + "\t" + std::to_string(cbid) + "\t" + escaped(n));
    return n;
}

std::string ActivityCapture::threadName(int64_t tid)
{
    std::string n = m_live.threadName(tid);
    std::lock_guard lock(m_mutex);
    line("thread\t" + std::to_string(tid) + "\t" + escaped(n));
    return n;
}

} // namespace ws::inject::cupti

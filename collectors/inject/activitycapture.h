// SPDX-License-Identifier: MIT
#pragma once

#include "activityconverter.h"

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ws::inject::cupti {

// Inside the traced process: kernel names are CUPTI's strings themselves, API names come from
// cuptiGetCallbackName, thread names from /proc.
class LiveActivityNames : public ActivityNames {
public:
    std::string text(const char* cuptiString) override;
    std::string apiName(bool driver, uint32_t cbid) override;
    std::string threadName(int64_t tid) override;
};

// WS_CUPTI_CAPTURE (docs/recorder.md): the exact bytes CUPTI handed to bufferCompleted, with
// everything a replay needs to run them through ActivityConverter without CUPTI (record offsets
// and kinds, the struct versions read, the strings, API and thread names the records refer to).
// Writes <dir>/ws-<pid>.cupti/: manifest.tsv (text, one fact a line) and buffer-<n>.bin. A
// replay reads it with CapturedActivity (activityreplay.h).
class ActivityCapture : public ActivityNames {
public:
    // The capture of this process, or nullptr when the variable is unset or the directory
    // cannot be made. "1" puts it into `rawDir`, beside the raw file; another value is a directory.
    static ActivityCapture* fromEnvironment(const std::string& rawDir, uint32_t cuptiVersion);

    // One completed buffer: its valid bytes and the (offset, kind) of each record in it, as
    // cuptiActivityGetNextRecord walked them. The names the records used were recorded by the
    // ActivityNames calls of its conversion, which precede this call.
    void addBuffer(const uint8_t* buffer, size_t validSize, const std::vector<std::pair<uint32_t, uint32_t>>& records);

    // ActivityNames: answers from LiveActivityNames, writing each new answer to the manifest.
    std::string text(const char* cuptiString) override;
    std::string apiName(bool driver, uint32_t cbid) override;
    std::string threadName(int64_t tid) override;

private:
    ActivityCapture(std::string dir, std::FILE* manifest);
    void line(const std::string& text);

    std::string m_dir;
    std::FILE* m_manifest;
    std::mutex m_mutex;
    LiveActivityNames m_live;
    std::unordered_set<const char*> m_strings;
    uint32_t m_buffers = 0;
    int64_t m_pid = 0;
};

} // namespace ws::inject::cupti

// SPDX-License-Identifier: MIT
#pragma once

#include "activityconverter.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ws::inject::cupti {

// A capture written by ActivityCapture (WS_CUPTI_CAPTURE): CUPTI's activity buffers as they
// were completed, and the names their records refer to. replay() runs every buffer through
// ActivityConverter exactly as the recorder did, without CUPTI, a driver or a GPU.
class CapturedActivity : public ActivityNames {
public:
    // Reads <dir>/manifest.tsv and its buffer files. Throws std::runtime_error naming the file
    // and the problem (missing or short buffer, a record outside its buffer, a record version
    // this build reads differently from the one captured).
    static CapturedActivity read(const std::string& dir);

    struct Buffer {
        std::vector<uint64_t> storage; // the valid bytes, 8-byte aligned as CUPTI's buffers are
        size_t validSize = 0;
        std::vector<std::pair<uint32_t, uint32_t>> records; // (offset, kind) in CUPTI's order
        const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(storage.data()); }
    };
    const std::vector<Buffer>& buffers() const { return m_buffers; }
    uint32_t cuptiVersion() const { return m_cuptiVersion; }
    int64_t pid() const { return m_pid; }
    // Records of each kind over all buffers.
    std::map<uint32_t, size_t> recordCounts() const;

    // Converts every buffer, in order, with one cache (as the recorder's writer thread does).
    // Returns the number of frames converted.
    uint64_t replay(RawWriter& writer) const;

    std::string text(const char* cuptiString) override;
    std::string apiName(bool driver, uint32_t cbid) override;
    std::string threadName(int64_t tid) override;

private:
    std::vector<Buffer> m_buffers;
    std::map<uintptr_t, std::string> m_strings;
    std::map<std::pair<bool, uint32_t>, std::string> m_apiNames;
    std::map<int64_t, std::string> m_threadNames;
    uint32_t m_cuptiVersion = 0;
    int64_t m_pid = 0;
};

} // namespace ws::inject::cupti

// SPDX-License-Identifier: MIT
#pragma once

#include "core/raw/rawformat.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ws::inject {

// The process's raw record file. Any thread may add frames (NVTX calls arrive on application
// threads); they collect in a pending buffer that only the recorder's writer thread (or the
// exit handler) writes out, so application threads never block on disk I/O.
class RawWriter {
public:
    // Creates <dir>/ws-<pid>.raw and writes the file header. False (with errno set) on failure.
    bool open(const std::string& dir);
    bool isOpen() const { return m_fd >= 0; }
    const std::string& path() const { return m_path; }

    template <typename Payload> void add(raw::RecordType type, const Payload& payload, std::string_view trailing = {})
    {
        std::lock_guard lock(m_mutex);
        raw::appendFrame(m_pending, type, payload, trailing);
        ++m_frames;
    }

    // Id of `s` in this file's string table; the first use writes its definition. 0 for "".
    uint32_t intern(std::string_view s);

    // Frames prepared elsewhere (a converted CUPTI buffer), counted as `frames` frames.
    void addPrepared(std::string_view frames, uint64_t count);

    // Writes everything pending. Called by one thread at a time (writer thread or exit path).
    void writeOut();
    // Writes the End record and closes the file; later adds are discarded.
    void close(uint64_t droppedRecords);

    size_t pendingBytes();
    uint64_t frames() const { return m_frames.load(); }

private:
    bool writeAll(const char* data, size_t size);

    std::mutex m_mutex;
    std::string m_pending;
    std::unordered_map<std::string, uint32_t> m_strings;
    std::atomic<uint64_t> m_frames {0};
    int m_fd = -1;
    bool m_writeFailed = false;
    std::string m_path;
};

} // namespace ws::inject

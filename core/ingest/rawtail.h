// SPDX-License-Identifier: MIT
#pragma once

#include "core/raw/rawreader.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ws {

// Follows one raw record file while its process still appends to it (raw files are written
// with append-only write(2) calls, see raw/rawformat.h): each read() returns the frames that
// became complete since the last one. A frame cut by the current end of the file waits for
// the next read(). The recorder's launcher reads this way while the program runs, so that the
// post-run wait only covers what was written last.
class RawTail {
public:
    explicit RawTail(std::string path);
    ~RawTail();
    RawTail(const RawTail&) = delete;
    RawTail& operator=(const RawTail&) = delete;

    // The frames completed since the last call; their payloads stay valid until the next call.
    // Throws raw::RawError for what RawFile::load would refuse (bad magic, newer version, a
    // corrupt frame size); an incomplete header just waits.
    const std::vector<raw::RawFrame>& read();

    const std::string& path() const { return m_path; }
    bool hasHeader() const { return m_hasHeader; }
    const raw::FileHeader& header() const { return m_header; }
    // Bytes of the file read so far, and of them the incomplete last frame (a process that
    // died mid-write leaves it; at the end of a recording it is what RawFile reports truncated).
    size_t bytesRead() const { return m_bytesRead; }
    size_t pendingBytes() const { return m_buffer.size() - m_consumed; }

private:
    std::string m_path;
    int m_fd = -1;
    std::string m_buffer; // unconsumed bytes, from m_consumed on
    size_t m_consumed = 0;
    size_t m_bytesRead = 0;
    bool m_hasHeader = false;
    raw::FileHeader m_header {};
    std::vector<raw::RawFrame> m_frames;
};

} // namespace ws

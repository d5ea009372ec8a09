// SPDX-License-Identifier: MIT
#pragma once

#include "core/raw/rawformat.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ws::raw {

// A raw file that cannot be read at all (missing, not a raw file, written by a newer format).
// The message names the file.
class RawError : public std::runtime_error {
public:
    RawError(const std::string& path, const std::string& reason)
        : std::runtime_error(path + ": " + reason)
    {
    }
};

struct RawFrame {
    RecordType type;
    std::string_view payload; // points into the RawFile that produced it
};

// One raw file loaded into memory and split into frames. A truncated last frame (the process
// died while writing it) is not an error: the frames before it are kept and truncatedBytes()
// says how much was cut off.
class RawFile {
public:
    static RawFile load(const std::string& path);                  // throws RawError
    static RawFile fromBytes(std::string bytes, std::string name); // throws RawError

    const std::string& path() const { return m_path; }
    const FileHeader& header() const { return m_header; }
    const std::vector<RawFrame>& frames() const { return m_frames; }
    size_t truncatedBytes() const { return m_truncatedBytes; }
    size_t sizeBytes() const { return m_data.size(); }

    RawFile(RawFile&&) noexcept = default;
    RawFile& operator=(RawFile&&) noexcept = default;
    RawFile(const RawFile&) = delete;
    RawFile& operator=(const RawFile&) = delete;

private:
    RawFile() = default;
    void parse();

    std::string m_path;
    std::string m_data;
    FileHeader m_header {};
    std::vector<RawFrame> m_frames;
    size_t m_truncatedBytes = 0;
};

} // namespace ws::raw

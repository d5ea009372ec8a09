// SPDX-License-Identifier: MIT
#include "core/raw/rawreader.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ws::raw {

RawFile RawFile::load(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw RawError(path, std::string("cannot open raw record file: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        throw RawError(path, "read error");
    return fromBytes(std::move(ss).str(), path);
}

RawFile RawFile::fromBytes(std::string bytes, std::string name)
{
    RawFile f;
    f.m_path = std::move(name);
    f.m_data = std::move(bytes);
    f.parse();
    return f;
}

void RawFile::parse()
{
    if (m_data.size() < sizeof(kMagic) || std::memcmp(m_data.data(), kMagic, sizeof(kMagic)) != 0)
        throw RawError(m_path, "not a Warpscope raw record file (bad magic)");
    // The header itself may be cut short only if the process died within its first write.
    if (m_data.size() < offsetof(FileHeader, pid) + sizeof(int64_t))
        throw RawError(m_path, "raw record file is truncated inside its header");
    FileHeader h {};
    std::memcpy(&h, m_data.data(), std::min(m_data.size(), sizeof(FileHeader)));
    if (h.version > kFormatVersion)
        throw RawError(m_path,
            "raw record format version " + std::to_string(h.version) + " is newer than this Warpscope understands ("
                + std::to_string(kFormatVersion) + ")");
    if (h.headerSize < offsetof(FileHeader, pid) + sizeof(int64_t) || h.headerSize > 4096)
        throw RawError(m_path, "raw record file has an invalid header size " + std::to_string(h.headerSize));
    if (m_data.size() < h.headerSize)
        throw RawError(m_path, "raw record file is truncated inside its header");
    m_header = h;

    const std::string_view all(m_data);
    size_t pos = h.headerSize;
    while (pos < all.size()) {
        if (all.size() - pos < sizeof(FrameHeader)) {
            m_truncatedBytes = all.size() - pos;
            break;
        }
        FrameHeader fh {};
        std::memcpy(&fh, all.data() + pos, sizeof(fh));
        if (fh.size > kMaxFramePayload)
            throw RawError(m_path,
                "corrupt frame at byte " + std::to_string(pos) + ": payload size " + std::to_string(fh.size)
                    + " exceeds the limit");
        if (all.size() - pos - sizeof(FrameHeader) < fh.size) {
            m_truncatedBytes = all.size() - pos;
            break;
        }
        m_frames.push_back({static_cast<RecordType>(fh.type), all.substr(pos + sizeof(FrameHeader), fh.size)});
        pos += sizeof(FrameHeader) + fh.size;
    }
}

} // namespace ws::raw

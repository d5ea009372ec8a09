// SPDX-License-Identifier: MIT
#include "core/ingest/rawtail.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ws {

RawTail::RawTail(std::string path)
    : m_path(std::move(path))
{
}

RawTail::~RawTail()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

const std::vector<raw::RawFrame>& RawTail::read()
{
    using namespace raw;
    m_frames.clear();
    // Drop what the previous call handed out; keep the incomplete rest at the front.
    m_buffer.erase(0, m_consumed);
    m_consumed = 0;
    if (m_fd < 0) {
        m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
        if (m_fd < 0)
            throw RawError(m_path, std::string("cannot open raw record file: ") + std::strerror(errno));
    }
    // Everything appended so far: the size fstat reports, then whatever more one read returns.
    struct stat st { };
    const size_t known = ::fstat(m_fd, &st) == 0 && static_cast<size_t>(st.st_size) > m_bytesRead
        ? static_cast<size_t>(st.st_size) - m_bytesRead
        : 0;
    for (size_t want = std::max<size_t>(known, 65536);;) {
        const size_t old = m_buffer.size();
        m_buffer.resize(old + want);
        const ssize_t n = ::pread(m_fd, m_buffer.data() + old, want, static_cast<off_t>(m_bytesRead));
        m_buffer.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        m_bytesRead += static_cast<size_t>(n);
        want = 65536;
    }

    const std::string_view all(m_buffer);
    size_t pos = 0;
    if (!m_hasHeader) {
        if (all.size() >= sizeof(kMagic) && std::memcmp(all.data(), kMagic, sizeof(kMagic)) != 0)
            throw RawError(m_path, "not a Warpscope raw record file (bad magic)");
        if (all.size() < offsetof(FileHeader, pid) + sizeof(int64_t))
            return m_frames;
        FileHeader h {};
        std::memcpy(&h, all.data(), std::min(all.size(), sizeof(FileHeader)));
        if (h.version > kFormatVersion)
            throw RawError(m_path,
                "raw record format version " + std::to_string(h.version) + " is newer than this Warpscope understands");
        if (h.headerSize < offsetof(FileHeader, pid) + sizeof(int64_t) || h.headerSize > 4096)
            throw RawError(m_path, "raw record file has an invalid header size " + std::to_string(h.headerSize));
        if (all.size() < h.headerSize)
            return m_frames;
        m_header = h;
        m_hasHeader = true;
        pos = h.headerSize;
    }
    while (all.size() - pos >= sizeof(FrameHeader)) {
        FrameHeader fh {};
        std::memcpy(&fh, all.data() + pos, sizeof(fh));
        if (fh.size > kMaxFramePayload)
            throw RawError(m_path,
                "corrupt frame at byte " + std::to_string(m_bytesRead - all.size() + pos) + ": payload size "
                    + std::to_string(fh.size) + " exceeds the limit");
        if (all.size() - pos - sizeof(FrameHeader) < fh.size)
            break;
        m_frames.push_back({static_cast<RecordType>(fh.type), all.substr(pos + sizeof(FrameHeader), fh.size)});
        pos += sizeof(FrameHeader) + fh.size;
    }
    m_consumed = pos;
    return m_frames;
}

} // namespace ws

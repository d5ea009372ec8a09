// SPDX-License-Identifier: MIT
#include "rawwriter.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <ctime>
#include <fcntl.h>
#include <iterator>
#include <unistd.h>

namespace ws::inject {

namespace {

int64_t nowNs(clockid_t clock)
{
    timespec ts {};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

} // namespace

bool RawWriter::open(const std::string& dir)
{
    const std::string base = dir + "/" + std::string(raw::kFilePrefix) + std::to_string(getpid());
    // O_EXCL: a reused pid within one recording gets its own file instead of clobbering one.
    for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
        m_path = base + (attempt ? "." + std::to_string(attempt) : std::string()) + std::string(raw::kFileSuffix);
        m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (m_fd < 0 && errno != EEXIST)
            return false;
    }
    if (m_fd < 0)
        return false;

    raw::FileHeader h {};
    std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(raw::FileHeader);
    h.pid = getpid();
    h.parentPid = getppid();
    // The (realtime, monotonic) anchor: the pair read closest together of a few tries.
    int64_t bestGap = INT64_MAX;
    for (int i = 0; i < 5; ++i) {
        const int64_t m0 = nowNs(CLOCK_MONOTONIC);
        const int64_t r = nowNs(CLOCK_REALTIME);
        const int64_t m1 = nowNs(CLOCK_MONOTONIC);
        if (m1 - m0 < bestGap) {
            bestGap = m1 - m0;
            h.anchorRealtimeNs = r;
            h.anchorMonotonicNs = m0 + (m1 - m0) / 2;
        }
    }
    return writeAll(reinterpret_cast<const char*>(&h), sizeof(h));
}

uint32_t RawWriter::intern(std::string_view s)
{
    if (s.empty())
        return 0;
    std::lock_guard lock(m_mutex);
    auto [it, inserted] = m_strings.try_emplace(std::string(s), static_cast<uint32_t>(m_strings.size() + 1));
    if (inserted) {
        raw::StringDef def {it->second, 0};
        raw::appendFrame(m_pending, raw::RecordType::String, def, s);
        ++m_frames;
    }
    return it->second;
}

void RawWriter::addPrepared(std::string_view frames, uint64_t count)
{
    std::lock_guard lock(m_mutex);
    m_pending.append(frames);
    m_frames += count;
}

size_t RawWriter::pendingBytes()
{
    std::lock_guard lock(m_mutex);
    return m_pending.size();
}

void RawWriter::writeOut()
{
    std::string out;
    {
        std::lock_guard lock(m_mutex);
        out.swap(m_pending);
        // Keep the capacity on the producer side so steady-state appends do not reallocate.
        m_pending.reserve(out.capacity());
    }
    if (!out.empty() && m_fd >= 0)
        writeAll(out.data(), out.size());
}

void RawWriter::close(uint64_t droppedRecords)
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    raw::EndRecord end {};
    end.ts = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    end.droppedRecords = droppedRecords;
    end.frames = m_frames.load();
    add(raw::RecordType::End, end);
    writeOut();
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

bool RawWriter::writeAll(const char* data, size_t size)
{
    while (size > 0 && !m_writeFailed) {
        const ssize_t n = ::write(m_fd, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            // Disk full or similar: stop writing rather than emit a torn stream; the launcher
            // sees the missing End record and reports it.
            m_writeFailed = true;
            return false;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return !m_writeFailed;
}

} // namespace ws::inject

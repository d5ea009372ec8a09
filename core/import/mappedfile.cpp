// SPDX-License-Identifier: MIT
#include "core/import/mappedfile.h"

#include "core/store/sessionerror.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older headers lack it, older kernels refuse it (EINVAL)
#endif

namespace ws {

MappedFile::MappedFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw SessionError(SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st { };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        ::close(fd);
        return;
    }
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    m_size = static_cast<size_t>(st.st_size);
    // Reserve one page more than the file and map the file over the start: the reserved tail is
    // anonymous zero memory, which terminates the text even when the size is a page multiple.
    m_mapped = (m_size / page + 1) * page;
    void* region = ::mmap(nullptr, m_mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        ::close(fd);
        m_size = m_mapped = 0;
        return;
    }
    void* file = ::mmap(region, m_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
    ::close(fd);
    if (file == MAP_FAILED) {
        ::munmap(region, m_mapped);
        m_size = m_mapped = 0;
        return;
    }
    ::madvise(file, m_size, MADV_SEQUENTIAL);
    m_data = static_cast<char*>(file);
}

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(m_data, m_mapped);
}

void MappedFile::advance(size_t offset)
{
    if (!m_data)
        return;
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    // Keep the page the parser is in; everything before it is done with.
    const size_t end = offset > page ? (offset - page) / page * page : 0;
    if (end > m_released) {
        ::madvise(m_data + m_released, end - m_released, MADV_DONTNEED);
        m_released = end;
    }
    // Ahead of the parser by more than it reads between two calls (16K events, a few MB).
    constexpr size_t kAhead = size_t(16) << 20;
    const size_t from = std::max(m_prepared, end);
    const size_t to = std::min(m_size, (offset + kAhead) / page * page);
    if (to <= from)
        return;
    if (::madvise(m_data + from, to - from, MADV_POPULATE_WRITE) != 0) {
        // Before Linux 5.14: a locked read-modify-write faults as a write, so it copies the page
        // at once without changing a byte.
        for (size_t at = from; at < to; at += page)
            __atomic_fetch_or(m_data + at, char(0), __ATOMIC_RELAXED);
    }
    m_prepared = to;
}

} // namespace ws

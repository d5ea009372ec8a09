// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>

namespace ws {

// A file mapped copy-on-write for in-place parsing: the parser may overwrite the text (RapidJSON
// decodes strings in situ), the file itself never changes. The mapping ends with a zero byte.
// Parsed-over parts are handed back with release(), so resident memory stays a few megabytes
// however large the file is.
class MappedFile {
public:
    // Throws SessionError(NotFound) when the file cannot be opened; isMapped() is false when it
    // is not a regular file or cannot be mapped (callers fall back to reading it).
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    bool isMapped() const { return m_data != nullptr; }
    char* data() const { return m_data; } // size() bytes, then a 0
    size_t size() const { return m_size; }

    // Drops the pages wholly before `offset` from memory (they are not read again).
    void release(size_t offset);

private:
    char* m_data = nullptr;
    size_t m_size = 0;
    size_t m_mapped = 0;
    size_t m_released = 0;
};

} // namespace ws

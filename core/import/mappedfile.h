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

    // The parser is at `offset`: drops the pages wholly before it from memory (they are not
    // read again) and faults the next few megabytes in as private, writable copies.
    //
    // Why fault ahead: an in-situ parser first reads a page (mapped read-only from the page
    // cache), then writes into it, and the copy-on-write must flush the old mapping from every
    // CPU the process runs on. With a second thread busy on the other core (importIntoSession's
    // row writer) that is an inter-processor interrupt per page, a VM exit on a virtual machine:
    // it cost a third more CPU than the whole parse. Faulting a page in writable first copies it
    // at once, with nothing to flush.
    void advance(size_t offset);

private:
    char* m_data = nullptr;
    size_t m_size = 0;
    size_t m_mapped = 0;
    size_t m_released = 0;
    size_t m_prepared = 0; // pages before this are already writable copies
};

} // namespace ws

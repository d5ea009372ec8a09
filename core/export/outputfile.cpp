// SPDX-License-Identifier: MIT
#include "core/export/outputfile.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

namespace ws {

namespace {
[[noreturn]] void fail(const std::string& path, const std::string& reason)
{
    throw std::runtime_error(path + ": " + reason);
}
} // namespace

OutputFile::OutputFile(std::string path)
    : m_path(std::move(path))
{
    if (m_path == "-")
        return;
    if (m_path.empty())
        fail(m_path, "empty output path");
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(m_path, ec))
        fail(m_path, "is a directory");
    m_tempPath = m_path + ".tmp-" + std::to_string(::getpid());
    m_file.open(m_tempPath, std::ios::binary | std::ios::trunc);
    if (!m_file) {
        // Report the reason for the directory the user named, not our temp name.
        fail(m_path, std::string("cannot create: ") + std::strerror(errno));
    }
}

OutputFile::~OutputFile()
{
    if (!m_committed && !m_tempPath.empty()) {
        m_file.close();
        std::error_code ec;
        std::filesystem::remove(m_tempPath, ec);
    }
}

std::ostream& OutputFile::stream()
{
    if (m_path == "-")
        return std::cout;
    return m_file;
}

void OutputFile::commit()
{
    if (m_path == "-") {
        std::cout.flush();
        if (!std::cout)
            fail("<stdout>", "write failed");
        m_committed = true;
        return;
    }
    m_file.flush();
    if (!m_file)
        fail(m_path, std::string("write failed: ") + std::strerror(errno));
    m_file.close();
    if (!m_file)
        fail(m_path, std::string("write failed: ") + std::strerror(errno));
    std::error_code ec;
    std::filesystem::rename(m_tempPath, m_path, ec);
    if (ec)
        fail(m_path, "cannot rename into place: " + ec.message());
    m_committed = true;
}

void OutputFile::ensureNotSameFile(const std::string& output, const std::string& input)
{
    std::error_code ec;
    if (output != "-" && std::filesystem::equivalent(output, input, ec))
        fail(output, "is the session being read; choose another output");
}

} // namespace ws

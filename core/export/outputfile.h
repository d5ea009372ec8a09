// SPDX-License-Identifier: MIT
#pragma once

#include <fstream>
#include <ostream>
#include <string>

namespace ws {

// An export target written atomically: the data goes to "<path>.tmp-<pid>" and commit()
// renames it over <path>, so a failed or interrupted export never leaves a truncated file
// that looks complete. Destroying without commit() removes the temp file. The path "-"
// means standard output (nothing to rename). Failures throw std::runtime_error whose
// message is "<path>: <reason>", ready for the CLI's one-line error.
class OutputFile {
public:
    explicit OutputFile(std::string path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    std::ostream& stream();
    void commit();

    const std::string& path() const { return m_path; }

    // Refuses to write over `input` (the session being exported): same file, not same name.
    static void ensureNotSameFile(const std::string& output, const std::string& input);

private:
    std::string m_path;
    std::string m_tempPath;
    std::ofstream m_file;
    bool m_committed = false;
};

} // namespace ws

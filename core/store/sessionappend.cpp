// SPDX-License-Identifier: MIT
#include "core/store/sessionappend.h"

#include "core/store/sessionerror.h"
#include "core/store/sessionmerge.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ws {

void checkAppendable(const std::string& path)
{
    const SessionReader reader(path); // throws SessionError naming the file
    reader.readRuns();
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw SessionError(SessionError::Kind::WriteFailed, path,
            "cannot append a run: the directory " + dir.string() + " is not writable (" + std::strerror(errno) + ")");
}

AppendResult appendRun(
    const std::string& path, const SessionData& run, const std::function<void(SessionWriter&)>& prepare)
{
    AppendResult result;
    SessionData merged = mergeSessions(SessionReader(path).readAll(), run, &result.warnings);
    result.runs = merged.runs.size();
    result.links = merged.kernelLinks.size();
    result.runId = std::max_element(merged.runs.begin(), merged.runs.end(), [](const RunInfo& a, const RunInfo& b) {
        return a.id < b.id;
    })->id;
    SessionWriter writer(path);
    if (prepare)
        prepare(writer);
    writer.write(merged);
    writer.commit();
    return result;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include "core/ingest/rawingest.h"
#include "core/store/sessionwriter.h"

#include <memory>
#include <string>

namespace ws {

// A new session (`record -o FILE`) written while the program still runs: the big event tables
// (kernels, copies, memsets, API calls) take the rows RawIngest::settle() hands out, so that
// after the exit only the rows of the last seconds, the small tables and the lane cache remain
// (issue 20 item 4b). complete() checks with RawIngest that those rows are the session's first
// rows; when not (a record arrived late), nothing is committed and the caller writes the session
// from the finished data as before.
class LiveSessionWriter {
public:
    explicit LiveSessionWriter(std::string output);
    ~LiveSessionWriter();

    // Appends what settled before `horizon`. Never throws: a failed write just gives up.
    void take(RawIngest& ingest, TimeNs horizon);
    // After ingest.finish() gave `data`: writes the rest and commits. False (nothing committed,
    // the temporary file removed) when the early rows do not hold or a write failed.
    bool complete(const RawIngest& ingest, const SessionData& data);

    size_t rowsWrittenEarly() const { return m_kernels + m_memcpys + m_memsets + m_apiCalls; }

private:
    std::string m_output;
    std::unique_ptr<SessionWriter> m_writer;
    bool m_failed = false;
    size_t m_kernels = 0, m_memcpys = 0, m_memsets = 0, m_apiCalls = 0;
};

} // namespace ws

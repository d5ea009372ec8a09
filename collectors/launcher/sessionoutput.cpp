// SPDX-License-Identifier: MIT
#include "launcher/sessionoutput.h"

#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <algorithm>

#include <exception>
#include <stdexcept>

namespace ws {

void SessionOutput::check(const std::string& usage) const
{
    if (!output.empty() && !append.empty())
        throw std::runtime_error("-o " + output + " and --append " + append
            + " are exclusive: -o writes a new session, --append adds a run to an existing one");
    if (output.empty() && append.empty())
        throw std::runtime_error("no session given: " + usage);
    if (!append.empty())
        checkAppendable(append);
}

AppendResult SessionOutput::write(const SessionData& data) const
{
    if (appending())
        return appendRun(append, data, [](SessionWriter& w) { attachLaneCache(w); });
    SessionWriter writer(output);
    attachLaneCache(writer);
    writer.write(data);
    writer.commit();
    AppendResult r;
    r.runId = data.runs.empty() ? 1 : data.runs.front().id;
    r.runs = std::max<size_t>(1, data.runs.size());
    r.links = data.kernelLinks.size();
    return r;
}

std::string SessionOutput::appendFailed(const RunInfo& run) const
{
    if (!appending())
        return {};
    try {
        SessionData data;
        data.runs = {run};
        appendRun(append, data, [](SessionWriter& w) { attachLaneCache(w); });
        return {};
    } catch (const std::exception& e) {
        return std::string("the failed run could not be recorded in the session either: ") + e.what();
    }
}

} // namespace ws

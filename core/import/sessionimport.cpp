// SPDX-License-Identifier: MIT
#include "core/import/sessionimport.h"

#include "core/import/backgroundrangewriter.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <memory>

namespace ws {

namespace {

std::unique_ptr<SessionWriter> newWriter(const std::string& output)
{
    auto writer = std::make_unique<SessionWriter>(output);
    attachLaneCache(*writer);
    return writer;
}

} // namespace

SessionImport importIntoSession(
    const std::string& path, ImportFormat format, const ImportOptions& options, const std::string& output)
{
    SessionImport result;
    std::unique_ptr<SessionWriter> writer = newWriter(output);
    bool discarded = false;
    {
        BackgroundRangeWriter ranges(*writer);
        ImportOptions streaming = options;
        streaming.nvtxSink = &ranges;
        // importSession, not the importer alone: a gzip file (tensorboard's *.pt.trace.json.gz) is
        // inflated first, and the format is detected inside it.
        result.data = importSession(path, format, streaming, &result.format);
        discarded = ranges.discarded();
        if (!discarded)
            ranges.finish();
        result.nvtxRangesStreamed = ranges.rangesTaken();
        result.nvtxRanges = result.nvtxRangesStreamed + result.data.nvtxRanges.size();
    }
    if (discarded) {
        // The old writer's temporary file goes first: the new one takes the same name.
        writer.reset();
        writer = newWriter(output);
    }
    if (options.progress)
        options.progress(1.0, "writing session");
    writer->write(result.data);
    if (options.cancel.isCancelled())
        throw SessionError(SessionError::Kind::Cancelled, path, "import cancelled");
    writer->commit();
    return result;
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "launcher/livesessionwriter.h"

#include "core/timeline/lanebuilder.h"

#include <span>

namespace ws {

LiveSessionWriter::LiveSessionWriter(std::string output)
    : m_output(std::move(output))
{
}

LiveSessionWriter::~LiveSessionWriter() = default;

void LiveSessionWriter::take(RawIngest& ingest, TimeNs horizon)
{
    if (m_failed)
        return;
    try {
        const RawIngest::Settled rows = ingest.settle(horizon);
        if (rows.empty())
            return;
        if (!m_writer) {
            m_writer = std::make_unique<SessionWriter>(m_output);
            attachLaneCache(*m_writer);
        }
        m_writer->appendKernels(rows.kernels);
        m_writer->appendMemcpys(rows.memcpys);
        m_writer->appendMemsets(rows.memsets);
        m_writer->appendApiCalls(rows.apiCalls);
        m_kernels += rows.kernels.size();
        m_memcpys += rows.memcpys.size();
        m_memsets += rows.memsets.size();
        m_apiCalls += rows.apiCalls.size();
    } catch (const std::exception&) {
        m_failed = true; // complete() says no; the session is written after the exit instead
        m_writer.reset();
    }
}

bool LiveSessionWriter::complete(const RawIngest& ingest, const SessionData& data)
{
    // Only what SessionWriter::write() would store from a recording: tables a recording never
    // fills (SASS, source counters) send it down the usual path.
    const bool usable = m_writer && !m_failed && ingest.settledRowsHold() && data.sassInstructions.empty()
        && data.sourceCounters.empty() && m_kernels <= data.kernels.size() && m_memcpys <= data.memcpys.size()
        && m_memsets <= data.memsets.size() && m_apiCalls <= data.apiCalls.size();
    if (!usable) {
        m_writer.reset(); // removes its temporary file before anyone writes the session again
        return false;
    }
    try {
        const auto rest = [](const auto& v, size_t written) { return std::span(v).subspan(written); };
        m_writer->writeHeaderTables(data);
        m_writer->appendKernels(rest(data.kernels, m_kernels));
        m_writer->appendMemcpys(rest(data.memcpys, m_memcpys));
        m_writer->appendMemsets(rest(data.memsets, m_memsets));
        m_writer->appendApiCalls(rest(data.apiCalls, m_apiCalls));
        m_writer->appendNvtxRanges(data.nvtxRanges);
        m_writer->appendNvtxMarks(data.nvtxMarks);
        m_writer->appendSyncs(data.syncs);
        m_writer->appendOverheads(data.overheads);
        m_writer->appendWarpEvents(data.warpEvents);
        m_writer->appendCounterSamples(data.counterSamples);
        m_writer->appendBenchSamples(data.benchSamples);
        m_writer->appendKernelMetrics(data.kernelMetrics);
        m_writer->appendKernelLinks(data.kernelLinks);
        m_writer->commit();
        m_writer.reset();
        return true;
    } catch (const std::exception&) {
        m_writer.reset();
        return false;
    }
}

} // namespace ws

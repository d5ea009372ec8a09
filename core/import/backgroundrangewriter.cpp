// SPDX-License-Identifier: MIT
#include "core/import/backgroundrangewriter.h"

#include "core/store/sessionwriter.h"

#include <span>
#include <utility>

namespace ws {

BackgroundRangeWriter::BackgroundRangeWriter(SessionWriter& writer)
    : m_writer(writer)
{
    m_thread = std::thread([this] { run(); });
}

BackgroundRangeWriter::~BackgroundRangeWriter()
{
    stop();
}

void BackgroundRangeWriter::run()
{
    while (auto batch = m_queue.pop()) {
        if (m_abandon.load(std::memory_order_relaxed))
            continue; // drain without writing
        try {
            m_writer.appendNvtxRanges(std::span<const NvtxRangeRecord>(*batch));
        } catch (...) {
            // The parse goes on to its end (a full disk is rare); finish() reports this.
            m_error = std::current_exception();
            m_abandon = true;
            m_queue.close(); // take() no longer waits for room
        }
    }
}

void BackgroundRangeWriter::stop()
{
    m_abandon = true;
    m_queue.close();
    if (m_thread.joinable())
        m_thread.join();
}

void BackgroundRangeWriter::take(std::vector<NvtxRangeRecord>&& ranges)
{
    m_taken += ranges.size();
    m_queue.push(std::move(ranges)); // false only once the thread failed: finish() says why
}

void BackgroundRangeWriter::discard()
{
    stop();
    m_discarded = true;
    m_taken = 0;
}

void BackgroundRangeWriter::finish()
{
    m_queue.close();
    if (m_thread.joinable())
        m_thread.join();
    if (m_error)
        std::rethrow_exception(m_error);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#include "core/ranking/launchtableread.h"

#include "core/analysis/sessionfilesource.h"
#include "core/store/sessionreader.h"

#include <algorithm>
#include <future>
#include <thread>
#include <vector>

namespace ws {

namespace {

// Room for as many launches as ids, up to a bound: ids can be sparse (up to 2^29 in a table of a
// few rows), and the vector grows past the bound when it must.
size_t reserveFor(int64_t ids)
{
    return static_cast<size_t>(std::min<int64_t>(ids, int64_t {1} << 22));
}

} // namespace

KernelLaunchTable readKernelLaunchTable(
    const SessionFileSource& source, const CancellationToken& cancel, unsigned parts)
{
    const SessionReader& reader = source.reader();
    const auto ids = reader.idRange<KernelRecord>();
    if (!ids)
        return KernelLaunchTable::build(source, cancel);
    // Ids are dense in files we write (rowids), so equal id ranges are about equal work.
    const int64_t first = ids->first;
    const int64_t count = ids->second - ids->first + 1;
    if (parts == 0)
        parts = launchTableParts(count);
    if (parts <= 1)
        return KernelLaunchTable::build(source, cancel, reserveFor(count));
    const auto n = static_cast<int64_t>(std::min<uint64_t>(parts, static_cast<uint64_t>(count)));
    std::vector<std::future<KernelLaunchTable>> slices;
    slices.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const SessionReader::IdRange range {first + count * i / n, first + count * (i + 1) / n};
        slices.push_back(std::async(std::launch::async, [&source, &cancel, range, path = reader.path()] {
            const SessionReader own(path);
            const SessionFileSource slice(source, own, range);
            return KernelLaunchTable::build(slice, cancel, reserveFor(range.last - range.first));
        }));
    }
    std::vector<KernelLaunchTable> tables;
    tables.reserve(slices.size());
    std::exception_ptr failure;
    for (auto& s : slices) {
        try {
            tables.push_back(s.get());
        } catch (...) {
            if (!failure)
                failure = std::current_exception();
        }
    }
    if (failure)
        std::rethrow_exception(failure);
    return KernelLaunchTable::merge(std::move(tables));
}

unsigned launchTableParts(int64_t rows)
{
    if (rows < 200'000)
        return 1;
    return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

} // namespace ws

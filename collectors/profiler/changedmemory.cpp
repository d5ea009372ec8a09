// SPDX-License-Identifier: MIT
#include "changedmemory.h"

#include "cuptistatus.h"

#include <algorithm>
#include <cstring>

namespace ws::profiler {

namespace {

// Compared and restored in blocks of this size: small enough that an output written in a few
// places restores little, large enough that the list of changed blocks stays short.
constexpr size_t kBlock = size_t(64) << 10;
// Read back in pieces of this size, so comparing a 4 GiB buffer needs no second 4 GiB copy.
constexpr size_t kPiece = size_t(64) << 20;

} // namespace

bool ChangedMemory::save(std::vector<std::pair<CUdeviceptr, size_t>> regions, std::string& error)
{
    clear();
    for (const auto& [base, bytes] : regions) {
        Region r;
        r.base = base;
        r.bytes = bytes;
        r.saved.resize(bytes);
        const CUresult st = cuMemcpyDtoH(r.saved.data(), base, bytes);
        if (st != CUDA_SUCCESS) {
            error = driverStatus("saving a launch argument's memory", st);
            clear();
            return false;
        }
        m_savedBytes += bytes;
        m_regions.push_back(std::move(r));
    }
    return true;
}

bool ChangedMemory::findChanged(std::string& error)
{
    m_changed.clear();
    std::vector<unsigned char> piece;
    for (const Region& r : m_regions) {
        for (size_t at = 0; at < r.bytes; at += kPiece) {
            const size_t n = std::min(kPiece, r.bytes - at);
            piece.resize(n);
            const CUresult st = cuMemcpyDtoH(piece.data(), r.base + at, n);
            if (st != CUDA_SUCCESS) {
                error = driverStatus("reading back a launch argument's memory", st);
                return false;
            }
            for (size_t b = 0; b < n; b += kBlock) {
                const size_t len = std::min(kBlock, n - b);
                if (std::memcmp(piece.data() + b, r.saved.data() + at + b, len) == 0)
                    continue;
                const CUdeviceptr device = r.base + at + b;
                // Adjacent changed blocks become one copy.
                if (!m_changed.empty() && m_changed.back().device + m_changed.back().bytes == device)
                    m_changed.back().bytes += len;
                else
                    m_changed.push_back({device, r.saved.data() + at + b, len});
            }
        }
    }
    return true;
}

bool ChangedMemory::restoreChanged(std::string& error) const
{
    for (const Range& c : m_changed) {
        const CUresult st = cuMemcpyHtoD(c.device, c.host, c.bytes);
        if (st != CUDA_SUCCESS) {
            error = driverStatus("restoring the memory a pass changed", st);
            return false;
        }
    }
    return true;
}

size_t ChangedMemory::changedBytes() const
{
    size_t n = 0;
    for (const Range& c : m_changed)
        n += c.bytes;
    return n;
}

void ChangedMemory::clear()
{
    m_regions.clear();
    m_changed.clear();
    m_savedBytes = 0;
}

} // namespace ws::profiler

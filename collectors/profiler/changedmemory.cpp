// SPDX-License-Identifier: MIT
#include "changedmemory.h"

#include "comparememoryptx.h"
#include "cuptistatus.h"

#include <algorithm>

namespace ws::profiler {

namespace {

// Compared and restored in blocks of this size: small enough that an output written in a few
// places restores little, large enough that the flags stay few (64 Ki of them for 4 GiB).
constexpr size_t kBlock = size_t(64) << 10;

} // namespace

ChangedMemory::~ChangedMemory()
{
    clear();
    // The module and flags belong to a context that may be gone at exit; the driver frees them
    // with it.
}

bool ChangedMemory::loadKernel(std::string& error)
{
    CUcontext current = nullptr;
    cuCtxGetCurrent(&current);
    if (m_kernel && current == m_ctx && m_loaded == m_compare)
        return true;
    if (m_kernel && current == m_ctx) {
        // Another compare in the same context: the flags stay, the old module is unloaded.
        cuModuleUnload(m_module);
    } else {
        m_flags = 0;
        m_flagCount = 0;
    }
    m_kernel = nullptr;
    m_ctx = current;
    m_loaded = m_compare;
    const bool evictFirst = m_compare == Compare::EvictFirst;
    CUresult r = cuModuleLoadData(&m_module, evictFirst ? kCompareMemoryEvictFirstPtx : kCompareMemoryPtx);
    if (r == CUDA_SUCCESS)
        r = cuModuleGetFunction(&m_kernel, m_module, evictFirst ? "ws_compare_blocks_ef" : "ws_compare_blocks");
    if (r != CUDA_SUCCESS) {
        error = driverStatus("loading the memory-compare kernel", r);
        m_kernel = nullptr;
        return false;
    }
    return true;
}

bool ChangedMemory::save(const std::vector<std::pair<CUdeviceptr, size_t>>& regions, std::string& error)
{
    freeCopies();
    if (!loadKernel(error))
        return false;
    size_t flags = 0;
    for (const auto& [base, bytes] : regions) {
        Region r;
        r.base = base;
        r.bytes = bytes;
        CUresult st = cuMemAlloc(&r.copy, bytes);
        if (st == CUDA_SUCCESS)
            st = cuMemcpyDtoD(r.copy, base, bytes);
        if (st != CUDA_SUCCESS) {
            if (r.copy)
                cuMemFree(r.copy);
            error = driverStatus("copying a launch argument's memory", st);
            freeCopies();
            return false;
        }
        m_savedBytes += bytes;
        flags += (bytes + kBlock - 1) / kBlock;
        m_regions.push_back(r);
    }
    if (flags > m_flagCount) {
        if (m_flags)
            m_outgrownFlags.push_back(m_flags); // saved in the checkpoint just taken: freed after its restore
        m_flags = 0;
        m_flagCount = 0;
        const CUresult st = cuMemAlloc(&m_flags, flags * sizeof(unsigned));
        if (st != CUDA_SUCCESS) {
            error = driverStatus("allocating the compare flags", st);
            freeCopies();
            return false;
        }
        m_flagCount = flags;
    }
    return true;
}

bool ChangedMemory::findChanged(std::string& error)
{
    m_changed.clear();
    size_t flagCount = 0;
    for (const Region& r : m_regions)
        flagCount += (r.bytes + kBlock - 1) / kBlock;
    if (flagCount == 0)
        return true;
    CUresult st = cuMemsetD32(m_flags, 0, flagCount);
    CUdeviceptr flags = m_flags;
    for (const Region& r : m_regions) {
        if (st != CUDA_SUCCESS)
            break;
        // 16-byte loads; a tail that is not a multiple of 16 is restored unconditionally below.
        unsigned long long n = r.bytes / 16, perBlock = kBlock / 16;
        if (n > 0) {
            const unsigned blocks = static_cast<unsigned>(std::min<unsigned long long>((n + 255) / 256, 4096));
            void* args[]
                = {const_cast<CUdeviceptr*>(&r.base), const_cast<CUdeviceptr*>(&r.copy), &n, &perBlock, &flags};
            st = cuLaunchKernel(m_kernel, blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
        }
        flags += ((r.bytes + kBlock - 1) / kBlock) * sizeof(unsigned);
    }
    std::vector<unsigned> host(flagCount);
    if (st == CUDA_SUCCESS)
        st = cuMemcpyDtoH(host.data(), m_flags, flagCount * sizeof(unsigned));
    if (st != CUDA_SUCCESS) {
        error = driverStatus("comparing a launch argument's memory with its copy", st);
        return false;
    }
    size_t f = 0;
    for (size_t ri = 0; ri < m_regions.size(); ++ri) {
        const Region& r = m_regions[ri];
        for (size_t at = 0; at < r.bytes; at += kBlock, ++f) {
            const size_t len = std::min(kBlock, r.bytes - at);
            const bool tail = r.bytes % 16 != 0 && at + len == r.bytes;
            if (!host[f] && !tail)
                continue;
            // Adjacent changed blocks of one region become one copy.
            if (!m_changed.empty() && m_changed.back().region == ri
                && m_changed.back().offset + m_changed.back().bytes == at)
                m_changed.back().bytes += len;
            else
                m_changed.push_back({ri, at, len});
        }
    }
    return true;
}

bool ChangedMemory::restoreChanged(std::string& error) const
{
    std::vector<size_t> regionBytes;
    regionBytes.reserve(m_regions.size());
    for (const Region& r : m_regions)
        regionBytes.push_back(r.bytes);
    for (const RestoreSpan& c : widenToGranules(m_changed, regionBytes, m_granule, kBlock)) {
        const Region& r = m_regions[c.region];
        const CUresult st = cuMemcpyDtoD(r.base + c.offset, r.copy + c.offset, c.bytes);
        if (st != CUDA_SUCCESS) {
            error = driverStatus("restoring the memory a run changed", st);
            return false;
        }
    }
    return true;
}

size_t ChangedMemory::changedBytes() const
{
    size_t n = 0;
    for (const RestoreSpan& c : m_changed)
        n += c.bytes;
    return n;
}

void ChangedMemory::freeCopies()
{
    for (const Region& r : m_regions)
        if (r.copy)
            cuMemFree(r.copy);
    m_regions.clear();
    m_changed.clear();
    m_savedBytes = 0;
}

void ChangedMemory::clear()
{
    freeCopies();
    for (const CUdeviceptr f : m_outgrownFlags)
        cuMemFree(f);
    m_outgrownFlags.clear();
}

} // namespace ws::profiler

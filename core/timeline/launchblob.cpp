// SPDX-License-Identifier: MIT
#include "core/timeline/launchblob.h"

#include "core/util/hash.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>

namespace ws {

LaunchAttributes LaunchAttributes::of(const KernelRecord& k)
{
    LaunchAttributes a;
    a.demangledName = k.demangledName;
    a.mangledName = k.mangledName;
    a.shortName = k.shortName;
    a.runId = k.runId;
    a.shape = KernelShape::of(k);
    return a;
}

void LaunchAttributeLog::add(const KernelRecord& k, int64_t rowid)
{
    if (rowid < 0 || rowid > EventRef::kMaxRowId)
        return;
    const LaunchAttributes a = LaunchAttributes::of(k);
    // Rows arrive in id order and mostly repeat the previous kernel's attributes.
    uint32_t index = m_rows.empty() ? UINT32_MAX : m_rows.back().second;
    if (index == UINT32_MAX || !(m_distinct[index] == a)) {
        const auto [it, added] = m_index.try_emplace(a, static_cast<uint32_t>(m_distinct.size()));
        if (added)
            m_distinct.push_back(a);
        index = it->second;
    }
    m_rows.emplace_back(static_cast<uint32_t>(rowid), index);
}

void LaunchAttributeLog::seal()
{
    if (!std::is_sorted(m_rows.begin(), m_rows.end()))
        std::sort(m_rows.begin(), m_rows.end());
    const bool unique = std::adjacent_find(m_rows.begin(), m_rows.end(), [](const auto& a, const auto& b) {
        return a.first == b.first;
    }) == m_rows.end();
    m_dense = unique && (m_rows.empty() || m_rows.back().first - m_rows.front().first == m_rows.size() - 1);
}

const LaunchAttributes& LaunchAttributeLog::of(int64_t rowid) const
{
    if (m_dense && !m_rows.empty() && rowid >= m_rows.front().first && rowid <= m_rows.back().first)
        return m_distinct[m_rows[static_cast<size_t>(rowid - m_rows.front().first)].second];
    const auto it
        = std::lower_bound(m_rows.begin(), m_rows.end(), std::make_pair(static_cast<uint32_t>(rowid), uint32_t {0}));
    if (it == m_rows.end() || it->first != rowid)
        throw std::logic_error("lane cache: kernel row " + std::to_string(rowid) + " was never stored");
    return m_distinct[it->second];
}

bool LaunchAttributes::operator<(const LaunchAttributes& o) const
{
    const auto tie = [](const LaunchAttributes& a) {
        return std::tuple_cat(std::tie(a.demangledName, a.mangledName, a.shortName, a.runId), a.shape.fields());
    };
    return tie(*this) < tie(o);
}

std::string launchBlobKey(const TimelineLane& lane, size_t chunk)
{
    return std::string(kLaunchBlobKeyPrefix) + std::to_string(lane.pid) + '/' + std::to_string(lane.deviceId) + '/'
        + std::to_string(lane.streamId) + '/' + std::to_string(chunk);
}

std::vector<std::byte> encodeLaunchChunk(const TimelineLane& lane, size_t offset, size_t count,
    const std::function<const LaunchAttributes&(int64_t kernelRowId)>& attributesOf)
{
    std::vector<uint32_t> index(count, kNoLaunchAttributes);
    std::vector<LaunchAttributes> attributes;
    std::map<LaunchAttributes, uint32_t> numbered;
    for (size_t i = 0; i < count; ++i) {
        const EventRef ref = lane.ref[offset + i];
        if (ref.table() != EventTable::Kernel)
            continue;
        const LaunchAttributes& a = attributesOf(ref.rowid());
        // Consecutive kernels of a stream mostly repeat the previous one's attributes.
        if (i > 0 && index[i - 1] != kNoLaunchAttributes && attributes[index[i - 1]] == a) {
            index[i] = index[i - 1];
            continue;
        }
        const auto [it, added] = numbered.try_emplace(a, static_cast<uint32_t>(attributes.size()));
        if (added)
            attributes.push_back(a);
        index[i] = it->second;
    }

    LaunchBlobHeader header;
    header.attributes = static_cast<uint32_t>(attributes.size());
    header.pid = lane.pid;
    header.deviceId = lane.deviceId;
    header.streamId = lane.streamId;
    header.laneEvents = lane.size();
    header.chunkOffset = offset;
    header.chunkEvents = count;
    const size_t indexBytes = count * sizeof(uint32_t);
    const size_t attributeBytes = attributes.size() * sizeof(LaunchAttributes);
    std::vector<std::byte> blob(sizeof(LaunchBlobHeader) + indexBytes + attributeBytes);
    if (indexBytes)
        std::memcpy(blob.data() + sizeof(LaunchBlobHeader), index.data(), indexBytes);
    if (attributeBytes)
        std::memcpy(blob.data() + sizeof(LaunchBlobHeader) + indexBytes, attributes.data(), attributeBytes);
    header.hash = chunkHash(header, std::span(blob).subspan(sizeof(LaunchBlobHeader)));
    std::memcpy(blob.data(), &header, sizeof(header));
    return blob;
}

namespace {

bool checkHeader(std::span<const std::byte> blob, LaunchBlobHeader& header)
{
    if (blob.size() < sizeof(LaunchBlobHeader))
        return false;
    std::memcpy(&header, blob.data(), sizeof(header));
    if (header.magic != kLaunchBlobMagic)
        return false;
    // Sizes are checked before they are multiplied: a damaged header must not overflow them.
    const size_t payload = blob.size() - sizeof(LaunchBlobHeader);
    if (header.chunkEvents > payload / sizeof(uint32_t) || header.attributes > payload / sizeof(LaunchAttributes))
        return false;
    const size_t indexBytes = header.chunkEvents * sizeof(uint32_t);
    const size_t attributeBytes = size_t {header.attributes} * sizeof(LaunchAttributes);
    if (payload != indexBytes + attributeBytes)
        return false;
    if (header.chunkOffset > header.laneEvents || header.chunkEvents > header.laneEvents - header.chunkOffset)
        return false;
    return chunkHash(header, blob.subspan(sizeof(LaunchBlobHeader))) == header.hash;
}

} // namespace

bool checkLaunchChunk(std::span<const std::byte> blob)
{
    LaunchBlobHeader header;
    return checkHeader(blob, header);
}

bool decodeLaunchChunk(std::span<const std::byte> blob, LaunchChunk& out)
{
    LaunchBlobHeader& header = out.header;
    if (!checkHeader(blob, header))
        return false;
    const size_t indexBytes = header.chunkEvents * sizeof(uint32_t);
    const size_t attributeBytes = size_t {header.attributes} * sizeof(LaunchAttributes);
    out.index.resize(header.chunkEvents);
    out.attributes.resize(header.attributes);
    if (indexBytes)
        std::memcpy(out.index.data(), blob.data() + sizeof(LaunchBlobHeader), indexBytes);
    if (attributeBytes)
        std::memcpy(out.attributes.data(), blob.data() + sizeof(LaunchBlobHeader) + indexBytes, attributeBytes);
    for (const uint32_t i : out.index) {
        if (i != kNoLaunchAttributes && i >= header.attributes)
            return false;
    }
    return true;
}

} // namespace ws

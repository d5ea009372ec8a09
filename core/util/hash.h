// SPDX-License-Identifier: MIT
#pragma once

// Fast non-cryptographic 64-bit hashing, used to detect damaged session content (bit rot,
// overwritten pages) that SQLite itself cannot notice because the b-tree stays well-formed.
// Not for hash tables or anything adversarial.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace ws {

namespace hashdetail {
inline constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
inline constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
inline constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;

inline uint64_t round(uint64_t acc, uint64_t word)
{
    acc += word * kPrime2;
    acc = std::rotl(acc, 31);
    return acc * kPrime1;
}

inline uint64_t avalanche(uint64_t h)
{
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h;
}
} // namespace hashdetail

// Hash of a byte range. Four independent accumulators keep the multiply chains parallel so a
// multi-megabyte lane cache hashes at memory speed.
inline uint64_t hashBytes(std::span<const std::byte> data, uint64_t seed = 0)
{
    using namespace hashdetail;
    const std::byte* p = data.data();
    size_t n = data.size();
    uint64_t a = seed + kPrime1 + kPrime2, b = seed + kPrime2, c = seed, d = seed - kPrime1;
    while (n >= 32) {
        uint64_t w[4];
        std::memcpy(w, p, sizeof(w));
        a = round(a, w[0]);
        b = round(b, w[1]);
        c = round(c, w[2]);
        d = round(d, w[3]);
        p += 32;
        n -= 32;
    }
    uint64_t h = std::rotl(a, 1) + std::rotl(b, 7) + std::rotl(c, 12) + std::rotl(d, 18);
    h += data.size();
    while (n >= 8) {
        uint64_t w;
        std::memcpy(&w, p, sizeof(w));
        h = round(h, w);
        p += 8;
        n -= 8;
    }
    while (n > 0) {
        h = round(h, static_cast<uint64_t>(*p));
        ++p;
        --n;
    }
    return avalanche(h);
}

// The hash of a cache chunk: its header, with its `hash` field zero, then its payload (the lane
// and launch chunks of the timeline's cache carry one each).
template <typename Header> uint64_t chunkHash(Header header, std::span<const std::byte> payload)
{
    header.hash = 0;
    const uint64_t headerHash = hashBytes(std::as_bytes(std::span(&header, 1)));
    return hashBytes(payload, headerHash);
}

// Incremental hash of a sequence of typed values (one table row).
class RowHasher {
public:
    void add(uint64_t value) { m_state = hashdetail::round(m_state ^ m_count++, value); }
    void add(int64_t value) { add(static_cast<uint64_t>(value)); }
    // SQLite stores an integral REAL as an integer and reads -0.0 back as 0.0: hash both the same.
    void add(double value) { add(std::bit_cast<uint64_t>(value == 0 ? 0.0 : value)); }
    void add(std::string_view text) { add(hashBytes(std::as_bytes(std::span(text.data(), text.size())), text.size())); }
    uint64_t value() const { return hashdetail::avalanche(m_state); }

private:
    uint64_t m_state = hashdetail::kPrime3;
    uint64_t m_count = 0;
};

} // namespace ws

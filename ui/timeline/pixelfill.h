// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <cwchar>

namespace ws {

// Fills n RGB32 pixels with c. std::fill_n on uint32_t stays a scalar loop at -O2 (one store per
// cycle: 55% of a frame's build was the background fill); glibc's wmemset is vectorised, and
// wchar_t is 32 bits on every platform the app is built for.
static_assert(sizeof(wchar_t) == sizeof(uint32_t));
inline void fillPixels(uint32_t* p, size_t n, uint32_t c)
{
    std::wmemset(reinterpret_cast<wchar_t*>(p), static_cast<wchar_t>(c), n);
}

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace ws {

// A kernel name short enough for a table column that still tells template instantiations
// apart: the demangled name without return type, parameter list and namespace/class
// qualifiers, template arguments kept, and the middle elided ("…") past maxLength characters.
//   "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, F)"
//     -> "vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
// Names that are not C++ ("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTN") come back unchanged.
std::string compactKernelName(std::string_view demangled, size_t maxLength = 60);

} // namespace ws

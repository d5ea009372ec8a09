// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace ws {

// Itanium C++ ABI demangling through abi::__cxa_demangle. Names that are not mangled (C
// kernels such as "vectorAdd", or names already demangled) come back unchanged, so callers
// may pass whatever CUPTI reported.
std::string demangle(std::string_view mangled);

// The bare function name of a demangled (or plain) name, as nsys shows it for `:base`:
// no return type, parameters, template arguments or namespace/class qualifiers.
//   "void at::native::vectorized_elementwise_kernel<4, F>(int, F)" -> "vectorized_elementwise_kernel"
// A mangled name is demangled first.
std::string shortName(std::string_view name);

} // namespace ws

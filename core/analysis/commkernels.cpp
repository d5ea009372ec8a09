// SPDX-License-Identifier: MIT
#include "core/analysis/commkernels.h"

#include <cctype>

namespace ws {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// Itanium ABI: _Z [L] (<len><id> | N [qualifiers] (<len><id>)+ E) <params>. Anything else
// (substitutions, operators, std:: abbreviations) is left whole: communication kernels are
// plain functions, possibly in a namespace.
std::string_view mangledBase(std::string_view name)
{
    size_t p = 2;
    if (p < name.size() && name[p] == 'L')
        ++p;
    const bool nested = p < name.size() && name[p] == 'N';
    if (nested) {
        ++p;
        while (p < name.size() && (name[p] == 'K' || name[p] == 'V' || name[p] == 'r'))
            ++p;
    }
    std::string_view last;
    while (p < name.size() && isDigit(name[p])) {
        size_t len = 0;
        while (p < name.size() && isDigit(name[p])) {
            len = len * 10 + static_cast<size_t>(name[p] - '0');
            if (len > name.size())
                return name;
            ++p;
        }
        if (len == 0 || p + len > name.size())
            return name;
        last = name.substr(p, len);
        p += len;
        if (!nested)
            break;
    }
    return last.empty() ? name : last;
}

std::string_view demangledBase(std::string_view name)
{
    // The parameter list starts at the first '(' outside template arguments that is not
    // part of "(anonymous namespace)".
    constexpr std::string_view kAnon = "(anonymous namespace)";
    size_t end = name.size();
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '<') {
            ++depth;
        } else if (c == '>') {
            --depth;
        } else if (c == '(' && depth == 0) {
            if (name.substr(i, kAnon.size()) == kAnon) {
                i += kAnon.size() - 1;
                continue;
            }
            end = i;
            break;
        }
    }
    std::string_view head = name.substr(0, end);
    // Template arguments of the function itself.
    depth = 0;
    for (size_t i = 0; i < head.size(); ++i) {
        if (head[i] == '<' && depth == 0 && i > 0) {
            head = head.substr(0, i);
            break;
        }
    }
    while (!head.empty() && head.back() == ' ')
        head.remove_suffix(1);
    const size_t cut = head.find_last_of(" :)*&");
    return cut == std::string_view::npos ? head : head.substr(cut + 1);
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

} // namespace

std::string_view commBaseIdentifier(std::string_view name)
{
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.front())))
        name.remove_prefix(1);
    if (startsWith(name, "_Z"))
        return mangledBase(name);
    return demangledBase(name);
}

CommKind classifyCommName(std::string_view name)
{
    if (name == "[CUDA memcpy Peer-to-Peer]")
        return CommKind::PeerCopy;
    // PyTorch's record_function names for its NCCL calls ("nccl:all_reduce",
    // "nccl:_all_gather_base"), seen on NVTX lanes and in imported Kineto traces.
    if (startsWith(name, "nccl:"))
        return CommKind::Nccl;
    const std::string_view base = commBaseIdentifier(name);
    // NCCL's identifiers are "nccl" + a capital: its kernels, ncclKernel_* (NCCL <= 2.18),
    // ncclDevKernel_* (2.19+), ncclAllReduceRingLLKernel_* (<= 2.7), and its API calls, which
    // NCCL 2.28 marks with NVTX ranges of the same names (ncclAllReduce, ncclCommInitRankConfig).
    if (base.size() > 4 && startsWith(base, "nccl") && base[4] >= 'A' && base[4] <= 'Z')
        return CommKind::Nccl;
    return CommKind::None;
}

CommKind classifyKernel(const KernelRecord& kernel, const StringTable& strings)
{
    for (const StringId id : {kernel.shortName, kernel.demangledName, kernel.mangledName}) {
        if (id == 0 || id >= strings.size())
            continue;
        if (const CommKind k = classifyCommName(strings.at(id)); k != CommKind::None)
            return k;
    }
    return CommKind::None;
}

} // namespace ws

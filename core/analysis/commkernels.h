// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/model/sessiondata.h"

#include <string_view>

namespace ws {

// Which GPU work moves data between GPUs rather than computing. Multi-GPU training spends
// its scaling losses there, so the timeline colours it as one family and comm_overlap
// measures how much of it hides behind compute.
enum class CommKind {
    None = 0, // compute (or a copy that stays on one device)
    Nccl,     // an NCCL collective or point-to-point kernel
    PeerCopy, // cudaMemcpyPeer & co: a copy between two devices (CopyKind::PtoP)
};

// The legend's name for the family (ui shows it next to every communication name).
inline constexpr std::string_view kCommFamilyLabel = "communication (NCCL)";

// A kernel (or event) name as any tool writes it: mangled (_Z39ncclDevKernel_...), demangled
// ("void ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), the short base name, the
// NCCL <= 2.7 style (ncclAllReduceRingLLKernel_sum_f32), NCCL's own NVTX ranges
// ("ncclAllReduce"), PyTorch's op annotations ("nccl:all_reduce"), and
// "[CUDA memcpy Peer-to-Peer]", the name lanes give peer copies.
CommKind classifyCommName(std::string_view name);
inline bool isCommunicationName(std::string_view name)
{
    return classifyCommName(name) != CommKind::None;
}

// A kernel of the session: any of its three names decides (importers fill different ones).
CommKind classifyKernel(const KernelRecord& kernel, const StringTable& strings);
inline CommKind classifyCopy(CopyKind kind)
{
    return kind == CopyKind::PtoP ? CommKind::PeerCopy : CommKind::None;
}

// The identifier a name is called by: "ncclDevKernel_AllReduce_Sum_f32_RING_LL" for
// "void ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)" and for
// "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"; the last
// component of a qualified name. Exposed for tests.
std::string_view commBaseIdentifier(std::string_view name);

} // namespace ws

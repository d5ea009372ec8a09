// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparesession.h"

#include <string>
#include <vector>

namespace ws::compare {

// How a pair of kernel keys was matched.
enum class MatchKind {
    Exact,    // same demangled name at the same NVTX path
    Name,     // same name, the only unmatched one of that name on each side, different path
    PathOnly, // different names, but the only unmatched kernel on each side at that NVTX path
    Similar,  // different names that differ only in a short middle part (a template argument, a
              // fused epilogue suffix), each the other's most similar unmatched kernel
    User,     // paired by the user
};
const char* matchKindName(MatchKind kind); // "exact", "name", "path", "similar", "user"

// How alike two kernel names are: (common prefix + common suffix) / length of the shorter name,
// capped at 1. "gemm_128x256_NNT" and "gemm_128x256_relu_NNT" score 1; unrelated names near 0.
double nameSimilarity(const std::string& a, const std::string& b);

// A re-pairing the user asked for. Each side is a key index of its session, or, when given as
// text (CLI --pair A=B), a substring of the demangled name (or of "path / name") that must
// select exactly one key of that side.
struct UserPair {
    int keyA = -1;
    int keyB = -1;
    std::string textA;
    std::string textB;
};

struct KernelPair {
    uint32_t keyA = 0;
    uint32_t keyB = 0;
    MatchKind kind = MatchKind::Exact;
};

struct KernelMatching {
    std::vector<KernelPair> pairs;    // in B's launch order of first appearance
    std::vector<uint32_t> unmatchedA; // keys of A without a partner, in A's launch order
    std::vector<uint32_t> unmatchedB;
    // The instances of a pair are paired by launch order: the i-th launch of keyA with the i-th
    // launch of keyB; the surplus of the longer side is counted here.
};

// Matches kernels of A and B: user pairs first (they take both keys out of the automatic
// passes), then exact (path, name), then the same name at another path when it is the only
// unmatched key of that name on both sides, then the only unmatched key on each side at one
// path, then (at the same path) pairs of mutually most similar names scoring at least 0.8.
// Throws std::invalid_argument for a user pair that selects no key or several (the
// message lists the candidates).
KernelMatching matchKernels(const CompareSession& a, const CompareSession& b, const std::vector<UserPair>& user = {});

// Parses "A=B" (CLI --pair). Throws std::invalid_argument without '='.
UserPair parseUserPair(const std::string& text);

} // namespace ws::compare

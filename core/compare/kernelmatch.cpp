// SPDX-License-Identifier: MIT
#include "core/compare/kernelmatch.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace ws::compare {

const char* matchKindName(MatchKind kind)
{
    switch (kind) {
    case MatchKind::Exact:
        return "exact";
    case MatchKind::Name:
        return "name";
    case MatchKind::PathOnly:
        return "path";
    case MatchKind::Similar:
        return "similar";
    case MatchKind::User:
        return "user";
    }
    return "unknown";
}

double nameSimilarity(const std::string& a, const std::string& b)
{
    const size_t shorter = std::min(a.size(), b.size());
    if (shorter == 0)
        return 0;
    size_t prefix = 0;
    while (prefix < shorter && a[prefix] == b[prefix])
        ++prefix;
    size_t suffix = 0;
    while (suffix < shorter - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    return std::min(1.0, static_cast<double>(prefix + suffix) / static_cast<double>(shorter));
}

UserPair parseUserPair(const std::string& text)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw std::invalid_argument("--pair '" + text + "': expected A_NAME=B_NAME (substrings of kernel names)");
    UserPair p;
    p.textA = text.substr(0, eq);
    p.textB = text.substr(eq + 1);
    return p;
}

namespace {

// Keys in order of first launch.
std::vector<uint32_t> keysInLaunchOrder(const CompareSession& s)
{
    std::vector<uint32_t> order;
    std::vector<bool> seen(s.keys.size(), false);
    for (const auto& l : s.launches) {
        if (!seen[l.key]) {
            seen[l.key] = true;
            order.push_back(l.key);
        }
    }
    for (uint32_t k = 0; k < s.keys.size(); ++k) {
        if (!seen[k])
            order.push_back(k);
    }
    return order;
}

uint32_t resolve(const CompareSession& s, int index, const std::string& text, const char* side)
{
    if (index >= 0) {
        if (static_cast<size_t>(index) >= s.keys.size())
            throw std::invalid_argument(
                std::string("kernel pair: ") + side + " has no kernel #" + std::to_string(index));
        return static_cast<uint32_t>(index);
    }
    std::vector<uint32_t> hits;
    for (uint32_t k = 0; k < s.keys.size(); ++k) {
        if (s.keys[k].name == text || s.keys[k].display() == text) {
            hits = {k};
            break;
        }
        if (s.keys[k].name.find(text) != std::string::npos || s.keys[k].display().find(text) != std::string::npos)
            hits.push_back(k);
    }
    if (hits.size() == 1)
        return hits.front();
    std::string msg = std::string("--pair: '") + text + "' selects " + (hits.empty() ? "no kernel" : "several kernels")
        + " of " + side + " (" + s.path + ")";
    const auto& list = hits.empty() ? std::vector<uint32_t>() : hits;
    if (!list.empty()) {
        msg += ":";
        for (size_t i = 0; i < std::min<size_t>(list.size(), 5); ++i)
            msg += " [" + s.keys[list[i]].display() + "]";
    }
    throw std::invalid_argument(msg);
}

} // namespace

KernelMatching matchKernels(const CompareSession& a, const CompareSession& b, const std::vector<UserPair>& user)
{
    KernelMatching m;
    std::vector<int> partnerOfA(a.keys.size(), -1);
    std::vector<int> partnerOfB(b.keys.size(), -1);
    std::map<uint32_t, MatchKind> kindOfB;
    const auto link = [&](uint32_t ka, uint32_t kb, MatchKind kind) {
        partnerOfA[ka] = static_cast<int>(kb);
        partnerOfB[kb] = static_cast<int>(ka);
        kindOfB[kb] = kind;
    };
    for (const auto& u : user) {
        const uint32_t ka = resolve(a, u.keyA, u.textA, "A");
        const uint32_t kb = resolve(b, u.keyB, u.textB, "B");
        // A later pair replaces an earlier one that used either key.
        if (partnerOfA[ka] >= 0)
            partnerOfB[static_cast<size_t>(partnerOfA[ka])] = -1;
        if (partnerOfB[kb] >= 0)
            partnerOfA[static_cast<size_t>(partnerOfB[kb])] = -1;
        link(ka, kb, MatchKind::User);
    }
    // Exact.
    std::map<KernelKey, uint32_t> indexA;
    for (uint32_t k = 0; k < a.keys.size(); ++k)
        indexA.emplace(a.keys[k], k);
    for (uint32_t kb = 0; kb < b.keys.size(); ++kb) {
        if (partnerOfB[kb] >= 0)
            continue;
        const auto it = indexA.find(b.keys[kb]);
        if (it != indexA.end() && partnerOfA[it->second] < 0)
            link(it->second, kb, MatchKind::Exact);
    }
    // Same name elsewhere, when unambiguous.
    const auto unmatchedBy = [](const CompareSession& s, const std::vector<int>& partner, auto field) {
        std::map<std::string, std::vector<uint32_t>> by;
        for (uint32_t k = 0; k < s.keys.size(); ++k) {
            if (partner[k] < 0)
                by[field(s.keys[k])].push_back(k);
        }
        return by;
    };
    {
        const auto byNameA = unmatchedBy(a, partnerOfA, [](const KernelKey& k) { return k.name; });
        const auto byNameB = unmatchedBy(b, partnerOfB, [](const KernelKey& k) { return k.name; });
        for (const auto& [name, keysB] : byNameB) {
            const auto it = byNameA.find(name);
            if (it != byNameA.end() && it->second.size() == 1 && keysB.size() == 1)
                link(it->second.front(), keysB.front(), MatchKind::Name);
        }
    }
    // The only unmatched kernel at a path on each side (a replaced kernel inside one range).
    {
        const auto byPathA = unmatchedBy(a, partnerOfA, [](const KernelKey& k) { return k.path; });
        const auto byPathB = unmatchedBy(b, partnerOfB, [](const KernelKey& k) { return k.path; });
        for (const auto& [path, keysB] : byPathB) {
            if (path.empty())
                continue; // outside any range "the only one" means nothing
            const auto it = byPathA.find(path);
            if (it != byPathA.end() && it->second.size() == 1 && keysB.size() == 1)
                link(it->second.front(), keysB.front(), MatchKind::PathOnly);
        }
    }
    // Similar names at the same path: a changed template argument or an epilogue suffix. Only
    // mutual best matches above the bar, so two candidates never compete for one kernel.
    {
        constexpr double kBar = 0.8;
        const auto best = [](const CompareSession& from, uint32_t key, const CompareSession& to,
                              const std::vector<int>& partnerOfTo) {
            int found = -1;
            double score = kBar;
            bool tie = false;
            for (uint32_t k = 0; k < to.keys.size(); ++k) {
                if (partnerOfTo[k] >= 0 || to.keys[k].path != from.keys[key].path)
                    continue;
                const double s = nameSimilarity(from.keys[key].name, to.keys[k].name);
                if (s > score) {
                    score = s;
                    found = static_cast<int>(k);
                    tie = false;
                } else if (s == score && found >= 0) {
                    tie = true;
                }
            }
            return tie ? -1 : found;
        };
        for (uint32_t kb = 0; kb < b.keys.size(); ++kb) {
            if (partnerOfB[kb] >= 0)
                continue;
            const int ka = best(b, kb, a, partnerOfA);
            if (ka >= 0 && best(a, static_cast<uint32_t>(ka), b, partnerOfB) == static_cast<int>(kb))
                link(static_cast<uint32_t>(ka), kb, MatchKind::Similar);
        }
    }
    for (uint32_t kb : keysInLaunchOrder(b)) {
        if (partnerOfB[kb] >= 0)
            m.pairs.push_back({static_cast<uint32_t>(partnerOfB[kb]), kb, kindOfB[kb]});
        else
            m.unmatchedB.push_back(kb);
    }
    for (uint32_t ka : keysInLaunchOrder(a)) {
        if (partnerOfA[ka] < 0)
            m.unmatchedA.push_back(ka);
    }
    return m;
}

} // namespace ws::compare

// SPDX-License-Identifier: MIT
#pragma once

// The three kernels of collectors/profiler/workloads/stalls.cu and what PC sampling must show for
// them: the stall reason that dominates the launch, and the source line where it does, marked in
// the source by a "HOT(<reason>)" comment. Shared by the fixture test (tests/core), the panel
// test (tests/ui) and the GPU test (tests/gpu).

#include "core/model/sessiondata.h"
#include "core/source/sourcetables.h"
#include "core/source/sourceview.h"
#include "core/source/stallreasonname.h"

#include <optional>
#include <string>
#include <vector>

namespace ws::test {

struct StallKernel {
    std::string function;             // mangled
    std::vector<std::string> reasons; // any of these may dominate (stall reason keys)
    std::string marker;               // the comment on the hot line
};

inline const std::vector<StallKernel>& stallKernels()
{
    static const std::vector<StallKernel> k = {
        {"_Z12chase_kernelPKjPji", {"long_scoreboard"}, "HOT(long_scoreboard)"},
        // A 32-way conflicting LDS feeding the next: the result waits on the short scoreboard,
        // the queue of replays throttles the MIO.
        {"_Z20bank_conflict_kernelPji", {"short_scoreboard", "mio_throttle"}, "HOT(short_scoreboard)"},
        {"_Z14barrier_kernelPfii", {"barrier"}, "HOT(barrier)"},
    };
    return k;
}

// 1-based line of the first line containing `marker`, 0 when none.
inline int32_t markerLine(const std::string& text, const std::string& marker)
{
    int32_t line = 1;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t nl = text.find('\n', start);
        const std::string l = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        if (l.find(marker) != std::string::npos)
            return line;
        if (nl == std::string::npos)
            break;
        start = nl + 1;
        ++line;
    }
    return 0;
}

// What the session says about one launch of a stall kernel.
struct StallFinding {
    int64_t kernelId = -1;
    std::string dominant; // stall reason key with the most samples in the launch
    double dominantShare = 0;
    int64_t samples = 0;
    int32_t line = 0;         // where the dominant reason has the most samples
    double lineShare = 0;     // that line's share of the dominant reason's samples
    int32_t expectedLine = 0; // the marker line in the recorded source text
    std::string path;
};

inline std::optional<StallFinding> examine(const SessionData& s, const SourceTables& t, const StallKernel& k)
{
    for (const auto& kr : s.kernels) {
        if (s.str(kr.mangledName) != k.function)
            continue;
        StallFinding f;
        f.kernelId = kr.id;
        const SourceView v(t, s.strings, kr.id, k.function);
        if (v.empty() || v.reasons().empty())
            return f;
        f.samples = v.totalSamples();
        f.dominant = StallReasonName::key(v.reasons()[0]);
        f.dominantShare = static_cast<double>(v.reasonTotals()[0]) / static_cast<double>(v.totalSamples());
        const auto where = v.hottestLineFor(0);
        if (where.first >= 0) {
            const auto& file = v.files()[static_cast<size_t>(where.first)];
            f.path = file.path;
            f.line = where.second;
            const auto& l = file.lines[static_cast<size_t>(where.second - 1)];
            f.lineShare = static_cast<double>(l.samples[0]) / static_cast<double>(v.reasonTotals()[0]);
            for (const auto& sf : t.files) {
                if (s.str(sf.path) == file.path)
                    f.expectedLine = markerLine(sf.text, k.marker);
            }
        }
        return f;
    }
    return std::nullopt;
}

} // namespace ws::test

// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// One metric whose value, in one cache control, differed from ncu's on the fidelity suite
// (scripts/device/metrics-compare.sh SUITE=fidelity on the H200): on how many of the suite's
// kernels >= 50 us it was outside max(1 %, ncu's own run-to-run spread), by how much, and why
// where the cause was measured.
struct KnownDifference {
    std::string cacheControl; // "all" or "none", as the profile run's meta says
    std::string metric;
    int kernels = 0; // suite kernels on which it disagreed
    int of = 0;      // suite kernels compared
    double medianPercent = 0;
    double maxPercent = 0;
    std::string cause; // "not established" when no experiment explained it
};

// The known differences the details panels show next to a value, read from
// <sections dir>/known-differences.tsv (written by scripts/device/known-differences.py from the
// committed fidelity tables). A value is never adjusted: the note says how far it may be from
// what ncu would print for the same launch.
class KnownDifferences {
public:
    // Tab-separated rows: cache, metric, kernels, of, median %, max %, cause; '#' lines are
    // comments. Throws std::runtime_error naming `source`, the line and what is wrong.
    static KnownDifferences parse(std::string_view text, const std::string& source);
    // parse() of the file; throws std::runtime_error naming the file when it cannot be read.
    static KnownDifferences readFile(const std::string& path);
    // The file beside the section files: known-differences.tsv in `sectionsDirectory`.
    static std::string fileIn(const std::string& sectionsDirectory);
    // readFile(fileIn(sectionsDirectory)), or nullopt with why in `error` (values are then shown
    // without notes, and the caller says so).
    static std::optional<KnownDifferences> readBeside(const std::string& sectionsDirectory, std::string& error);

    const KnownDifference* find(std::string_view cacheControl, std::string_view metric) const;
    const std::vector<KnownDifference>& rows() const { return m_rows; }

    // "Differs from ncu (--cache-control all): on 5 of 13 fidelity-suite kernels, by 3.6 %
    // (median), up to 42 %. Cause: …"
    static std::string note(const KnownDifference& d);

private:
    std::vector<KnownDifference> m_rows; // sorted by (cache, metric)
};

} // namespace ws

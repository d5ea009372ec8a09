// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"
#include "core/source/sourcetables.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ws {

// The Source page of one kernel launch: its SASS with stall samples per instruction (total and
// per stall reason), and the CUDA source lines with the samples of their instructions summed.
// Qt-free so the aggregation is tested without a GUI; the panel's item models read it.
class SourceView {
public:
    struct SassRow {
        uint32_t functionId = 0;
        uint64_t pcOffset = 0;
        std::string text;
        int fileIndex = -1; // index into files(), -1 = no line information
        int32_t line = 0;
        std::vector<int64_t> samples; // per reasons() entry
        int64_t total = 0;            // all samples (the not-issued counters are not added again)
        int64_t notIssued = 0;        // samples at which the warp issued nothing
        int64_t instExecuted = -1;    // -1: not collected
    };
    struct LineRow {
        int32_t line = 0; // 1-based
        std::string text;
        std::vector<int64_t> samples; // per reasons() entry, summed over the line's instructions
        int64_t total = 0;
        std::vector<size_t> sassRows; // indices into sassRows()
    };
    struct File {
        std::string path;
        bool haveText = false; // the session holds the file's text
        std::vector<LineRow> lines;
        int64_t total = 0;
    };
    struct Function {
        uint32_t id = 0;
        std::string name;
        std::string disassembler;
        size_t firstRow = 0, rowCount = 0; // range in sassRows()
    };

    SourceView() = default;
    // `kernelId` selects the launch; `kernelName` (mangled) adds the kernel's own function even
    // when it has no samples.
    SourceView(const SourceTables& tables, const StringTable& strings, int64_t kernelId, const std::string& kernelName);

    bool empty() const { return m_rows.empty(); }
    // Stall reasons present in the launch (CUPTI counter names, not-issued variants excluded),
    // most samples first.
    const std::vector<std::string>& reasons() const { return m_reasons; }
    const std::vector<int64_t>& reasonTotals() const { return m_reasonTotals; }
    int reasonIndex(const std::string& keyOrName) const; // by StallReasonName::key; -1 when absent
    int64_t totalSamples() const { return m_total; }
    const std::vector<SassRow>& sassRows() const { return m_rows; }
    const std::vector<Function>& functions() const { return m_functions; }
    const std::vector<File>& files() const { return m_files; }
    int64_t maxRowTotal() const { return m_maxRow; }
    int64_t maxLineTotal() const { return m_maxLine; }

    // The `n` instructions with the most samples, most first (rows with none left out).
    std::vector<size_t> hottest(size_t n) const;
    // The fewest instructions that together hold at least `fraction` of the samples.
    std::vector<size_t> hottestCovering(double fraction) const;
    // Reason with the most samples in a row or a line; -1 when it has none.
    int dominantReason(const std::vector<int64_t>& samples) const;
    // Rows where `reason` has at least `minShare` of the row's samples and any at all.
    std::vector<size_t> rowsWithReason(int reason, double minShare = 0.0) const;
    // The source line (file index, line) with the most samples; {-1, 0} without line information.
    std::pair<int, int32_t> hottestLine() const;
    // Where `reason` has the most samples: (file index, line); {-1, 0} when nowhere.
    std::pair<int, int32_t> hottestLineFor(int reason) const;

private:
    std::vector<std::string> m_reasons;
    std::vector<int64_t> m_reasonTotals;
    std::vector<SassRow> m_rows;
    std::vector<Function> m_functions;
    std::vector<File> m_files;
    int64_t m_total = 0;
    int64_t m_maxRow = 0;
    int64_t m_maxLine = 0;
};

} // namespace ws

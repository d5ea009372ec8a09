// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/profileresult.h"
#include "core/model/sessiondata.h"
#include "core/source/pcsamplingresult.h"
#include "core/source/sassdisassembly.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ws {

// The disassembly of one captured cubin, made at record time.
struct CubinDisassembly {
    std::string tool; // the command that made it, e.g. "nvdisasm -c -gi"
    std::vector<SassFunctionListing> functions;
};

// Adds the source-counter tables to a profile session built by ProfileIngest: one sass_function
// per sampled function, its instructions (all of them when a disassembly exists, else the sampled
// and line-correlated PCs), the samples per (kernel launch, PC, stall reason) and the text of
// every source file the line table names that `readSource` can find.
class SourceIngest {
public:
    using SourceReader = std::function<std::optional<std::string>(const std::string& path)>;

    struct Summary {
        size_t functions = 0;
        size_t instructions = 0;
        size_t counters = 0;
        size_t sourceFiles = 0;
        size_t missingSourceFiles = 0;
        uint64_t samples = 0;
        uint64_t droppedSamples = 0;
        size_t unmatchedSamples = 0; // PC records whose launch has no kernel row
    };

    // `disassemblies` by cubin CRC. Kernel rows are matched to PC sampling ranges through the
    // profile results (same pid, launch index -> host launch time).
    static Summary add(SessionData& session, const std::vector<ProfileResult>& profiles,
        const std::vector<PcSamplingResult>& samples, const std::map<uint64_t, CubinDisassembly>& disassemblies,
        const SourceReader& readSource);
};

} // namespace ws

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ws {

// A cubin the profiler saw loaded (CUPTI module-load callback), saved beside the result file.
struct CapturedCubin {
    uint64_t crc = 0; // cuptiGetCubinCrc: the key PC records carry
    uint64_t bytes = 0;
    uint32_t moduleId = 0;
    std::string file; // name inside the result directory
    bool operator==(const CapturedCubin&) const = default;
};

// PC sampling over one profiled launch (a start/stop range around it).
struct PcSamplingRange {
    int64_t launchIndex = 0; // ProfiledLaunch::index in the same process's profile result
    uint32_t correlationId = 0;
    uint64_t totalSamples = 0;   // CUPTI: all samples of the range, dropped and non-user included
    uint64_t droppedSamples = 0; // dropped by the hardware (back pressure)
    uint64_t nonUserSamples = 0; // samples in kernels CUPTI gives no PCs for
    bool hardwareBufferFull = false;
    uint64_t pcs = 0;    // PC records collected
    uint32_t period = 0; // log2 of the sampling interval in cycles
    std::string error;   // empty when the range was collected
    bool operator==(const PcSamplingRange&) const = default;
};

// Samples at one PC during one launch: (stall reason index, samples) pairs.
struct PcSampleRecord {
    int64_t launchIndex = 0;
    uint64_t cubinCrc = 0;
    uint64_t pcOffset = 0;
    uint32_t functionIndex = 0;
    uint32_t correlationId = 0;
    std::string functionName; // mangled
    std::vector<std::pair<uint32_t, uint32_t>> reasons;
    bool operator==(const PcSampleRecord&) const = default;
};

// cuptiGetSassToSourceCorrelation's answer for one sampled PC.
struct CorrelatedLine {
    uint64_t cubinCrc = 0;
    uint64_t pcOffset = 0;
    uint32_t line = 0;
    std::string functionName;
    std::string path; // dirName + "/" + fileName as CUPTI gives them
    bool operator==(const CorrelatedLine&) const = default;
};

// Everything the PC sampler of one target process wrote.
struct PcSamplingResult {
    int64_t pid = 0;
    std::map<uint32_t, std::string> stallReasons; // CUPTI index -> name (smsp__pcsamp_warps_issue_stalled_*)
    std::vector<CapturedCubin> cubins;
    std::vector<PcSamplingRange> ranges;
    std::vector<PcSampleRecord> samples;
    std::vector<CorrelatedLine> lines;
    std::map<std::string, std::string> info;
    std::vector<std::string> errors; // CUPTI errors in words, as the user should see them
    bool complete = false;
    bool truncated = false;

    const CapturedCubin* cubin(uint64_t crc) const;
};

// Appends the PC sampler's findings line by line (format in pcsamplingresult.cpp), flushed per
// range so a crash keeps everything collected before it. Used inside the target process.
class PcSamplingResultWriter {
public:
    PcSamplingResultWriter() = default;
    ~PcSamplingResultWriter();
    PcSamplingResultWriter(const PcSamplingResultWriter&) = delete;
    PcSamplingResultWriter& operator=(const PcSamplingResultWriter&) = delete;

    bool open(const std::string& path, int64_t pid);
    bool isOpen() const { return m_file != nullptr; }

    void stallReason(uint32_t index, const std::string& name);
    void cubin(const CapturedCubin& c);
    void range(const PcSamplingRange& r);
    void sample(const PcSampleRecord& s);
    void line(const CorrelatedLine& l);
    void info(const std::string& key, const std::string& value);
    void error(const std::string& text);
    void end();
    void flush();

private:
    FILE* m_file = nullptr;
};

class PcSamplingResultReader {
public:
    // Throws std::runtime_error naming the file and line when the text is not a PC sampling
    // result or a line is malformed; a cut-off last line is tolerated and flagged.
    static PcSamplingResult read(const std::string& path);
    static PcSamplingResult parse(const std::string& text, const std::string& source);
};

} // namespace ws

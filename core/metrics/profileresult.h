// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace ws {

// A metric the profiler collected in one process, as validated on its device.
struct ProfiledMetric {
    std::string name;
    std::string unit;        // CUPTI's dimension unit, e.g. "nsecond", "percent"; may be empty
    std::string description; // CUPTI's description
    std::string breakdownOf; // the throughput metric it was expanded from, empty otherwise
    bool operator==(const ProfiledMetric&) const = default;
};

// One profiled kernel launch: its configuration as seen at the launch call, and its values.
struct ProfiledLaunch {
    int64_t index = 0; // order among the profiled launches of the process = range index
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0;
    int64_t hostStartNs = 0; // CLOCK_MONOTONIC when the launch API was entered
    std::string mangledName;
    int32_t gridX = 0, gridY = 0, gridZ = 0;
    int32_t blockX = 0, blockY = 0, blockZ = 0;
    int32_t clusterX = 0, clusterY = 0, clusterZ = 0;
    int32_t registersPerThread = 0;
    int32_t staticSmemBytes = 0;
    int32_t dynamicSmemBytes = 0;
    int32_t localMemPerThread = 0;
    int32_t maxDynamicSmemBytes = 0;   // the function's MaxDynamicSharedMemorySize attribute
    int32_t carveoutPercent = -1;      // PreferredSharedMemoryCarveout, -1 = none
    std::map<uint32_t, double> values; // metric index -> value; empty until decoded
    bool operator==(const ProfiledLaunch&) const = default;
};

// Everything one target process reports, in the order it was written.
struct ProfileResult {
    int64_t pid = 0;
    std::string processName;
    std::vector<DeviceInfo> devices;
    std::vector<ProfiledMetric> metrics; // index = position
    std::vector<ProfiledLaunch> launches;
    std::map<std::string, std::string> info; // chip, passes, timings, CUPTI version ...
    std::vector<std::string> notes;          // warnings to show the user
    bool complete = false;                   // the process reached its exit handler
    bool truncated = false;                  // the file ended inside a line

    const ProfiledLaunch* launch(int64_t index) const;
};

// Appends the result of one process line by line, flushing after each batch, so a target that
// crashes leaves everything decoded before the crash. Used inside the target; no allocation
// beyond the line being formatted.
class ProfileResultWriter {
public:
    ProfileResultWriter() = default;
    ~ProfileResultWriter();
    ProfileResultWriter(const ProfileResultWriter&) = delete;
    ProfileResultWriter& operator=(const ProfileResultWriter&) = delete;

    bool open(const std::string& path); // false when the file cannot be created
    bool isOpen() const { return m_file != nullptr; }

    void process(int64_t pid, const std::string& name);
    void device(const DeviceInfo& d);
    void metric(uint32_t index, const ProfiledMetric& m);
    void info(const std::string& key, const std::string& value);
    void note(const std::string& text);
    void launch(const ProfiledLaunch& l);
    void values(int64_t launchIndex, const std::map<uint32_t, double>& values);
    void end();
    void flush();

private:
    FILE* m_file = nullptr;
};

class ProfileResultReader {
public:
    // Throws std::runtime_error naming the file (and line) when it is not a result file or a
    // line is malformed. A truncated last line is tolerated and flagged.
    static ProfileResult read(const std::string& path);
    static ProfileResult parse(const std::string& text, const std::string& source);
};

} // namespace ws

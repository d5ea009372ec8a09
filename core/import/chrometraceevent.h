// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ws {

// A process or thread id as a trace spells it: Chrome traces allow integers and strings
// (Perfetto interns a string and shows it as the name; Kineto writes pid "Spans").
struct TraceId {
    bool isString = false;
    int64_t number = 0;
    std::string text;
    bool present = false;
};

// One event of a Chrome trace / Kineto JSON file, with the arguments the importer uses.
// The streaming parser reuses one instance for every event, so clear() keeps capacity.
struct ChromeTraceEvent {
    std::string name;
    std::string cat;
    char ph = 0;
    bool hasTs = false;
    TimeNs ts = 0;
    TimeNs dur = 0;
    TraceId pid;
    TraceId tid;
    std::string id;    // flow / async id, as text
    std::string scope; // "s" of instant events

    struct Args {
        int64_t device = -1;
        int64_t context = -1;
        int64_t stream = -1;
        int64_t correlation = -1;
        int64_t registers = -1;
        int64_t sharedMemory = -1;
        int64_t bytes = -1;
        int64_t cbid = -1;
        int64_t eventId = -1;
        int32_t grid[3] = {0, 0, 0};
        int32_t block[3] = {0, 0, 0};
        bool hasGrid = false;
        bool hasBlock = false;
        std::string name;     // "M" events: process_name / thread_name
        std::string labels;   // "M" events: process_labels ("CPU", "GPU 0")
        std::string syncKind; // cuda_sync: "Stream Sync", "Event Sync", ...
        // Every numeric argument in order, as text (parsed only for "C" counter events). Entries
        // past numberCount are stale capacity.
        std::vector<std::pair<std::string, std::string>> numbers;
        size_t numberCount = 0;
    } args;

    // Resets every field but keeps string and vector capacity (called once per event).
    void clear()
    {
        name.clear();
        cat.clear();
        ph = 0;
        hasTs = false;
        ts = 0;
        dur = 0;
        pid.present = pid.isString = false;
        pid.number = 0;
        tid.present = tid.isString = false;
        tid.number = 0;
        id.clear();
        scope.clear();
        args.device = args.context = args.stream = args.correlation = -1;
        args.registers = args.sharedMemory = args.bytes = args.cbid = args.eventId = -1;
        args.hasGrid = args.hasBlock = false;
        for (int i = 0; i < 3; ++i)
            args.grid[i] = args.block[i] = 0;
        args.name.clear();
        args.labels.clear();
        args.syncKind.clear();
        args.numberCount = 0;
    }
};

} // namespace ws
